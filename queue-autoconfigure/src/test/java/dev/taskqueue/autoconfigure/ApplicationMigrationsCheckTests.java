package dev.taskqueue.autoconfigure;

import org.flywaydb.core.Flyway;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.FilteredClassLoader;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The application's Flyway migrations when Spring Boot's Flyway module is not on the class path (as with the
 * starter alone: the sample application's tests check that on its real class path), and when it is.
 */
@ExtendWith(OutputCaptureExtension.class)
class ApplicationMigrationsCheckTests {

	private static final String WARNING = "classpath:db/app-migration holds migrations [V1__app.sql] that nothing will "
			+ "apply: Spring Boot runs an application's Flyway migrations only with its Flyway module (TaskQueue's own "
			+ "Flyway applies classpath:db/taskqueue alone). Add the dependency "
			+ "org.springframework.boot:spring-boot-starter-flyway, or set spring.flyway.enabled=false if you apply "
			+ "them some other way";

	private final ApplicationContextRunner withoutBootFlyway = new ApplicationContextRunner()
		.withClassLoader(new FilteredClassLoader("org.springframework.boot.flyway"))
		.withConfiguration(AutoConfigurations.of(TaskQueueFlywayAutoConfiguration.class));

	@Test
	void migrationsNothingAppliesAreNamedWithTheDependencyToAdd(CapturedOutput output) {
		this.withoutBootFlyway.withPropertyValues("spring.flyway.locations=classpath:db/app-migration")
			.run((context) -> assertThat(context).hasNotFailed().hasSingleBean(ApplicationMigrationsCheck.class));
		assertThat(output).contains("WARN").contains(WARNING);
	}

	@Test
	void noMigrationsNoWarning(CapturedOutput output) {
		// classpath:db/migration, Spring Boot's default, is empty in these tests; db/taskqueue is TaskQueue's own.
		this.withoutBootFlyway.run((context) -> assertThat(context).hasSingleBean(ApplicationMigrationsCheck.class));
		this.withoutBootFlyway.withPropertyValues("spring.flyway.locations=classpath:db/taskqueue-none")
			.run((context) -> assertThat(context).hasNotFailed());
		assertThat(output).doesNotContain("nothing will apply");
	}

	@Test
	void flywayDisabledSaysTheApplicationAppliesThemItself(CapturedOutput output) {
		this.withoutBootFlyway
			.withPropertyValues("spring.flyway.locations=classpath:db/app-migration", "spring.flyway.enabled=false")
			.run((context) -> assertThat(context).hasNotFailed());
		assertThat(output).doesNotContain("nothing will apply");
	}

	@Test
	void aFlywayBeanOfTheApplicationsOwnRunsThem(CapturedOutput output) {
		this.withoutBootFlyway.withPropertyValues("spring.flyway.locations=classpath:db/app-migration")
			.withBean(Flyway.class, () -> Flyway.configure().locations("classpath:db/app-migration").load())
			.run((context) -> assertThat(context).hasNotFailed());
		assertThat(output).doesNotContain("nothing will apply");
	}

	@Test
	void withBootsFlywayTheSchemaIsBaselinedForItInsteadOfChecked() {
		new ApplicationContextRunner().withConfiguration(AutoConfigurations.of(TaskQueueFlywayAutoConfiguration.class))
			.run((context) -> assertThat(context).doesNotHaveBean(ApplicationMigrationsCheck.class)
				.hasSingleBean(TaskQueueFlywayConfigurationCustomizer.class));
	}

	@Test
	void nothingWhenTaskQueueIsDisabled() {
		this.withoutBootFlyway.withPropertyValues("taskqueue.enabled=false")
			.run((context) -> assertThat(context).doesNotHaveBean(ApplicationMigrationsCheck.class));
	}

}
