package dev.taskqueue.internal.worker;

import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.stream.IntStream;

import javax.sql.DataSource;

import dev.taskqueue.autoconfigure.TaskQueueSchemaMigrator;
import dev.taskqueue.internal.jdbc.DeadTaskRepository;
import dev.taskqueue.internal.jdbc.EnqueueRepository;
import dev.taskqueue.internal.jdbc.EnqueueRepository.NewTask;
import dev.taskqueue.internal.jdbc.GenericPlans;
import dev.taskqueue.internal.jdbc.HotStatements;
import dev.taskqueue.internal.jdbc.QueueLimits;
import dev.taskqueue.internal.jdbc.QueueLimits.RateWindow;
import dev.taskqueue.internal.jdbc.TaskBuckets;
import dev.taskqueue.internal.jdbc.TaskTables;
import dev.taskqueue.internal.jdbc.TopicRepository;
import dev.taskqueue.internal.producer.DefaultTaskQueue;
import dev.taskqueue.test.TestDatabase;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.jdbc.datasource.DataSourceTransactionManager;
import org.springframework.jdbc.datasource.DriverManagerDataSource;
import org.springframework.transaction.support.TransactionTemplate;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Hash-sharded claims at the statement level: where inserts put tasks, what a claim of one bucket takes and in
 * which order, that no bucket count strands a task, and that the claim reads the ready index without a sort.
 */
class BucketClaimsIntegrationTests {

	private static final Instant PAST = Instant.parse("2020-01-01T00:00:00Z");

	private static final TaskBuckets SIXTEEN = new TaskBuckets(Map.of("q", 16));

	private static DataSource dataSource;

	private static TaskRepository tasks;

	private static EnqueueRepository enqueue;

	private static JdbcTemplate jdbc;

	private static TransactionTemplate transaction;

	private final UUID session = UUID.randomUUID();

	@BeforeAll
	static void migrate() {
		dataSource = new DriverManagerDataSource(TestDatabase.createDatabase());
		TaskTables tables = TaskTables.inSchema(null);
		new TaskQueueSchemaMigrator(dataSource, tables).afterPropertiesSet();
		tasks = new TaskRepository(dataSource, tables);
		enqueue = new EnqueueRepository(dataSource, tables, null, SIXTEEN);
		jdbc = new JdbcTemplate(dataSource);
		transaction = new TransactionTemplate(new DataSourceTransactionManager(dataSource));
	}

	@BeforeEach
	void emptyTables() {
		jdbc.execute("TRUNCATE taskqueue_task, taskqueue_session, taskqueue_dead_task, taskqueue_topic_subscription");
		new SessionRepository(dataSource, TaskTables.inSchema(null)).register(this.session, "test");
	}

	@Test
	void everyInsertPathPutsATaskInTheBucketOfItsIdsHash() {
		List<NewTask> many = IntStream.range(0, 1600).mapToObj((i) -> task("q", 0)).toList();
		enqueue.insertAll(many);
		NewTask one = task("q", 0);
		enqueue.insert(one);
		NewTask keyed = new NewTask(DefaultTaskQueue.nextId(), "q", "{}", 0, null, null, "{}", "k", false);
		enqueue.offer(keyed);
		NewTask replacing = new NewTask(DefaultTaskQueue.nextId(), "q", "{}", 0, null, null, "{}", "r", true);
		enqueue.offer(replacing);
		NewTask ordered = new NewTask(DefaultTaskQueue.nextId(), "q", "{}", 0, null, null, "{}", null, false, "o");
		enqueue.offer(ordered);
		NewTask other = task("one-bucket", 0);
		enqueue.insert(other);
		Map<UUID, Integer> buckets = new HashMap<>();
		jdbc.query("SELECT id, bucket FROM taskqueue_task", (rs) -> {
			buckets.put(rs.getObject(1, UUID.class), rs.getInt(2));
		});
		assertThat(buckets).hasSize(1605);
		for (NewTask task : List.of(one, keyed, replacing, ordered)) {
			assertThat(buckets.get(task.id())).isEqualTo(TaskBuckets.bucket(task.id(), 16));
		}
		many.forEach((task) -> assertThat(buckets.get(task.id())).isEqualTo(TaskBuckets.bucket(task.id(), 16)));
		assertThat(buckets.get(other.id())).as("a queue of one bucket").isZero();
		List<Integer> perBucket = jdbc.queryForList(
				"SELECT count(*)::int FROM taskqueue_task WHERE queue = 'q' GROUP BY bucket ORDER BY bucket", Integer.class);
		assertThat(perBucket).as("1,604 tasks spread over all 16 buckets").hasSize(16)
			.allSatisfy((count) -> assertThat(count).isBetween(50, 150));
	}

