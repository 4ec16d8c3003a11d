package dev.taskqueue.sample;

import java.util.List;

import dev.taskqueue.test.TestDatabase;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import org.springframework.boot.Banner;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Configuration;
import org.springframework.jdbc.core.simple.JdbcClient;
import org.springframework.util.ClassUtils;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * An application whose only TaskQueue dependency is the starter (this module's class path: no Spring Boot Flyway
 * module), with Flyway migrations of its own: it starts, TaskQueue's tables are there, and it is told at startup
 * that its migrations did not run and which dependency runs them. Without migrations, no such warning.
 */
@ExtendWith(OutputCaptureExtension.class)
class StarterOnlyMigrationsIntegrationTests {

	private static final String NOT_APPLIED = "classpath:db/orders-migration holds migrations [V1__orders.sql] that "
			+ "nothing will apply";

	private static final String DEPENDENCY = "Add the dependency org.springframework.boot:spring-boot-starter-flyway";

	@Test
	void theStarterDoesNotBringSpringBootsFlywayModule() {
		assertThat(ClassUtils.isPresent("org.flywaydb.core.Flyway", null)).isTrue();
		assertThat(ClassUtils.isPresent("org.springframework.boot.flyway.autoconfigure.FlywayAutoConfiguration", null))
			.isFalse();
	}

	@Test
	void migrationsOfTheApplicationsOwnAreReportedWithTheDependencyThatRunsThem(CapturedOutput output) {
		String url = TestDatabase.createDatabase();
		try (ConfigurableApplicationContext context = start(url,
				"spring.flyway.locations=classpath:db/orders-migration")) {
			assertThat(tables(context)).contains("taskqueue_task", "taskqueue_schema_history")
				.doesNotContain("orders", "flyway_schema_history");
		}
		assertThat(output).contains(NOT_APPLIED).contains(DEPENDENCY);
	}

	@Test
	void noMigrationsNoWarning(CapturedOutput output) {
		String url = TestDatabase.createDatabase();
		try (ConfigurableApplicationContext context = start(url)) {
			assertThat(tables(context)).contains("taskqueue_task");
		}
		assertThat(output).doesNotContain("nothing will apply");
		// Startup's own warnings, on the thread that starts the context: the output also holds what background
		// threads of other contexts in this JVM log meanwhile.
		assertThat(output.getOut().lines().filter((line) -> line.contains(" WARN ") && line.contains("[main]")))
			.isEmpty();
	}

	private static ConfigurableApplicationContext start(String url, String... properties) {
		return new SpringApplicationBuilder(StarterOnlyApplication.class).web(WebApplicationType.NONE)
			.bannerMode(Banner.Mode.OFF)
			.properties("spring.datasource.url=" + url, "spring.sql.init.mode=never")
			.properties(properties)
			.run();
	}

	private static List<String> tables(ConfigurableApplicationContext context) {
		return context.getBean(JdbcClient.class)
			.sql("SELECT table_name FROM information_schema.tables WHERE table_schema = 'public'")
			.query(String.class)
			.list();
	}

	/** Every auto-configuration of this class path, none of the sample's own beans. */
	@Configuration(proxyBeanMethods = false)
	@EnableAutoConfiguration
	static class StarterOnlyApplication {

	}

}
