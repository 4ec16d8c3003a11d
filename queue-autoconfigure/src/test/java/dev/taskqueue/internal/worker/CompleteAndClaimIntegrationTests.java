package dev.taskqueue.internal.worker;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.Phaser;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;
import java.util.stream.IntStream;

import javax.sql.DataSource;

import dev.taskqueue.autoconfigure.TaskQueueSchemaMigrator;
import dev.taskqueue.internal.jdbc.EnqueueRepository;
import dev.taskqueue.internal.jdbc.EnqueueRepository.NewTask;
import dev.taskqueue.internal.jdbc.TaskTables;
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

class CompleteAndClaimIntegrationTests {

	private static final Instant PAST = Instant.parse("2020-01-01T00:00:00Z");

	private static final ExecutorService threads = Executors.newFixedThreadPool(2);

	private static TaskRepository tasks;

	private static TaskRepository withHistory;

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
		withHistory = new TaskRepository(dataSource, tables, true);
		enqueue = new EnqueueRepository(dataSource, tables);
		sessions = new SessionRepository(dataSource, tables);
		jdbc = new JdbcTemplate(dataSource);
		transaction = new TransactionTemplate(new DataSourceTransactionManager(dataSource));
	}

	@AfterAll
	static void stopThreads() {
		threads.shutdownNow();
	}

	@BeforeEach
	void emptyTables() {
		jdbc.execute("TRUNCATE taskqueue_task, taskqueue_session, taskqueue_history");
		sessions.register(this.session, "test");
	}

	@Test
	void completesExactlyTheTasksWhoseOwnClaimStillHolds() {
		for (int i = 0; i < 6; i++) {
			insert(0, PAST.plusSeconds(i));
		}
		List<ClaimedTask> claimed = sorted(tasks.claim("q", 0, this.session, 4));
		ClaimedTask laterAttempt = withClaim(claimed.get(1), claimed.get(1).attempt() + 1, this.session);
		ClaimedTask otherSession = withClaim(claimed.get(2), claimed.get(2).attempt(), UUID.randomUUID());
		// The worker's session has changed since it claimed them: each completion is fenced by its own claim.
		UUID newSession = UUID.randomUUID();
		sessions.register(newSession, "test, again");
		ClaimResult result = inTransaction(() -> tasks.completeAndClaim(
				List.of(claimed.get(0), laterAttempt, otherSession, claimed.get(3)), "q", 0, newSession, 10));
		assertThat(result.completed()).containsExactlyInAnyOrder(claimed.get(0).id(), claimed.get(3).id());
		assertThat(result.claimed()).hasSize(2).allSatisfy((task) -> {
			assertThat(task.claimedBy()).isEqualTo(newSession);
			assertThat(task.attempt()).isOne();
			assertThat(task.runAt()).isAfterOrEqualTo(PAST.plusSeconds(4));
		});
		assertThat(jdbc.queryForList("SELECT id FROM taskqueue_task WHERE claimed_by = ? AND attempt = 1", UUID.class,
				this.session))
			.containsExactlyInAnyOrder(claimed.get(1).id(), claimed.get(2).id());
		assertThat(count()).isEqualTo(4);
	}

	@Test
	void claimsExactlyTheLimitHighestPriorityThenOldestRunAtThenId() {
		UUID first = insert(10, PAST);
		List<ClaimedTask> done = tasks.claim("q", 0, this.session, 1);
		UUID fiveLater = insert(5, PAST.plusSeconds(90));
		UUID fiveEarlier = insert(5, PAST.plusSeconds(80));
		UUID zeroEarlier = insert(0, PAST.plusSeconds(40));
		UUID zeroSecond = insert(new UUID(0, 2), 0, PAST.plusSeconds(50));
		UUID zeroFirst = insert(new UUID(0, 1), 0, PAST.plusSeconds(50));
		UUID low = insert(-1, PAST);
		insert(9, Instant.now().plus(Duration.ofDays(1)));
		enqueue.insert(new NewTask(UUID.randomUUID(), "other", "{}", 100, null, PAST));
		ClaimResult result = fold(done, 3);
		assertThat(result.completed()).containsExactly(first);
		assertThat(ids(result.claimed())).containsExactlyInAnyOrder(fiveEarlier, fiveLater, zeroEarlier);
		result = fold(result.claimed(), 1);
		assertThat(result.completed()).containsExactlyInAnyOrder(fiveEarlier, fiveLater, zeroEarlier);
		assertThat(ids(result.claimed())).containsExactly(zeroFirst);
		result = fold(result.claimed(), 2);
		assertThat(result.completed()).containsExactly(zeroFirst);
		assertThat(ids(result.claimed())).containsExactlyInAnyOrder(zeroSecond, low);
		result = fold(result.claimed(), 10);
		assertThat(result.completed()).containsExactlyInAnyOrder(zeroSecond, low);
		assertThat(result.claimed()).isEmpty();
		assertThat(count()).as("the future task and the other queue's").isEqualTo(2);
	}

	@Test
	void withoutCompletionsItIsAClaimAndWithALimitOfZeroItOnlyCompletes() {
		UUID a = insert(0, PAST);
		UUID b = insert(0, PAST.plusSeconds(1));
		UUID c = insert(0, PAST.plusSeconds(2));
		ClaimResult claimOnly = fold(List.of(), 2);
		assertThat(claimOnly.completed()).isEmpty();
		assertThat(ids(claimOnly.claimed())).containsExactlyInAnyOrder(a, b);
		ClaimResult completeOnly = fold(claimOnly.claimed(), 0);
		assertThat(completeOnly.completed()).containsExactlyInAnyOrder(a, b);
		assertThat(completeOnly.claimed()).isEmpty();
		assertThat(jdbc.queryForList("SELECT id FROM taskqueue_task WHERE attempt = 0 AND claimed_by IS NULL",
				UUID.class))
			.containsExactly(c);
		ClaimResult nothing = fold(List.of(), 0);
		assertThat(nothing.claimed()).isEmpty();
		assertThat(nothing.completed()).isEmpty();
	}

	@Test
	void aCompletedTaskWhoseClaimWasReleasedIsNotDeletedButClaimedAgain() {
		UUID id = insert(0, PAST);
		List<ClaimedTask> done = tasks.claim("q", 0, this.session, 1);
		// What expiring the session does to its tasks, before the completion reached the database.
		jdbc.update("UPDATE taskqueue_task SET claimed_by = NULL, claimed_at = NULL");
		ClaimResult result = fold(done, 10);
		assertThat(result.completed()).isEmpty();
		assertThat(result.claimed()).singleElement().satisfies((task) -> {
			assertThat(task.id()).isEqualTo(id);
			assertThat(task.attempt()).isEqualTo(2);
		});
		assertThat(count()).isOne();
	}

	@Test
	void completeAndClaimAfterStartsWhereThePreviousClaimEnded() {
		Instant position = PAST.plusSeconds(50);
		UUID higherOld = insert(5, PAST);
		List<ClaimedTask> done = tasks.claim("q", 0, this.session, 1);
		UUID sameBefore = insert(0, PAST.plusSeconds(10));
		UUID sameAt = insert(0, position);
		UUID sameAfter = insert(0, PAST.plusSeconds(60));
		UUID lower = insert(-1, PAST);
		ClaimResult result = inTransaction(
				() -> tasks.completeAndClaimAfter(done, "q", 0, this.session, 2, 0, position, new UUID(0, 0)));
		assertThat(result.completed()).containsExactly(higherOld);
		assertThat(ids(result.claimed())).containsExactlyInAnyOrder(sameAt, sameAfter);
		ClaimResult claimOnly = inTransaction(
				() -> tasks.completeAndClaimAfter(List.of(), "q", 0, this.session, 10, 0, position, new UUID(0, 0)));
		assertThat(claimOnly.completed()).isEmpty();
		assertThat(ids(claimOnly.claimed())).containsExactly(lower);
		assertThat(ids(fold(List.of(), 10).claimed())).as("left to the full claim").containsExactly(sameBefore);
	}

	@Test
	void withHistoryTheCompletedTasksAreKeptAsByCompleteAll() {
		for (int i = 0; i < 3; i++) {
			enqueue.insert(new NewTask(UUID.randomUUID(), "q", "{\"n\": " + i + "}", 0, null, PAST.plusSeconds(i),
					"{\"k\": \"v\"}"));
		}
		List<ClaimedTask> claimed = sorted(withHistory.claim("q", 0, this.session, 3));
		ClaimedTask stale = withClaim(claimed.get(2), claimed.get(2).attempt() + 1, this.session);
		UUID ready = insert(0, PAST.plusSeconds(10));
		ClaimResult result = inTransaction(() -> withHistory
			.completeAndClaim(List.of(claimed.get(0), claimed.get(1), stale), "q", 0, this.session, 5));
		assertThat(result.completed()).containsExactlyInAnyOrder(claimed.get(0).id(), claimed.get(1).id());
		assertThat(ids(result.claimed())).containsExactly(ready);
		assertThat(jdbc.queryForList("SELECT id FROM taskqueue_history WHERE attempts = 1 AND headers ->> 'k' = 'v' "
				+ "AND payload ->> 'n' IS NOT NULL AND completed_at IS NOT NULL", UUID.class))
			.containsExactlyInAnyOrderElementsOf(result.completed());
		assertThat(jdbc.queryForObject("SELECT count(*) FROM taskqueue_history", Integer.class)).isEqualTo(2);
	}

	@Test
	void twoSessionsCompletingAndClaimingAtOnceNeverClaimTheSameTask() throws Exception {
		int total = 2000;
		enqueue.insertAll(IntStream.range(0, total)
			.mapToObj((i) -> new NewTask(UUID.randomUUID(), "q", "{}", i % 3, null, PAST.plusMillis(i)))
			.toList());
		UUID other = UUID.randomUUID();
		sessions.register(other, "other");
		Phaser rounds = new Phaser(2); // both run each round at the same time
		Future<List<UUID>> mine = threads.submit(() -> drain(this.session, rounds));
		Future<List<UUID>> theirs = threads.submit(() -> drain(other, rounds));
		List<UUID> claimedByMe = mine.get(60, TimeUnit.SECONDS);
		List<UUID> claimedByThem = theirs.get(60, TimeUnit.SECONDS);
		assertThat(claimedByMe).isNotEmpty();
		assertThat(claimedByThem).isNotEmpty();
		assertThat(claimedByMe.size() + claimedByThem.size()).isEqualTo(total);
		Set<UUID> all = new HashSet<>(claimedByMe);
		claimedByThem.forEach((id) -> assertThat(all.add(id)).as("claimed twice: " + id).isTrue());
		assertThat(all).hasSize(total);
		assertThat(count()).isZero();
	}

	/** Claims 25 at a time, completing the previous 25 in the same statement, until none is left. */
	private List<UUID> drain(UUID session, Phaser rounds) {
		List<UUID> claimed = new ArrayList<>();
		List<ClaimedTask> done = List.of();
		try {
			while (true) {
				rounds.arriveAndAwaitAdvance();
				List<ClaimedTask> completing = done;
				ClaimResult result = inTransaction(() -> tasks.completeAndClaim(completing, "q", 0, session, 25));
				assertThat(result.completed()).as("all of its own completions")
					.containsExactlyInAnyOrderElementsOf(ids(completing));
				if (result.claimed().isEmpty()) {
					return claimed;
				}
				claimed.addAll(ids(result.claimed()));
				done = result.claimed();
			}
		}
		finally {
			rounds.arriveAndDeregister();
		}
	}

	private static ClaimResult inTransaction(Supplier<ClaimResult> statement) {
		return transaction.execute((status) -> statement.get());
	}

	private ClaimResult fold(List<ClaimedTask> done, int limit) {
		return inTransaction(() -> tasks.completeAndClaim(done, "q", 0, this.session, limit));
	}

	private static UUID insert(int priority, Instant runAt) {
		return insert(UUID.randomUUID(), priority, runAt);
	}

	private static UUID insert(UUID id, int priority, Instant runAt) {
		enqueue.insert(new NewTask(id, "q", "{}", priority, null, runAt));
		return id;
	}

	private static ClaimedTask withClaim(ClaimedTask task, int attempt, UUID claimedBy) {
		return new ClaimedTask(task.id(), task.queue(), task.payload(), task.priority(), attempt, task.enqueuedAt(),
				task.runAt(), task.claimedAt(), claimedBy, task.lastError(), task.headers());
	}

	private static List<ClaimedTask> sorted(List<ClaimedTask> claimed) {
		return claimed.stream().sorted((a, b) -> a.runAt().compareTo(b.runAt())).toList();
	}

	private static List<UUID> ids(List<ClaimedTask> claimed) {
		return claimed.stream().map(ClaimedTask::id).toList();
	}

	private static int count() {
		return jdbc.queryForObject("SELECT count(*) FROM taskqueue_task", Integer.class);
	}

}
