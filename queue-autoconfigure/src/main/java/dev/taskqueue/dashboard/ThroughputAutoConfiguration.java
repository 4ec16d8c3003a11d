package dev.taskqueue.dashboard;

import javax.sql.DataSource;

import dev.taskqueue.autoconfigure.TaskQueueAutoConfiguration;
import dev.taskqueue.autoconfigure.TaskQueueProperties;
import dev.taskqueue.jdbc.QueueMinuteRepository;
import dev.taskqueue.jdbc.TaskTables;
import dev.taskqueue.support.DatabaseOutage;
import dev.taskqueue.worker.TaskWorker;

import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.boot.sql.init.dependency.DependsOnDatabaseInitialization;
import org.springframework.context.annotation.Bean;

/**
 * Records, in every instance that runs a worker, the completed and failed attempts per queue and minute that the
 * dashboard's charts show, whether or not this instance serves the dashboard.
 */
@AutoConfiguration(after = TaskQueueAutoConfiguration.class)
@ConditionalOnBean({ TaskWorker.class, TaskTables.class })
@ConditionalOnBooleanProperty(name = "taskqueue.dashboard.record-throughput", matchIfMissing = true)
public class ThroughputAutoConfiguration {

	@Bean
	@DependsOnDatabaseInitialization
	ThroughputRecorder taskQueueThroughputRecorder(DataSource dataSource, TaskTables tables,
			TaskQueueProperties properties, ObjectProvider<DatabaseOutage> outage) {
		ThroughputRecorder recorder = new ThroughputRecorder(new QueueMinuteRepository(dataSource, tables),
				properties.getWorker().getHeartbeatInterval());
		recorder.reportOutagesTo(outage.getIfAvailable(DatabaseOutage::new));
		return recorder;
	}

}
