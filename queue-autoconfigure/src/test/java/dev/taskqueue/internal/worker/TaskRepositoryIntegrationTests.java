package dev.taskqueue.internal.worker;

import java.sql.Timestamp;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.stream.IntStream;

import javax.sql.DataSource;

import dev.taskqueue.autoconfigure.TaskQueueSchemaMigrator;
import dev.taskqueue.internal.jdbc.EnqueueRepository;
import dev.taskqueue.internal.jdbc.EnqueueRepository.NewTask;
import dev.taskqueue.internal.jdbc.TaskTables;
import dev.taskqueue.test.Await;
import dev.taskqueue.test.TestDatabase;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.jdbc.datasource.DataSourceTransactionManager;
import org.springframework.jdbc.datasource.DriverManagerDataSource;
import org.springframework.transaction.support.TransactionTemplate;

import static org.assertj.core.api.Assertions.assertThat;

class TaskRepositoryIntegrationTests {

	private static final Instant PAST = Instant.parse("2020-01-01T00:00:00Z");

	private static final ExecutorService otherThread = Executors.newSingleThreadExecutor();

	private static TaskRepository tasks;

	private static EnqueueRepository enqueue;

	private static SessionRepository sessions;

	private static JdbcTemplate jdbc;

	private static TransactionTemplate transaction;

	private final UUID session = UUID.randomUUID();

	@BeforeAll
	static void migrate() {
		DataSource dataSource = new DriverManagerDataSource(TestDatabase.createDatabase());
		TaskTables tables = TaskTables.inSchema(null);
		new TaskQueueSchemaMigrator(dataSource, tables).afterPropertiesSet();
		tasks = new TaskRepository(dataSource, tables);
		enqueue = new EnqueueRepository(dataSource, tables);
		sessions = new SessionRepository(dataSource, tables);
		jdbc = new JdbcTemplate(dataSource);
		transaction = new TransactionTemplate(new DataSourceTransactionManager(dataSource));
	}

	@AfterAll
	static void stopThread() {
		otherThread.shutdownNow();
	}

	@BeforeEach
	void emptyTables() {
		jdbc.execute("TRUNCATE taskqueue_task, taskqueue_session, taskqueue_dead_task");
		sessions.register(this.session, "test");
	}

	@Test
	void claimTakesExactlyTheLimitHighestPriorityThenOldestRunAt() {
		UUID low = insert("q", -1, PAST);
		UUID zeroLater = insert("q", 0, PAST.plusSeconds(50));
		UUID zeroEarlier = insert("q", 0, PAST.plusSeconds(40));
		UUID fiveLater = insert("q", 5, PAST.plusSeconds(90));
		UUID fiveEarlier = insert("q", 5, PAST.plusSeconds(80));
		insert("q", 9, Instant.now().plus(Duration.ofDays(1)));
		insert("other", 100, PAST);
		List<ClaimedTask> claimed = claim("q", this.session, 3);
		assertThat(claimed).extracting(ClaimedTask::id).containsExactlyInAnyOrder(fiveEarlier, fiveLater, zeroEarlier);
		assertThat(claimed).allSatisfy((task) -> {
			assertThat(task.attempt()).isEqualTo(1);
			assertThat(task.claimedBy()).isEqualTo(this.session);
			assertThat(task.queue()).isEqualTo("q");
		});
		assertThat(claim("q", this.session, 1)).extracting(ClaimedTask::id).containsExactly(zeroLater);
		assertThat(claim("q", this.session, 1)).extracting(ClaimedTask::id).containsExactly(low);
		assertThat(claim("q", this.session, 10)).isEmpty();
		assertThat(count("claimed_by = '" + this.session + "'")).isEqualTo(5);
	}

