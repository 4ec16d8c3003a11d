package dev.taskqueue.internal.schedule;

import java.util.List;

import dev.taskqueue.test.TestApplications;
import dev.taskqueue.test.TestDatabase;
import org.junit.jupiter.api.Test;

import org.springframework.context.ConfigurableApplicationContext;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The scheduler thread runs only where the worker does; the schedules' operations are everywhere. Autoconfigure
 * imports {@link RecurringTaskConfiguration.Scheduler} on its own condition: importing the other beans must not
 * bring it along.
 */
class SchedulerPlacementIntegrationTests {

	@Test
	void aWorkerRunsTheScheduler() {
		try (ConfigurableApplicationContext instance = TestApplications.start(TestDatabase.createDatabase(),
				List.of(ScheduleLifecycleIntegrationTests.EverySecond.class))) {
			assertThat(instance.getBeansOfType(RecurringScheduler.class)).hasSize(1);
			assertThat(instance.getBeansOfType(ScheduleControl.class)).hasSize(1);
		}
	}

	@Test
	void aProducerOnlyInstanceRunsNoScheduler() {
		try (ConfigurableApplicationContext instance = TestApplications.start(TestDatabase.createDatabase(),
				List.of(ScheduleLifecycleIntegrationTests.EverySecond.class), "taskqueue.worker.enabled=false")) {
			assertThat(instance.getBeansOfType(RecurringScheduler.class)).isEmpty();
			assertThat(instance.getBeansOfType(ScheduleControl.class)).hasSize(1);
		}
	}

}
