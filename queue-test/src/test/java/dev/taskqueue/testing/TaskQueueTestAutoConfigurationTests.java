package dev.taskqueue.testing;

import dev.taskqueue.test.TestApplications;
import dev.taskqueue.test.TestDatabase;
import dev.taskqueue.worker.TaskRunner;
import org.junit.jupiter.api.Test;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.FilteredClassLoader;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * When {@link TaskQueueTestAutoConfiguration} configures a {@link TaskQueueTester}.
 */
class TaskQueueTestAutoConfigurationTests {

	private final ApplicationContextRunner runner = new ApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(TestApplications.AUTO_CONFIGURATIONS))
		.withConfiguration(AutoConfigurations.of(TaskQueueTestAutoConfiguration.class))
		.withPropertyValues("spring.datasource.url=" + TestDatabase.createDatabase(), "taskqueue.worker.enabled=false");

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
	void applicationsWithoutThisModuleGetNoTaskRunner() {
		this.runner.withClassLoader(new FilteredClassLoader(TaskQueueTester.class))
			.run((context) -> assertThat(context).hasNotFailed().doesNotHaveBean(TaskRunner.class));
	}

}