	@Test
	void theStatementsThatComputeTheBucketInSqlAgreeWithJava() {
		UUID dead = DefaultTaskQueue.nextId();
		jdbc.update("INSERT INTO taskqueue_dead_task (id, queue, payload, priority, attempts, enqueued_at, error) "
				+ "VALUES (?, 'q', '{}', 0, 1, now(), 'failed')", dead);
		DeadTaskRepository deadTasks = new DeadTaskRepository(dataSource, TaskTables.inSchema(null), SIXTEEN);
		assertThat(deadTasks.retry(dead)).isTrue();
		assertThat(bucketOf(dead)).isEqualTo(TaskBuckets.bucket(dead, 16));
		TopicRepository topics = new TopicRepository(dataSource, TaskTables.inSchema(null), null,
				new TaskBuckets(Map.of("q", 16, "r", 7)));
		topics.declare(List.of("q", "r", "s"), Map.of("q", java.util.Set.of("t"), "r", java.util.Set.of("t"), "s",
				java.util.Set.of("t")));
		for (int i = 0; i < 20; i++) {
			Map<String, UUID> published = topics.publish("t", task("ignored", 0));
			assertThat(bucketOf(published.get("q"))).isEqualTo(TaskBuckets.bucket(published.get("q"), 16));
			assertThat(bucketOf(published.get("r"))).isEqualTo(TaskBuckets.bucket(published.get("r"), 7));
			assertThat(bucketOf(published.get("s"))).as("not configured here: one bucket").isZero();
		}
	}

	@Test
	void aClaimTakesItsOwnBucketInPriorityOrderThenWrapsAroundTheOthers() {
		UUID ownLow = insert(5, -1);
		UUID ownHigh = insert(5, 3);
		UUID ownMiddleOld = insert(5, 1, PAST);
		UUID ownMiddleNew = insert(5, 1, PAST.plusSeconds(1));
		UUID later = insert(9, 10);
		UUID laterStill = insert(200, 10);
		UUID earlier = insert(2, 10);
		// One task per claim, so each claim shows which task comes first.
		List<UUID> order = new ArrayList<>();
		for (int i = 0; i < 8; i++) {
			order.addAll(ids(claim(5, 1)));
		}
		assertThat(order).as("bucket 5 by priority and due time, then the later buckets, then the earlier ones")
			.containsExactly(ownHigh, ownMiddleOld, ownMiddleNew, ownLow, later, laterStill, earlier);
	}

	@Test
	void aShortBucketFillsTheClaimFromTheRest() {
		UUID own = insert(3, 0);
		UUID next = insert(4, 0);
		UUID first = insert(0, 0);
		assertThat(ids(claim(3, 10))).containsExactlyInAnyOrder(own, next, first);
		assertThat(claim(3, 10)).isEmpty();
	}

	@Test
	void noBucketCountStrandsATask() {
		// Tasks a producer with 64 buckets enqueued, and some from before V9 (bucket 0), claimed by workers of 1 and of
		// 16 buckets, and by the limited and the positioned claims: every one is claimed once.
		List<UUID> all = new ArrayList<>();
		for (int i = 0; i < 640; i++) {
			UUID id = DefaultTaskQueue.nextId();
			jdbc.update("INSERT INTO taskqueue_task (id, queue, payload, bucket) VALUES (?, 'q', '{}', ?)", id,
					TaskBuckets.bucket(id, 64));
			all.add(id);
		}
		assertThat(jdbc.queryForObject("SELECT count(DISTINCT bucket) FROM taskqueue_task", Integer.class))
			.isEqualTo(64);
		List<UUID> claimed = new ArrayList<>();
		for (int round = 0; round < 200 && claimed.size() < all.size(); round++) {
			int bucket = (round % 3 == 0) ? 0 : round % 16; // a worker of one bucket, and one of 16
			claimed.addAll(ids(claim(bucket, 7)));
			claimed.addAll(ids(tasks.limitedClaims()
				.claim("q", bucket, this.session, 5, new QueueLimits(1000, 0, null, RateWindow.SLIDING))
				.claimed()));
		}
		assertThat(claimed).hasSize(640).doesNotHaveDuplicates().containsExactlyInAnyOrderElementsOf(all);
	}