	@Test
	void claimAfterStartsWhereThePreviousClaimEndedAndLeavesWhatSortsEarlierToTheFullClaim() {
		Instant position = PAST.plusSeconds(50);
		UUID higherOld = insert("q", 5, PAST);
		UUID sameBefore = insert("q", 0, PAST.plusSeconds(10));
		UUID sameAt = insert("q", 0, position);
		UUID sameAfter = insert("q", 0, PAST.plusSeconds(60));
		UUID lower = insert("q", -1, PAST);
		insert("q", 0, Instant.now().plus(Duration.ofDays(1)));
		insert("other", 0, PAST.plusSeconds(70));
		// Due now, just before the claim: a claim after a position takes what sorts earlier only if it became due in
		// the last second, a window a loaded machine can miss between two statements further apart.
		UUID higherNew = insert("q", 5, null);
		assertThat(claimAfter(this.session, 2, 0, position)).extracting(ClaimedTask::id)
			.containsExactlyInAnyOrder(higherNew, sameAt);
		assertThat(claimAfter(this.session, 10, 0, position)).extracting(ClaimedTask::id)
			.containsExactlyInAnyOrder(sameAfter, lower);
		assertThat(claimAfter(this.session, 10, 0, position)).isEmpty();
		assertThat(claim("q", this.session, 10)).extracting(ClaimedTask::id)
			.containsExactlyInAnyOrder(higherOld, sameBefore);
	}

	@Test
	void claimAfterStartsAfterTheLastClaimedTaskAmongTasksDueAtTheSameTime() {
		UUID first = new UUID(1, 1);
		UUID second = new UUID(1, 2);
		UUID third = new UUID(1, 3);
		for (UUID id : List.of(first, second, third)) {
			enqueue.insert(new NewTask(id, "q", "{}", 0, null, PAST));
		}
		assertThat(claimAfter(this.session, 10, 0, PAST, second)).extracting(ClaimedTask::id).containsExactly(third);
		assertThat(claim("q", this.session, 10)).extracting(ClaimedTask::id).containsExactlyInAnyOrder(first, second);
	}

	@Test
	void claimAfterTakesTasksOfTheLastSecondThatSortBeforeThePosition() {
		UUID justDue = UUID.randomUUID();
		enqueue.insert(new NewTask(justDue, "q", "{}", 0, Duration.ofMillis(-500), null));
		UUID older = insert("q", 0, Instant.now().minusSeconds(30));
		assertThat(claimAfter(this.session, 10, 0, Instant.now().plusSeconds(3600))).extracting(ClaimedTask::id)
			.containsExactly(justDue);
		assertThat(claimAfter(UUID.randomUUID(), 10, 0, PAST)).as("no such session").isEmpty();
		assertThat(claim("q", this.session, 10)).extracting(ClaimedTask::id).containsExactly(older);
	}

	@Test
	void settlingFindsTheTaskByItsPrimaryKeyEvenWhenStatisticsSawNoClaimedTask() {
		enqueue.insertAll(IntStream.range(0, 2000)
			.mapToObj((i) -> new NewTask(UUID.randomUUID(), "q", "{}", 0, null, PAST.plusSeconds(i)))
			.toList());
		jdbc.execute("ANALYZE taskqueue_task");
		List<ClaimedTask> claimed = claim("q", this.session, 4);
		long claimedIndexScans = indexScans("taskqueue_task_claimed_idx");
		long primaryKeyScans = indexScans("taskqueue_task_pkey");
		transaction.executeWithoutResult((status) -> {
			assertThat(tasks.complete(claimed.get(0))).isTrue();
			assertThat(tasks.completeAll(this.session, claimed.subList(1, 2))).hasSize(1);
			assertThat(tasks.retryLater(claimed.get(2), Duration.ZERO, "again")).isTrue();
			assertThat(tasks.completeAndClaim(claimed.subList(3, 4), "q", 0, this.session, 0).completed()).hasSize(1);
			jdbc.execute("SELECT pg_stat_force_next_flush()");
		});
		Await.until("the statements' index scans are counted", Duration.ofSeconds(10),
				() -> indexScans("taskqueue_task_pkey") >= primaryKeyScans + 4);
		// The claimed-by index holds an entry per claim that VACUUM has not removed: under a held xmin horizon a
		// fenced statement that took it would walk thousands of them.
		assertThat(indexScans("taskqueue_task_claimed_idx")).isEqualTo(claimedIndexScans);
	}

