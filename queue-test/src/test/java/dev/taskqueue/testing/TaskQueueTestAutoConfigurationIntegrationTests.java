package dev.taskqueue.testing;

import javax.sql.DataSource;

import dev.taskqueue.TaskHandler;
import dev.taskqueue.test.TestApplications;
import dev.taskqueue.test.TestDatabase;
import dev.taskqueue.internal.worker.TaskRunner;
import org.junit.jupiter.api.Test;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.FilteredClassLoader;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.jdbc.datasource.DataSourceTransactionManager;
import org.springframework.transaction.support.TransactionTemplate;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalStateException;

/**
 * When {@link TaskQueueTestAutoConfiguration} configures a {@link TaskQueueTester}.
 */
class TaskQueueTestAutoConfigurationIntegrationTests {

	private static final String URL = TestDatabase.createDatabase();

	private final ApplicationContextRunner runner = new ApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(TestApplications.AUTO_CONFIGURATIONS))
		.withConfiguration(AutoConfigurations.of(TaskQueueTestAutoConfiguration.class))
		.withPropertyValues("spring.datasource.url=" + URL, "taskqueue.worker.enabled=false");

	@Test
	void configuresATesterWhereTaskQueueIsConfigured() {
		this.runner.run((context) -> assertThat(context).hasSingleBean(TaskQueueTester.class)
			.hasSingleBean(TaskRunner.class));
	}

	@Test
	void backsOffWithTaskQueue() {
		this.runner.withPropertyValues("taskqueue.enabled=false")
			.run((context) -> assertThat(context).doesNotHaveBean(TaskQueueTester.class)
				.doesNotHaveBean(TaskRunner.class));
	}

	@Test
	void runInATransactionThatCannotNestOneSaysSo() {
		this.runner.withUserConfiguration(NoNestingConfiguration.class).run((context) -> {
			DataSourceTransactionManager manager = context.getBean(DataSourceTransactionManager.class);
			assertThatIllegalStateException()
				.isThrownBy(() -> new TransactionTemplate(manager)
					.executeWithoutResult((status) -> context.getBean(TaskQueueTester.class).run("nest")))
				.withMessage("Cannot run tasks inside the caller's transaction: each handler would run in a nested "
						+ "transaction (a savepoint) of it, which " + manager.getClass().getName() + " does not "
						+ "allow. Run them outside a transaction (a test without @Transactional)");
		});
	}

	@Test
	void applicationsWithoutThisModuleGetNoTaskRunner() {
		this.runner.withClassLoader(new FilteredClassLoader(TaskQueueTester.class))
			.run((context) -> assertThat(context).hasNotFailed().doesNotHaveBean(TaskRunner.class));
	}

	@Configuration(proxyBeanMethods = false)
	static class NoNestingConfiguration {

		@Bean
		DataSourceTransactionManager transactionManager(DataSource dataSource) {
			DataSourceTransactionManager manager = new DataSourceTransactionManager(dataSource);
			manager.setNestedTransactionAllowed(false);
			return manager;
		}

		@TaskHandler(queue = "nest")
		void handle(String payload) {
		}

	}

}
