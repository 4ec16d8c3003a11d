package dev.taskqueue.test;

import java.util.ArrayList;
import java.util.List;

import dev.taskqueue.autoconfigure.RecurringTaskAutoConfiguration;
import dev.taskqueue.autoconfigure.TaskQueueAutoConfiguration;
import dev.taskqueue.autoconfigure.TaskQueueFlywayAutoConfiguration;
import dev.taskqueue.autoconfigure.ThroughputAutoConfiguration;

import org.springframework.boot.Banner;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.autoconfigure.ImportAutoConfiguration;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.boot.jackson.autoconfigure.JacksonAutoConfiguration;
import org.springframework.boot.jdbc.autoconfigure.DataSourceAutoConfiguration;
import org.springframework.boot.jdbc.autoconfigure.DataSourceTransactionManagerAutoConfiguration;
import org.springframework.boot.jdbc.autoconfigure.JdbcTemplateAutoConfiguration;
import org.springframework.boot.transaction.autoconfigure.TransactionAutoConfiguration;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Configuration;

/**
 * Starts application contexts the way an application using the starter gets them: the data source, transaction,
 * Jackson and TaskQueue auto-configurations on a real PostgreSQL database. Several contexts on one database
 * behave as several application instances.
 */
public final class TestApplications {

	/** The auto-configurations an application with the starter has. */
	public static final Class<?>[] AUTO_CONFIGURATIONS = { DataSourceAutoConfiguration.class,
			DataSourceTransactionManagerAutoConfiguration.class, TransactionAutoConfiguration.class,
			JacksonAutoConfiguration.class, JdbcTemplateAutoConfiguration.class, TaskQueueAutoConfiguration.class,
			TaskQueueFlywayAutoConfiguration.class, RecurringTaskAutoConfiguration.class,
			ThroughputAutoConfiguration.class };

	private TestApplications() {
	}

	/**
	 * Starts an application instance on the database at {@code url} with {@code sources} as its configuration
	 * and {@code properties} ({@code name=value}) on top of fast test defaults.
	 */
	public static ConfigurableApplicationContext start(String url, List<Class<?>> sources, String... properties) {
		List<Class<?>> all = new ArrayList<>(sources);
		all.add(0, Base.class);
		return new SpringApplicationBuilder(all.toArray(Class<?>[]::new)).web(WebApplicationType.NONE)
			.bannerMode(Banner.Mode.OFF)
			.logStartupInfo(false)
			.properties("spring.datasource.url=" + url, "taskqueue.worker.poll-interval=50ms",
					"taskqueue.retry.backoff.initial-delay=10ms", "taskqueue.retry.backoff.max-delay=50ms",
					"taskqueue.worker.shutdown-timeout=10s")
			.properties(properties)
			.run();
	}

	@Configuration(proxyBeanMethods = false)
	@ImportAutoConfiguration({ DataSourceAutoConfiguration.class, DataSourceTransactionManagerAutoConfiguration.class,
			TransactionAutoConfiguration.class, JacksonAutoConfiguration.class, JdbcTemplateAutoConfiguration.class,
			TaskQueueAutoConfiguration.class, TaskQueueFlywayAutoConfiguration.class,
			RecurringTaskAutoConfiguration.class })
	static class Base {

	}

}