	@Test
	void concurrentClaimsGetDisjointSets() throws Exception {
		Set<UUID> all = new HashSet<>();
		for (int i = 0; i < 10; i++) {
			all.add(insert("q", 0, PAST.plusSeconds(i)));
		}
		UUID other = UUID.randomUUID();
		sessions.register(other, "other");
		CountDownLatch claimed = new CountDownLatch(1);
		CountDownLatch release = new CountDownLatch(1);
		Future<List<ClaimedTask>> first = otherThread.submit(() -> transaction.execute((status) -> {
			List<ClaimedTask> mine = tasks.claim("q", 0, this.session, 4);
			claimed.countDown();
			await(release);
			return mine;
		}));
		await(claimed);
		List<ClaimedTask> second = claim("q", other, 10);
		release.countDown();
		List<ClaimedTask> firstClaimed = first.get(10, TimeUnit.SECONDS);
		assertThat(firstClaimed).hasSize(4);
		assertThat(second).hasSize(6);
		Set<UUID> union = new HashSet<>();
		firstClaimed.forEach((task) -> union.add(task.id()));
		second.forEach((task) -> assertThat(union.add(task.id())).as("claimed twice: " + task.id()).isTrue());
		assertThat(union).isEqualTo(all);
		assertThat(count("claimed_by = '" + this.session + "'")).isEqualTo(4);
		assertThat(count("claimed_by = '" + other + "'")).isEqualTo(6);
	}

	@Test
	void claimForASessionThatDoesNotExistTakesNothing() {
		UUID id = insert("q", 0, PAST);
		assertThat(claim("q", UUID.randomUUID(), 5)).isEmpty();
		assertThat(jdbc.queryForMap("SELECT attempt, claimed_by FROM taskqueue_task WHERE id = ?", id))
			.containsEntry("attempt", 0)
			.containsEntry("claimed_by", null);
	}

	@Test
	void completeWithAnotherSessionChangesNothing() {
		UUID id = insert("q", 0, PAST);
		ClaimedTask task = claim("q", this.session, 1).get(0);
		ClaimedTask otherSession = new ClaimedTask(id, "q", task.payload(), 0, task.attempt(), task.enqueuedAt(),
				task.runAt(), task.claimedAt(), UUID.randomUUID(), null);
		assertThat(tasks.complete(otherSession)).isFalse();
		assertThat(jdbc.queryForObject("SELECT claimed_by FROM taskqueue_task WHERE id = ?", UUID.class, id))
			.isEqualTo(this.session);
		assertThat(tasks.complete(task)).isTrue();
		assertThat(count("true")).isZero();
		assertThat(tasks.complete(task)).isFalse();
	}

	@Test
	void expireDeletesSilentSessionsAndReleasesTheirTasks() {
		UUID silent = UUID.randomUUID();
		sessions.register(silent, "silent");
		insert("q", 0, PAST);
		insert("q", 0, PAST.plusSeconds(1));
		UUID alive = insert("q", 0, PAST.plusSeconds(2));
		List<ClaimedTask> lost = claim("q", silent, 2);
		claim("q", this.session, 1);
		jdbc.update("UPDATE taskqueue_session SET heartbeat_at = now() - interval '1 hour' WHERE id = ?", silent);
		// A minute, not a second: this test's own session beats only at its start, and a loaded machine may take
		// more than a second to get here.
		assertThat(sessions.expire(Duration.ofMinutes(1))).isEqualTo(2);
		assertThat(jdbc.queryForList("SELECT id FROM taskqueue_session", UUID.class)).containsExactly(this.session);
		for (ClaimedTask task : lost) {
			assertThat(jdbc.queryForMap("SELECT attempt, claimed_by, claimed_at FROM taskqueue_task WHERE id = ?",
					task.id()))
				.containsEntry("attempt", 1)
				.containsEntry("claimed_by", null)
				.containsEntry("claimed_at", null);
		}
		assertThat(jdbc.queryForObject("SELECT claimed_by FROM taskqueue_task WHERE id = ?", UUID.class, alive))
			.isEqualTo(this.session);
		assertThat(sessions.expire(Duration.ofMinutes(1))).isZero();
		assertThat(claim("q", this.session, 5)).extracting(ClaimedTask::attempt).containsExactly(2, 2);
	}