	@Test
	void aClaimFromAPositionStaysInItsBucket() {
		UUID before = insert(1, 0, PAST);
		UUID after = insert(1, 0, PAST.plusSeconds(2));
		UUID otherBucket = insert(2, 0, PAST.plusSeconds(3));
		List<ClaimedTask> claimed = transaction.execute((status) -> tasks.claimAfter("q", 1, this.session, 10, 0,
				PAST.plusSeconds(1), new UUID(0, 0)));
		assertThat(ids(claimed)).containsExactly(after);
		assertThat(claimed.get(0).bucket()).isEqualTo(1);
		assertThat(ids(claim(1, 10))).as("the head claim takes the rest").containsExactlyInAnyOrder(before, otherBucket);
	}

	@Test
	void cockroachDbClaimsReadUnlockedAndTakeOnlyRowsStillUnclaimed() {
		HotStatements statements = new HotStatements(dataSource, new JdbcTemplate().getExceptionTranslator());
		TaskClaims skipping = KeyStatements.handOffClaims(statements, TaskTables.inSchema(null), false,
				StorageDriver.POSTGRESQL);
		TaskClaims unlocked = KeyStatements.handOffClaims(statements, TaskTables.inSchema(null), false,
				StorageDriver.COCKROACHDB);
		for (String statement : List.of(skipping.claim, skipping.claimOthers, skipping.claimAfter,
				skipping.completeAndClaim, skipping.completeAndClaimAfter)) {
			assertThat(statement).contains("FOR UPDATE SKIP LOCKED").doesNotContain("AND t.claimed_by IS NULL");
		}
		for (String statement : List.of(unlocked.claim, unlocked.claimOthers, unlocked.claimAfter,
				unlocked.completeAndClaim, unlocked.completeAndClaimAfter)) {
			assertThat(statement).doesNotContain("FOR UPDATE").contains("AND t.claimed_by IS NULL");
		}
		UUID task = insert(0, 0, PAST);
		assertThat(ids(transaction.<List<ClaimedTask>>execute((status) -> unlocked.claim("q", 0, this.session, 10))))
			.containsExactly(task);
		assertThat(transaction.<List<ClaimedTask>>execute((status) -> unlocked.claim("q", 0, this.session, 10))).isEmpty();
	}

	@Test
	void theClaimReadsTheReadyIndexInOrderWithoutASortPlainAndFolded() {
		jdbc.update("INSERT INTO taskqueue_task (id, queue, payload, priority, bucket) "
				+ "SELECT gen_random_uuid(), 'q' || (i % 5), '{}', i % 3, i % 16 FROM generate_series(1, 20000) i");
		jdbc.execute("ANALYZE taskqueue_task");
		TaskClaims claims = new TaskClaims(new HotStatements(dataSource, new JdbcTemplate().getExceptionTranslator()),
				TaskTables.inSchema(null), false);
		for (String statement : List.of(claims.claim, claims.claimOthers, claims.completeAndClaim, claims.claimAfter,
				claims.completeAndClaimAfter)) {
			String plan = GenericPlans.of(jdbc, statement);
			assertThat(plan).as(plan).contains("Index Scan using taskqueue_task_ready_bucket_idx")
				.doesNotContain("Sort")
				.doesNotContain("Seq Scan on taskqueue_task");
		}
		String custom = String.join("\n", jdbc.queryForList("EXPLAIN " + claims.claim, String.class, "q1", 0,
				this.session, 10, this.session));
		assertThat(custom).as(custom).contains("Index Scan using taskqueue_task_ready_bucket_idx").doesNotContain("Sort");
	}

	private List<ClaimedTask> claim(int bucket, int limit) {
		return transaction.execute((status) -> tasks.claim("q", bucket, this.session, limit));
	}

	private static UUID insert(int bucket, int priority) {
		return insert(bucket, priority, PAST);
	}

	private static UUID insert(int bucket, int priority, Instant runAt) {
		UUID id = DefaultTaskQueue.nextId();
		jdbc.update("INSERT INTO taskqueue_task (id, queue, payload, priority, run_at, bucket) "
				+ "VALUES (?, 'q', '{}', ?, ?, ?)", id, priority, java.sql.Timestamp.from(runAt), bucket);
		return id;
	}

	private static int bucketOf(UUID id) {
		return jdbc.queryForObject("SELECT bucket FROM taskqueue_task WHERE id = ?", Integer.class, id);
	}

	private static NewTask task(String queue, int priority) {
		return new NewTask(DefaultTaskQueue.nextId(), queue, "{}", priority, null, null);
	}

	private static List<UUID> ids(List<ClaimedTask> claimed) {
		return claimed.stream().map(ClaimedTask::id).toList();
	}

}
