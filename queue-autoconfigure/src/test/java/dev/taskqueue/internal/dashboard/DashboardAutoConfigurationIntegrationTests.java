package dev.taskqueue.internal.dashboard;

import dev.taskqueue.autoconfigure.TaskQueueAutoConfiguration;
import dev.taskqueue.autoconfigure.TaskQueueDashboardAutoConfiguration;
import dev.taskqueue.autoconfigure.ThroughputAutoConfiguration;
import dev.taskqueue.test.PropertyFailures;
import dev.taskqueue.test.TestDatabase;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.jackson.autoconfigure.JacksonAutoConfiguration;
import org.springframework.boot.jdbc.autoconfigure.DataSourceAutoConfiguration;
import org.springframework.boot.jdbc.autoconfigure.DataSourceTransactionManagerAutoConfiguration;
import org.springframework.boot.test.context.FilteredClassLoader;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.boot.test.context.runner.WebApplicationContextRunner;
import org.springframework.boot.transaction.autoconfigure.TransactionAutoConfiguration;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.security.config.annotation.web.builders.HttpSecurity;
import org.springframework.security.config.annotation.web.configuration.EnableWebSecurity;
import org.springframework.security.web.SecurityFilterChain;
import org.springframework.web.servlet.function.RouterFunction;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * When the dashboard is served (a servlet web application, {@code taskqueue.dashboard.enabled}), and when the
 * throughput is recorded (an instance with a worker, {@code taskqueue.dashboard.record-throughput}).
 */
@ExtendWith(OutputCaptureExtension.class)
class DashboardAutoConfigurationIntegrationTests {

	private static final String url = TestDatabase.createDatabase();

	private static final AutoConfigurations CONFIGURATIONS = AutoConfigurations.of(DataSourceAutoConfiguration.class,
			DataSourceTransactionManagerAutoConfiguration.class, TransactionAutoConfiguration.class,
			JacksonAutoConfiguration.class, TaskQueueAutoConfiguration.class, ThroughputAutoConfiguration.class,
			TaskQueueDashboardAutoConfiguration.class);

	private final WebApplicationContextRunner web = new WebApplicationContextRunner().withConfiguration(CONFIGURATIONS)
		.withPropertyValues("spring.datasource.url=" + url, "taskqueue.dashboard.enabled=true");

	@Test
	void servesNothingUnlessEnabled(CapturedOutput output) {
		// The pages show payloads, errors, host names and pids: an application opts in, as with Spring Boot's actuator.
		new WebApplicationContextRunner().withConfiguration(CONFIGURATIONS)
			.withPropertyValues("spring.datasource.url=" + url)
			.run((context) -> assertThat(context).hasNotFailed()
				.doesNotHaveBean(RouterFunction.class)
				.hasSingleBean(ThroughputRecorder.class));
		assertThat(output).doesNotContain("no authentication");
	}

	@Test
	void warnsOnceWhenServedWithoutSpringSecurity(CapturedOutput output) {
		this.web.withClassLoader(new FilteredClassLoader("org.springframework.security"))
			.withPropertyValues("taskqueue.dashboard.path=/admin/queues")
			.run((context) -> assertThat(context).hasNotFailed().hasSingleBean(RouterFunction.class));
		assertThat(output.getOut().lines().filter((line) -> line.contains("/admin/queues")))
			.singleElement(org.assertj.core.api.InstanceOfAssertFactories.STRING)
			.contains("WARN")
			.contains("no authentication");
	}

	@Test
	void warnsWithSpringSecurityButNoFilterChain(CapturedOutput output) {
		// Spring Security's classes alone authenticate nobody: the dashboard is as open as without them.
		this.web.run((context) -> assertThat(context).hasNotFailed().hasSingleBean(RouterFunction.class));
		assertThat(output).contains("no authentication: the application has no Spring Security filter chain");
	}

	@Test
	void doesNotWarnWithSpringSecuritysFilterChain(CapturedOutput output) {
		this.web.withUserConfiguration(WebSecurity.class)
			.run((context) -> assertThat(context).hasNotFailed().hasSingleBean(RouterFunction.class));
		assertThat(output).doesNotContain("no authentication");
	}

	@Test
	void anEmptyAuthorityStopsTheApplicationNamingTheProperty() {
		this.web.withPropertyValues("taskqueue.dashboard.operate-authority= ")
			.run((context) -> PropertyFailures.assertRefused(context.getStartupFailure(),
					"taskqueue.dashboard.operate-authority", "must not be empty"));
	}

	@Test
	void servesTheDashboardAndRecordsThroughputInAServletWebApplication() {
		this.web.run((context) -> assertThat(context).hasNotFailed()
			.hasSingleBean(RouterFunction.class)
			.hasSingleBean(ThroughputRecorder.class));
	}

	@Test
	void recordsThroughputButServesNothingOutsideAWebApplication() {
		new ApplicationContextRunner().withConfiguration(CONFIGURATIONS)
			.withPropertyValues("spring.datasource.url=" + url)
			.run((context) -> assertThat(context).hasNotFailed()
				.doesNotHaveBean(RouterFunction.class)
				.hasSingleBean(ThroughputRecorder.class));
	}

	@Test
	void turnsOffWithItsProperties() {
		this.web.withPropertyValues("taskqueue.dashboard.enabled=false", "taskqueue.dashboard.record-throughput=false")
			.run((context) -> assertThat(context).hasNotFailed()
				.doesNotHaveBean(RouterFunction.class)
				.doesNotHaveBean(ThroughputRecorder.class));
	}

	@Test
	void aProducerOnlyInstanceServesTheDashboardButRecordsNothing() {
		this.web.withPropertyValues("taskqueue.worker.enabled=false")
			.run((context) -> assertThat(context).hasNotFailed()
				.hasSingleBean(RouterFunction.class)
				.doesNotHaveBean(ThroughputRecorder.class));
	}

	@Test
	void backsOffWithTaskQueue() {
		this.web.withPropertyValues("taskqueue.enabled=false")
			.run((context) -> assertThat(context).hasNotFailed()
				.doesNotHaveBean(RouterFunction.class)
				.doesNotHaveBean(ThroughputRecorder.class));
	}

	@Test
	void aBadPathStopsTheApplicationNamingTheProperty() {
		this.web.withPropertyValues("taskqueue.dashboard.path=taskqueue/")
			.run((context) -> PropertyFailures.assertRefused(context.getStartupFailure(), "taskqueue.dashboard.path",
					"must start with '/', not end with '/', and hold only letters, digits, '.', '_', '~', '-' and '/'"));
	}

	/** Spring Security's filter chain, as {@code @EnableWebSecurity} (or Spring Boot's security) makes it. */
	@Configuration(proxyBeanMethods = false)
	@EnableWebSecurity
	static class WebSecurity {

		@Bean
		SecurityFilterChain securityFilterChain(HttpSecurity http) throws Exception {
			return http.authorizeHttpRequests((requests) -> requests.anyRequest().authenticated()).build();
		}

	}

	@Test
	void aSearchLimitOutOfRangeStopsTheApplicationNamingTheProperty() {
		this.web.withPropertyValues("taskqueue.dashboard.search-limit=0")
			.run((context) -> PropertyFailures.assertRefused(context.getStartupFailure(),
					"taskqueue.dashboard.search-limit", "must be between 1 and 1000"));
	}

}
