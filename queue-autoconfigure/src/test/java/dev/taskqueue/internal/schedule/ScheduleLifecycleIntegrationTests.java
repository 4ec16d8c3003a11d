package dev.taskqueue.internal.schedule;

import java.time.Duration;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.util.List;
import java.util.Optional;
import java.util.UUID;

import dev.taskqueue.RecurringTask;
import dev.taskqueue.RecurringTask.Missed;
import dev.taskqueue.ScheduleInfo;
import dev.taskqueue.TaskContext;
import dev.taskqueue.TaskQueueOperations;
import dev.taskqueue.test.Await;
import dev.taskqueue.test.TestApplications;
import dev.taskqueue.test.TestDatabase;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.jdbc.datasource.DriverManagerDataSource;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A schedule across restarts (missed ticks run once, or are skipped), paused, resumed and triggered through
 * {@link TaskQueueOperations}, and removed from the code.
 */
class ScheduleLifecycleIntegrationTests {

	// Ticks more than the session timeout late were missed: no live instance leaves a due tick that long. 4 s, not 2:
	// a loaded machine could leave a live instance's tick 2 s late, which then counted as missed.
	static final String[] FAST_SESSIONS = { "taskqueue.worker.session-timeout=4s",
			"taskqueue.worker.heartbeat-interval=200ms" };

	String url;

	JdbcTemplate jdbc;

	ConfigurableApplicationContext instance;

	@BeforeEach
	void createDatabase() {
		this.url = TestDatabase.createDatabase();
		this.jdbc = new JdbcTemplate(new DriverManagerDataSource(this.url));
		this.jdbc.execute(RecurringTasksIntegrationTests.LOG);
	}

	@AfterEach
	void stop() {
		if (this.instance != null) {
			this.instance.close();
		}
	}

	@Test
	void ticksMissedWhileNoInstanceRanRunOnceAtStart() throws InterruptedException {
		Restart restart = restartAfterMissedTicks(EverySecond.class);
		// The catch-up: exactly one task for all the ticks missed, with the first missed tick's time.
		assertThat(ranBetween(restart.lastBeforeStop, restart.restartedAt)).containsExactly(restart.firstMissed);
		assertThat(long_("SELECT missed FROM taskqueue_schedule")).isZero();
		assertRegularTicksAfter(restart.restartedAt);
	}

	@Test
	void ticksMissedWhileNoInstanceRanAreSkippedWithMissedSkip() throws InterruptedException {
		Restart restart = restartAfterMissedTicks(EverySecondSkippingMissed.class);
		assertThat(ranBetween(restart.lastBeforeStop, restart.restartedAt)).isEmpty();
		assertThat(long_("SELECT missed FROM taskqueue_schedule")).isOne();
		assertRegularTicksAfter(restart.restartedAt);
	}

	@Test
	void pauseResumeAndTriggerThroughTheOperations() throws InterruptedException {
		this.instance = TestApplications.start(this.url, List.of(EverySecond.class), FAST_SESSIONS);
		TaskQueueOperations operations = this.instance.getBean(TaskQueueOperations.class);
		Await.until("a first tick", Duration.ofSeconds(10), () -> logged() >= 1);
		assertThat(operations.pauseSchedule("every-second")).isTrue();
		assertThat(operations.pauseSchedule("no-such-schedule")).isFalse();
		long ticksWhenPaused = long_("SELECT ticks FROM taskqueue_schedule");
		Optional<UUID> triggered = operations.triggerSchedule("every-second");
		assertThat(triggered).isPresent();
		Await.until("the triggered task ran", Duration.ofSeconds(10),
				() -> long_("SELECT count(*) FROM tick_log WHERE task_id = '" + triggered.get() + "'") == 1);
		Thread.sleep(2500); // two and a half periods: a paused schedule must not tick
		assertThat(long_("SELECT ticks FROM taskqueue_schedule")).isEqualTo(ticksWhenPaused + 1);
		ScheduleInfo paused = operations.schedules().get(0);
		assertThat(paused.paused()).isTrue();
		assertThat(paused.declared()).isTrue();
		assertThat(paused.lastTaskId()).isEqualTo(triggered.get());
		assertThat(operations.resumeSchedule("every-second")).isTrue();
		Await.until("ticks after the resumption", Duration.ofSeconds(10),
				() -> long_("SELECT ticks FROM taskqueue_schedule") >= ticksWhenPaused + 3);
		assertThat(operations.triggerSchedule("no-such-schedule")).isEmpty();
	}

