package dev.taskqueue.autoconfigure;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;

import dev.taskqueue.EnqueueResult;
import dev.taskqueue.TaskContext;
import dev.taskqueue.TaskHandler;
import dev.taskqueue.TaskQueue;
import dev.taskqueue.TaskQueueOperations;
import dev.taskqueue.TaskRequest;
import dev.taskqueue.test.Await;
import dev.taskqueue.test.TestApplications;
import dev.taskqueue.test.TestDatabase;
import org.flywaydb.core.Flyway;
import org.junit.jupiter.api.Test;

import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.jdbc.datasource.DriverManagerDataSource;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A database on an older schema version, with tasks and dead letters in it, moves to the latest on the next start
 * and loses nothing: old tasks run with empty headers, no unique key and no ordering key, in bucket 0, old dead
 * letters can be retried.
 */
class SchemaUpgradeIntegrationTests {

	@Test
	void tasksWrittenBeforeVersion2RunAndTheirDeadLettersCanBeRetried() {
		String url = TestDatabase.createDatabase();
		DriverManagerDataSource dataSource = migratedTo(url, "1");
		JdbcTemplate jdbc = new JdbcTemplate(dataSource);
		UUID waiting = UUID.randomUUID();
		UUID dead = UUID.randomUUID();
		jdbc.update("INSERT INTO taskqueue_task (id, queue, payload) VALUES (?, 'upgrade', '\"old task\"')", waiting);
		jdbc.update("INSERT INTO taskqueue_dead_task (id, queue, payload, priority, attempts, enqueued_at, error) "
				+ "VALUES (?, 'upgrade', '\"old dead task\"', 0, 5, now(), 'failed in version 1')", dead);
		try (ConfigurableApplicationContext context = TestApplications.start(url, List.of(Handlers.class))) {
			Handlers handlers = context.getBean(Handlers.class);
			Await.until("the old task runs", Duration.ofSeconds(20), () -> handlers.handled.containsKey(waiting));
			assertThat(jdbc.queryForObject("SELECT headers::text FROM taskqueue_dead_task WHERE id = ?", String.class,
					dead)).isEqualTo("{}");
			assertThat(context.getBean(TaskQueueOperations.class).retryDead(dead)).isTrue();
			Await.until("the old dead task runs", Duration.ofSeconds(20), () -> handlers.handled.containsKey(dead));
			assertThat(handlers.handled).containsEntry(waiting, "old task").containsEntry(dead, "old dead task");
		}
	}

	@Test
	void tasksWrittenBeforeVersion3RunAndKeyedTasksCanBeEnqueuedNextToThem() {
		String url = TestDatabase.createDatabase();
		DriverManagerDataSource dataSource = migratedTo(url, "2");
		JdbcTemplate jdbc = new JdbcTemplate(dataSource);
		UUID waiting = UUID.randomUUID();
		UUID scheduled = UUID.randomUUID();
		jdbc.update("INSERT INTO taskqueue_task (id, queue, payload) VALUES (?, 'upgrade', '\"old task\"')", waiting);
		jdbc.update("INSERT INTO taskqueue_task (id, queue, payload, run_at) "
				+ "VALUES (?, 'upgrade', '\"old scheduled task\"', now() + interval '1 hour')", scheduled);
		try (ConfigurableApplicationContext context = TestApplications.start(url, List.of(Handlers.class))) {
			Handlers handlers = context.getBean(Handlers.class);
			Await.until("the old task runs", Duration.ofSeconds(20), () -> handlers.handled.containsKey(waiting));
			assertThat(jdbc.queryForObject("SELECT unique_key IS NULL AND NOT unique_running FROM taskqueue_task "
					+ "WHERE id = ?", Boolean.class, scheduled)).isTrue();
			TaskQueue queue = context.getBean(TaskQueue.class);
			TaskRequest keyed = TaskRequest.of("upgrade", "new task").withDelay(Duration.ofHours(1)).withUniqueKey("k");
			EnqueueResult first = queue.offer(keyed);
			assertThat(queue.offer(keyed)).isEqualTo(new EnqueueResult(first.id(), true));
			assertThat(jdbc.queryForList("SELECT id FROM taskqueue_task WHERE run_at > now()", UUID.class))
				.containsExactlyInAnyOrder(scheduled, first.id());
		}
	}