	@Test
	void expireReleasesTasksOfSessionsThatNoLongerExist() {
		UUID gone = UUID.randomUUID();
		sessions.register(gone, "gone");
		UUID id = insert("q", 0, PAST);
		claim("q", gone, 1);
		jdbc.update("DELETE FROM taskqueue_session WHERE id = ?", gone);
		assertThat(sessions.expire(Duration.ofMinutes(1))).isEqualTo(1);
		assertThat(jdbc.queryForObject("SELECT claimed_by FROM taskqueue_task WHERE id = ?", UUID.class, id)).isNull();
		assertThat(jdbc.queryForList("SELECT id FROM taskqueue_session", UUID.class)).containsExactly(this.session);
	}

	@Test
	void endReleasesTheSessionsTasks() {
		UUID id = insert("q", 0, PAST);
		claim("q", this.session, 1);
		assertThat(sessions.end(this.session)).isEqualTo(1);
		assertThat(jdbc.queryForObject("SELECT claimed_by FROM taskqueue_task WHERE id = ?", UUID.class, id)).isNull();
		assertThat(count("true")).isEqualTo(1);
		assertThat(sessions.heartbeat(this.session)).isFalse();
	}

	@Test
	void releaseUnstartedGivesTheAttemptBack() {
		insert("q", 0, PAST);
		insert("q", 0, PAST.plusSeconds(1));
		List<UUID> ids = claim("q", this.session, 2).stream().map(ClaimedTask::id).toList();
		assertThat(tasks.releaseUnstarted(ids, UUID.randomUUID())).isZero();
		assertThat(count("attempt = 1 AND claimed_by IS NOT NULL")).isEqualTo(2);
		assertThat(tasks.releaseUnstarted(ids, this.session)).isEqualTo(2);
		assertThat(count("attempt = 0 AND claimed_by IS NULL AND claimed_at IS NULL")).isEqualTo(2);
		assertThat(claim("q", this.session, 2)).extracting(ClaimedTask::attempt).containsExactly(1, 1);
	}

	@Test
	void moveToDeadKeepsPayloadAttemptsAndError() {
		String payload = "{\"name\": \"ada\", \"tags\": [1, 2], \"nested\": {\"ok\": true}}";
		UUID id = UUID.randomUUID();
		enqueue.insert(new NewTask(id, "mail", payload, 3, null, PAST));
		Instant enqueuedAt = jdbc.queryForObject("SELECT enqueued_at FROM taskqueue_task", Instant.class);
		ClaimedTask first = claim("mail", this.session, 1).get(0);
		assertThat(tasks.retryLater(first, Duration.ZERO, "first error")).isTrue();
		ClaimedTask second = claim("mail", this.session, 1).get(0);
		assertThat(second.attempt()).isEqualTo(2);
		assertThat(second.lastError()).isEqualTo("first error");
		ClaimedTask otherSession = new ClaimedTask(id, "mail", second.payload(), 3, 2, second.enqueuedAt(),
				second.runAt(), second.claimedAt(), UUID.randomUUID(), null);
		assertThat(tasks.moveToDead(otherSession, "not mine")).isFalse();
		assertThat(count("true")).isEqualTo(1);
		assertThat(tasks.moveToDead(second, "second error")).isTrue();
		assertThat(count("true")).isZero();
		Map<String, Object> dead = jdbc.queryForMap("SELECT id, queue, priority, attempts, error, enqueued_at, "
				+ "payload = CAST(? AS jsonb) AS same_payload FROM taskqueue_dead_task", payload);
		assertThat(dead).containsEntry("id", id)
			.containsEntry("queue", "mail")
			.containsEntry("priority", 3)
			.containsEntry("attempts", 2)
			.containsEntry("error", "second error")
			.containsEntry("same_payload", true);
		assertThat(((Timestamp) dead.get("enqueued_at")).toInstant()).isEqualTo(enqueuedAt);
	}

