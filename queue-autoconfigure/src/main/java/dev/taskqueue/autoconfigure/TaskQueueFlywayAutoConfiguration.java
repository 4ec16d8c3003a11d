package dev.taskqueue.autoconfigure;

import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingClass;
import org.springframework.context.ApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/**
 * TaskQueue next to the application's own Flyway migrations. With Spring Boot's Flyway module, a schema that holds
 * only TaskQueue's tables is baselined below the application's first migration; without it, migrations the
 * application has but nothing applies are reported at startup. Registers no {@code Flyway} bean: that would make
 * Spring Boot's Flyway back off.
 */
@AutoConfiguration
@ConditionalOnBooleanProperty(name = "taskqueue.enabled", matchIfMissing = true)
public class TaskQueueFlywayAutoConfiguration {

	private static final String FLYWAY_AUTO_CONFIGURATION =
			"org.springframework.boot.flyway.autoconfigure.FlywayAutoConfiguration";

	@Configuration(proxyBeanMethods = false)
	@ConditionalOnClass(name = FLYWAY_AUTO_CONFIGURATION)
	static class WithBootFlyway {

		@Bean
		static TaskQueueFlywayConfigurationCustomizer taskQueueFlywayConfigurationCustomizer() {
			return new TaskQueueFlywayConfigurationCustomizer();
		}

	}

	@Configuration(proxyBeanMethods = false)
	@ConditionalOnClass(name = "org.flywaydb.core.Flyway")
	@ConditionalOnMissingClass(FLYWAY_AUTO_CONFIGURATION)
	static class WithoutBootFlyway {

		@Bean
		static ApplicationMigrationsCheck taskQueueApplicationMigrationsCheck(ApplicationContext context) {
			return new ApplicationMigrationsCheck(context.getEnvironment(), context, context);
		}

	}

}
