package dev.taskqueue.internal.schedule;

import java.time.Duration;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import dev.taskqueue.RecurringTask;
import dev.taskqueue.RecurringTask.Overlap;
import dev.taskqueue.TaskContext;
import dev.taskqueue.TaskHandler;
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
 * Recurring schedules on a real PostgreSQL, several application instances on one database: exactly one task per
 * tick, the overlap rule, a fixed delay, and a schedule declared in configuration.
 */
class RecurringTasksIntegrationTests {

	static final String LOG = "CREATE TABLE tick_log (schedule text NOT NULL, scheduled_at timestamptz, "
			+ "task_id uuid NOT NULL, payload text, finished_at timestamptz NOT NULL DEFAULT clock_timestamp())";

	static volatile CountDownLatch release = new CountDownLatch(0);

	String url;

	JdbcTemplate jdbc;

	final List<ConfigurableApplicationContext> instances = new ArrayList<>();

	@BeforeEach
	void createDatabase() {
		this.url = TestDatabase.createDatabase();
		this.jdbc = new JdbcTemplate(new DriverManagerDataSource(this.url));
		this.jdbc.execute(LOG);
	}

	@AfterEach
	void stopInstances() {
		release.countDown();
		this.instances.forEach(ConfigurableApplicationContext::close);
	}

	@Test
	void threeInstancesMakeExactlyOneTaskPerTick() {
		// 50 ms rather than the 1 s, so that 200 ticks take 10 s rather than 200 s; nothing in the tick
		// depends on the period but the sleep between two.
		for (int i = 0; i < 3; i++) {
			this.instances.add(start(FiftyMillis.class));
		}
		long beforeAllRan = ticks("fifty");
		Await.until("200 ticks with all three instances up", Duration.ofSeconds(60),
				() -> ticks("fifty") >= beforeAllRan + 200);
		this.instances.forEach(ConfigurableApplicationContext::close);
		long ticks = ticks("fifty");
		List<Instant> run = instants("SELECT scheduled_at FROM tick_log WHERE schedule = 'fifty'");
		List<Instant> waiting = instants("SELECT CAST(headers->>'taskqueue-scheduled-at' AS timestamptz) "
				+ "FROM taskqueue_task WHERE queue = 'fifty'");
		List<Instant> all = new ArrayList<>(run);
		all.addAll(waiting);
		all.sort(null);
		assertThat(ticks).isGreaterThanOrEqualTo(200);
		assertThat(all).hasSize((int) ticks).doesNotHaveDuplicates();
		for (int i = 0; i < all.size(); i++) {
			assertThat(all.get(i)).isEqualTo(all.get(0).plusMillis(50L * i)); // no tick skipped, none doubled
		}
		assertThat(this.jdbc.queryForObject("SELECT skipped + missed FROM taskqueue_schedule WHERE name = 'fifty'",
				Long.class)).isZero();
	}

	@Test
	void aTickIsSkippedAndCountedWhileThePreviousTickStillRuns() {
		release = new CountDownLatch(1);
		this.instances.add(start(Blocking.class));
		this.instances.add(start(Blocking.class));
		Await.until("5 skipped ticks", Duration.ofSeconds(30),
				() -> longOf("SELECT skipped FROM taskqueue_schedule WHERE name = 'blocking'") >= 5);
		assertThat(longOf("SELECT count(*) FROM taskqueue_task WHERE queue = 'blocking'")).isOne();
		release.countDown();
		Await.until("a second task ran", Duration.ofSeconds(30),
				() -> longOf("SELECT count(*) FROM tick_log WHERE schedule = 'blocking'") >= 2);
		this.instances.forEach(ConfigurableApplicationContext::close);
		Map<String, Object> row = this.jdbc.queryForMap(
				"SELECT ticks, skipped, last_tick_at FROM taskqueue_schedule WHERE name = 'blocking'");
		long ran = longOf("SELECT count(*) FROM tick_log WHERE schedule = 'blocking'");
		long left = longOf("SELECT count(*) FROM taskqueue_task WHERE queue = 'blocking'");
		assertThat((Long) row.get("ticks")).isEqualTo(ran + left);
		Instant first = instants("SELECT min(scheduled_at) FROM tick_log WHERE schedule = 'blocking'").get(0);
		Instant last = instant(row.get("last_tick_at"));
		// Every tick of the grid from the first to the last was decided once: a task or a counted skip.
		long due = Duration.between(first, last).toMillis() / 100 + 1;
		assertThat((Long) row.get("ticks") + (Long) row.get("skipped")).isEqualTo(due);
	}