	private static UUID insert(String queue, int priority, Instant runAt) {
		UUID id = UUID.randomUUID();
		enqueue.insert(new NewTask(id, queue, "{\"queue\": \"" + queue + "\"}", priority, null, runAt));
		return id;
	}

	private static List<ClaimedTask> claim(String queue, UUID session, int limit) {
		return new ArrayList<>(transaction.execute((status) -> tasks.claim(queue, 0, session, limit)));
	}

	private static List<ClaimedTask> claimAfter(UUID session, int limit, int priority, Instant after) {
		return claimAfter(session, limit, priority, after, new UUID(0, 0));
	}

	private static List<ClaimedTask> claimAfter(UUID session, int limit, int priority, Instant after, UUID afterId) {
		return transaction.execute((status) -> tasks.claimAfter("q", 0, session, limit, priority, after, afterId));
	}

	private static long indexScans(String index) {
		return jdbc.queryForObject("SELECT idx_scan FROM pg_stat_user_indexes WHERE indexrelname = ?", Long.class,
				index);
	}

	private static int count(String where) {
		return jdbc.queryForObject("SELECT count(*) FROM taskqueue_task WHERE " + where, Integer.class);
	}

	private static void await(CountDownLatch latch) {
		try {
			assertThat(latch.await(10, TimeUnit.SECONDS)).as("latch released").isTrue();
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			throw new AssertionError(ex);
		}
	}

	@Test
	void batchedCompletionWithHistoryKeepsExactlyTheTasksItDeletes() {
		DataSource dataSource = new DriverManagerDataSource(TestDatabase.createDatabase());
		TaskTables tables = TaskTables.inSchema(null);
		new TaskQueueSchemaMigrator(dataSource, tables).afterPropertiesSet();
		TaskRepository tasks = new TaskRepository(dataSource, tables, true);
		EnqueueRepository enqueue = new EnqueueRepository(dataSource, tables);
		UUID session = UUID.randomUUID();
		new SessionRepository(dataSource, tables).register(session, "test");
		for (int i = 0; i < 3; i++) {
			enqueue.insert(new NewTask(UUID.randomUUID(), "h-repo", "{}", 0, null, null, "{\"k\": \"v\"}"));
		}
		List<ClaimedTask> claimed = tasks.claim(TaskClaims.Request.of("h-repo", session, 3)).claimed();
		ClaimedTask lost = claimed.get(2);
		// As if a later attempt had claimed it: the batched completion must not delete it, nor record it.
		ClaimedTask stale = new ClaimedTask(lost.id(), lost.queue(), lost.payload(), lost.priority(),
				lost.attempt() + 1, lost.enqueuedAt(), lost.runAt(), lost.claimedAt(), lost.claimedBy(), null);
		List<UUID> deleted = tasks.completeAll(session, List.of(claimed.get(0), claimed.get(1), stale));
		assertThat(deleted).containsExactlyInAnyOrder(claimed.get(0).id(), claimed.get(1).id());
		JdbcTemplate jdbc = new JdbcTemplate(dataSource);
		assertThat(jdbc.queryForList("SELECT id FROM taskqueue_history", UUID.class))
			.containsExactlyInAnyOrderElementsOf(deleted);
		assertThat(jdbc.queryForList("SELECT headers ->> 'k' FROM taskqueue_history", String.class)).containsOnly("v");
		assertThat(tasks.complete(lost)).isTrue();
		assertThat(jdbc.queryForObject("SELECT count(*) FROM taskqueue_history", Integer.class)).isEqualTo(3);
	}

}