	@Test
	void aScheduleRemovedFromTheCodeStopsAndStaysListed() throws InterruptedException {
		this.instance = TestApplications.start(this.url, List.of(EverySecond.class), FAST_SESSIONS);
		Await.until("a first tick", Duration.ofSeconds(10), () -> logged() >= 1);
		this.instance.close();
		this.instance = TestApplications.start(this.url, List.of(), FAST_SESSIONS);
		long ticks = long_("SELECT ticks FROM taskqueue_schedule");
		TaskQueueOperations operations = this.instance.getBean(TaskQueueOperations.class);
		Await.until("the schedule is listed as not declared", Duration.ofSeconds(10),
				() -> !operations.schedules().get(0).declared());
		Thread.sleep(1500);
		ScheduleInfo removed = operations.schedules().get(0);
		assertThat(removed.name()).isEqualTo("every-second");
		assertThat(removed.ticks()).isEqualTo(ticks);
		assertThat(removed.nextRunAt()).isBefore(Instant.now());
	}

	private Restart restartAfterMissedTicks(Class<?> configuration) throws InterruptedException {
		this.instance = TestApplications.start(this.url, List.of(configuration), FAST_SESSIONS);
		Await.until("two ticks", Duration.ofSeconds(10), () -> logged() >= 2);
		this.instance.close();
		Instant lastBeforeStop = instant("SELECT last_tick_at FROM taskqueue_schedule"); // its task may still wait
		Instant firstMissed = instant("SELECT next_run_at FROM taskqueue_schedule");
		Thread.sleep(6000); // down for six ticks, more than the session timeout
		Instant restartedAt = instant("SELECT now()");
		this.instance = TestApplications.start(this.url, List.of(configuration), FAST_SESSIONS);
		Await.until("two ticks after the restart", Duration.ofSeconds(10), () -> long_(
				"SELECT count(*) FROM tick_log WHERE scheduled_at > '" + restartedAt + "'") >= 2);
		this.instance.close();
		this.instance = null;
		return new Restart(lastBeforeStop, firstMissed, restartedAt);
	}

	private void assertRegularTicksAfter(Instant restartedAt) {
		List<Instant> after = instants("SELECT scheduled_at FROM tick_log WHERE scheduled_at > '" + restartedAt
				+ "' ORDER BY 1");
		for (int i = 1; i < after.size(); i++) {
			assertThat(after.get(i)).isEqualTo(after.get(i - 1).plusSeconds(1));
		}
	}

	private List<Instant> ranBetween(Instant from, Instant to) {
		return instants("SELECT scheduled_at FROM tick_log WHERE scheduled_at > '" + from + "' AND scheduled_at <= '"
				+ to + "' ORDER BY 1");
	}

	private long logged() {
		return long_("SELECT count(*) FROM tick_log");
	}

	private long long_(String sql) {
		Long value = this.jdbc.queryForObject(sql, Long.class);
		return (value != null) ? value : 0;
	}

	private Instant instant(String sql) {
		return this.jdbc.queryForObject(sql, OffsetDateTime.class).toInstant();
	}

	private List<Instant> instants(String sql) {
		return this.jdbc.queryForList(sql, OffsetDateTime.class).stream().map(OffsetDateTime::toInstant).toList();
	}

	record Restart(Instant lastBeforeStop, Instant firstMissed, Instant restartedAt) {
	}

	@Configuration(proxyBeanMethods = false)
	static class EverySecond {

		@Bean
		Object everySecond(JdbcTemplate jdbc) {
			return new Object() {
				@RecurringTask(name = "every-second", fixedRate = "1s")
				public void tick(TaskContext context) {
					RecurringTasksIntegrationTests.log(jdbc, "every-second", context, null);
				}
			};
		}

	}

	@Configuration(proxyBeanMethods = false)
	static class EverySecondSkippingMissed {

		@Bean
		Object everySecond(JdbcTemplate jdbc) {
			return new Object() {
				@RecurringTask(name = "every-second", fixedRate = "1s", missed = Missed.SKIP)
				public void tick(TaskContext context) {
					RecurringTasksIntegrationTests.log(jdbc, "every-second", context, null);
				}
			};
		}

	}

}