	@Test
	void tasksWrittenBeforeVersion4RunAndOrderedTasksCanBeEnqueuedNextToThem() {
		String url = TestDatabase.createDatabase();
		DriverManagerDataSource dataSource = migratedTo(url, "3");
		JdbcTemplate jdbc = new JdbcTemplate(dataSource);
		UUID waiting = UUID.randomUUID();
		UUID keyed = UUID.randomUUID();
		jdbc.update("INSERT INTO taskqueue_task (id, queue, payload) VALUES (?, 'upgrade', '\"old task\"')", waiting);
		jdbc.update("INSERT INTO taskqueue_task (id, queue, payload, unique_key, unique_running) "
				+ "VALUES (?, 'upgrade', '\"old unique task\"', 'u', true)", keyed);
		try (ConfigurableApplicationContext context = TestApplications.start(url, List.of(Handlers.class))) {
			Handlers handlers = context.getBean(Handlers.class);
			Await.until("the old tasks run", Duration.ofSeconds(20),
					() -> handlers.handled.containsKey(waiting) && handlers.handled.containsKey(keyed));
			TaskQueue queue = context.getBean(TaskQueue.class);
			UUID first = queue.enqueue(TaskRequest.of("upgrade", "first").withOrderingKey("o"));
			UUID second = queue.enqueue(TaskRequest.of("upgrade", "second").withOrderingKey("o"));
			Await.until("the ordered tasks run", Duration.ofSeconds(20),
					() -> handlers.handled.containsKey(first) && handlers.handled.containsKey(second));
			assertThat(handlers.order).containsSubsequence(first, second);
		}
	}

	@Test
	void tasksAndDeadLettersWrittenBeforeVersion7RunOutsideAnyBatchNextToANewBatch() {
		String url = TestDatabase.createDatabase();
		DriverManagerDataSource dataSource = migratedTo(url, "6");
		JdbcTemplate jdbc = new JdbcTemplate(dataSource);
		UUID waiting = UUID.randomUUID();
		UUID dead = UUID.randomUUID();
		jdbc.update("INSERT INTO taskqueue_task (id, queue, payload) VALUES (?, 'upgrade', '\"old task\"')", waiting);
		jdbc.update("INSERT INTO taskqueue_dead_task (id, queue, payload, priority, attempts, enqueued_at, error) "
				+ "VALUES (?, 'upgrade', '\"old dead task\"', 0, 5, now(), 'failed in version 3')", dead);
		try (ConfigurableApplicationContext context = TestApplications.start(url, List.of(Handlers.class))) {
			Handlers handlers = context.getBean(Handlers.class);
			Await.until("the old task runs", Duration.ofSeconds(20), () -> handlers.handled.containsKey(waiting));
			assertThat(context.getBean(TaskQueueOperations.class).retryDead(dead)).isTrue();
			Await.until("the old dead task runs", Duration.ofSeconds(20), () -> handlers.handled.containsKey(dead));
			UUID then = context.getBean(TaskQueue.class)
				.enqueueBatch(List.of(TaskRequest.of("upgrade", "in a batch")), TaskRequest.of("upgrade", "then"))
				.thenTaskId();
			Await.until("the batch's then task runs", Duration.ofSeconds(20), () -> handlers.handled.containsKey(then));
		}
	}

	@Test
	void tasksWrittenBeforeVersion9RunInBucketZeroNextToTasksOfABucketedQueue() {
		String url = TestDatabase.createDatabase();
		DriverManagerDataSource dataSource = migratedTo(url, "8");
		JdbcTemplate jdbc = new JdbcTemplate(dataSource);
		jdbc.update("INSERT INTO taskqueue_task (id, queue, payload, priority) SELECT gen_random_uuid(), 'upgrade', "
				+ "'\"old task\"', i % 3 FROM generate_series(1, 300) i");
		UUID scheduled = UUID.randomUUID();
		jdbc.update("INSERT INTO taskqueue_task (id, queue, payload, run_at) "
				+ "VALUES (?, 'upgrade', '\"old scheduled task\"', now() + interval '1 hour')", scheduled);
		try (ConfigurableApplicationContext context = TestApplications.start(url, List.of(Handlers.class),
				"taskqueue.queues.upgrade.buckets=8")) {
			Handlers handlers = context.getBean(Handlers.class);
			List<UUID> fresh = new java.util.ArrayList<>();
			for (int i = 0; i < 40; i++) {
				fresh.add(context.getBean(TaskQueue.class).enqueue(TaskRequest.of("upgrade", "new task")));
			}
			Await.until("the old and the new tasks run", Duration.ofSeconds(30),
					() -> handlers.handled.size() == 340);
			assertThat(handlers.handled.keySet()).containsAll(fresh);
			assertThat(jdbc.queryForObject("SELECT bucket FROM taskqueue_task WHERE id = ?", Integer.class, scheduled))
				.isZero();
			assertThat(jdbc.queryForList("SELECT indexname FROM pg_indexes WHERE tablename = 'taskqueue_task' "
					+ "AND indexname LIKE 'taskqueue_task_ready%'", String.class))
				.containsExactly("taskqueue_task_ready_bucket_idx");
		}
	}

