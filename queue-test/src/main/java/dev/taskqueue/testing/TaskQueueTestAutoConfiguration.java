package dev.taskqueue.testing;

import javax.sql.DataSource;

import dev.taskqueue.autoconfigure.TaskQueueAutoConfiguration;
import dev.taskqueue.internal.jdbc.TaskTables;
import dev.taskqueue.internal.worker.TaskRunner;
import dev.taskqueue.internal.worker.TaskWorker;
import tools.jackson.databind.json.JsonMapper;

import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.context.annotation.Bean;

/**
 * Configures a {@link TaskQueueTester} in every application context where TaskQueue is configured, which, with this
 * module a test dependency, means in tests only.
 */
@AutoConfiguration(after = TaskQueueAutoConfiguration.class)
@ConditionalOnBean(TaskRunner.class)
public class TaskQueueTestAutoConfiguration {

	@Bean
	@ConditionalOnMissingBean
	TaskQueueTester taskQueueTester(TaskRunner runner, DataSource dataSource, TaskTables tables,
			ObjectProvider<JsonMapper> jsonMapper, ObjectProvider<TaskWorker> worker) {
		JsonMapper mapper = jsonMapper.getIfAvailable(JsonMapper::new);
		return new TaskQueueTester(runner, new EnqueuedTaskRepository(dataSource, tables, mapper), mapper,
				() -> worker.stream().anyMatch(TaskWorker::isRunning));
	}

}
