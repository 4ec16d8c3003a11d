package dev.taskqueue.autoconfigure;

import dev.taskqueue.internal.dashboard.DashboardConfiguration;
import dev.taskqueue.internal.jdbc.TaskTables;
import dev.taskqueue.internal.worker.TaskWorker;

import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Import;

/**
 * Records, in every instance that runs a worker, the completed and failed attempts per queue and minute that the
 * dashboard's charts show, whether or not this instance serves the dashboard.
 */
@AutoConfiguration(after = TaskQueueAutoConfiguration.class)
@ConditionalOnBean({ TaskWorker.class, TaskTables.class })
@ConditionalOnBooleanProperty(name = "taskqueue.dashboard.record-throughput", matchIfMissing = true)
@Import(DashboardConfiguration.Throughput.class)
public class ThroughputAutoConfiguration {

	/** The counts are written once a heartbeat. */
	@Bean
	DashboardConfiguration.ThroughputSettings taskQueueThroughputSettings(TaskQueueProperties properties) {
		return new DashboardConfiguration.ThroughputSettings(properties.getWorker().getHeartbeatInterval());
	}

}