	@Test
	void aFixedDelayCountsFromTheEndOfThePreviousTask() {
		this.instances.add(start(Delayed.class));
		this.instances.add(start(Delayed.class));
		Await.until("4 ticks ran", Duration.ofSeconds(30),
				() -> longOf("SELECT count(*) FROM tick_log WHERE schedule = 'delayed'") >= 4);
		this.instances.forEach(ConfigurableApplicationContext::close);
		List<Map<String, Object>> rows = this.jdbc
			.queryForList("SELECT scheduled_at, finished_at FROM tick_log WHERE schedule = 'delayed' ORDER BY 1");
		for (int i = 1; i < rows.size(); i++) {
			Instant previousEnd = instant(rows.get(i - 1).get("finished_at"));
			Instant next = instant(rows.get(i).get("scheduled_at"));
			assertThat(next).isAfterOrEqualTo(previousEnd.plusMillis(300));
		}
	}

	@Test
	void aScheduleInConfigurationEnqueuesItsPayloadForATaskHandler() {
		this.instances.add(start(Reports.class, "taskqueue.schedules.nightly-report.fixed-rate=100ms",
				"taskqueue.schedules.nightly-report.queue=reports",
				"taskqueue.schedules.nightly-report.payload={\"kind\": \"daily\"}"));
		Await.until("3 reports", Duration.ofSeconds(30),
				() -> longOf("SELECT count(*) FROM tick_log WHERE schedule = 'reports'") >= 3);
		assertThat(this.jdbc.queryForList("SELECT DISTINCT payload FROM tick_log", String.class))
			.containsExactly("daily");
		assertThat(longOf("SELECT count(*) FROM tick_log WHERE scheduled_at IS NULL")).isZero();
	}

	ConfigurableApplicationContext start(Class<?> configuration, String... properties) {
		return TestApplications.start(this.url, List.of(configuration), properties);
	}

	long ticks(String name) {
		return longOf("SELECT coalesce(max(ticks), 0) FROM taskqueue_schedule WHERE name = '" + name + "'");
	}

	long longOf(String sql) {
		Long value = this.jdbc.queryForObject(sql, Long.class);
		return (value != null) ? value : 0;
	}

	static Instant instant(Object timestamp) {
		return ((java.sql.Timestamp) timestamp).toInstant();
	}

	List<Instant> instants(String sql) {
		return this.jdbc.queryForList(sql, OffsetDateTime.class).stream().map(OffsetDateTime::toInstant).toList();
	}

	static void log(JdbcTemplate jdbc, String schedule, TaskContext context, String payload) {
		jdbc.update("INSERT INTO tick_log (schedule, scheduled_at, task_id, payload) VALUES (?, ?, ?, ?)", schedule,
				(context.scheduledAt() != null) ? OffsetDateTime.ofInstant(context.scheduledAt(), java.time.ZoneOffset.UTC)
						: null,
				context.id(), payload);
	}

	@Configuration(proxyBeanMethods = false)
	static class FiftyMillis {

		@Bean
		Object fiftyMillis(JdbcTemplate jdbc) {
			return new Object() {
				@RecurringTask(name = "fifty", fixedRate = "50ms", overlap = Overlap.ALLOW)
				public void tick(TaskContext context) {
					log(jdbc, "fifty", context, null);
				}
			};
		}

	}

	@Configuration(proxyBeanMethods = false)
	static class Blocking {

		@Bean
		Object blocking(JdbcTemplate jdbc) {
			return new Object() {
				@RecurringTask(name = "blocking", fixedRate = "100ms")
				public void tick(TaskContext context) throws InterruptedException {
					release.await(30, TimeUnit.SECONDS);
					log(jdbc, "blocking", context, null);
				}
			};
		}

	}

	@Configuration(proxyBeanMethods = false)
	static class Delayed {

		@Bean
		Object delayed(JdbcTemplate jdbc) {
			return new Object() {
				@RecurringTask(name = "delayed", fixedDelay = "300ms")
				public void tick(TaskContext context) throws InterruptedException {
					Thread.sleep(100);
					log(jdbc, "delayed", context, null);
				}
			};
		}

	}

	record Report(String kind) {
	}

	@Configuration(proxyBeanMethods = false)
	static class Reports {

		@Bean
		Object reports(JdbcTemplate jdbc) {
			return new Object() {
				@TaskHandler(queue = "reports")
				public void handle(Report report, TaskContext context) {
					log(jdbc, "reports", context, report.kind());
				}
			};
		}

	}

}