	@Test
	void version9SkipsTheColumnAndTheIndexCreatedBeforehandWithoutLockingTheTable() {
		String url = TestDatabase.createDatabase();
		DriverManagerDataSource dataSource = migratedTo(url, "8");
		JdbcTemplate jdbc = new JdbcTemplate(dataSource);
		UUID waiting = UUID.randomUUID();
		jdbc.update("INSERT INTO taskqueue_task (id, queue, payload) VALUES (?, 'upgrade', '\"old task\"')", waiting);
		jdbc.execute("ALTER TABLE taskqueue_task ADD COLUMN bucket smallint NOT NULL DEFAULT 0");
		jdbc.execute("CREATE INDEX CONCURRENTLY taskqueue_task_ready_bucket_idx ON taskqueue_task "
				+ "(queue, bucket, priority DESC, run_at, id) WHERE claimed_by IS NULL");
		try (ConfigurableApplicationContext context = TestApplications.start(url, List.of(Handlers.class))) {
			Handlers handlers = context.getBean(Handlers.class);
			Await.until("the old task runs", Duration.ofSeconds(20), () -> handlers.handled.containsKey(waiting));
			assertThat(jdbc.queryForList("SELECT indexname FROM pg_indexes WHERE tablename = 'taskqueue_task' "
					+ "AND indexname LIKE 'taskqueue_task_ready%'", String.class))
				.containsExactly("taskqueue_task_ready_bucket_idx");
		}
	}

	/**
	 * An operator who tuned the task table's autovacuum before upgrading keeps those settings: version 12 adds only
	 * the parameters the table does not have yet.
	 */
	@Test
	void version12KeepsTheAutovacuumSettingsAnOperatorMadeBefore() {
		String url = TestDatabase.createDatabase();
		DriverManagerDataSource dataSource = migratedTo(url, "11");
		JdbcTemplate jdbc = new JdbcTemplate(dataSource);
		jdbc.execute("ALTER TABLE taskqueue_task SET (autovacuum_vacuum_threshold = 50000, autovacuum_enabled = false)");
		migratedTo(url, "12");
		assertThat(jdbc.queryForObject("SELECT array_to_string(reloptions, ',') FROM pg_class "
				+ "WHERE oid = 'taskqueue_task'::regclass", String.class))
			.isEqualTo("fillfactor=80,autovacuum_vacuum_threshold=50000,autovacuum_enabled=false,"
					+ "autovacuum_vacuum_scale_factor=0,autovacuum_vacuum_cost_limit=2000,autovacuum_vacuum_cost_delay=2");
	}

	/** The database at {@code url}, with TaskQueue's schema migrated up to version {@code target}. */
	private static DriverManagerDataSource migratedTo(String url, String target) {
		DriverManagerDataSource dataSource = new DriverManagerDataSource(url);
		Flyway.configure()
			.dataSource(dataSource)
			.locations(TaskQueueSchemaMigrator.LOCATION)
			.table(TaskQueueSchemaMigrator.HISTORY_TABLE)
			.target(target)
			.load()
			.migrate();
		return dataSource;
	}

	static class Handlers {

		final Map<UUID, String> handled = new ConcurrentHashMap<>();

		final List<UUID> order = new CopyOnWriteArrayList<>();

		@TaskHandler(queue = "upgrade")
		void handle(String payload, TaskContext context) {
			this.order.add(context.id());
			this.handled.put(context.id(), payload);
		}

	}

}
