package dev.taskqueue.internal.worker;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;

import javax.sql.DataSource;

import dev.taskqueue.TaskQueueOperations;
import dev.taskqueue.autoconfigure.TaskQueueSchemaMigrator;
import dev.taskqueue.internal.jdbc.EnqueueRepository;
import dev.taskqueue.internal.jdbc.EnqueueRepository.NewTask;
import dev.taskqueue.internal.jdbc.QueueRepository;
import dev.taskqueue.internal.jdbc.TaskTables;
import dev.taskqueue.internal.operations.OperationsBeans;
import dev.taskqueue.test.Await;
import dev.taskqueue.test.TestDatabase;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.jdbc.datasource.DataSourceTransactionManager;
import org.springframework.jdbc.datasource.DriverManagerDataSource;
import org.springframework.transaction.support.TransactionTemplate;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The statements of ordered keys on a real PostgreSQL, one step at a time: which task of a key is the head after
 * each way a head can end, and the races of enqueues with each other and with a head's end.
 */
class OrderedKeyStatementsIntegrationTests {

	private static final ExecutorService otherThread = Executors.newSingleThreadExecutor();

	private static TaskRepository tasks;

	private static EnqueueRepository enqueue;

	private static SessionRepository sessions;

	private static QueueRepository queues;

	private static Completer.CompletionCommit completionCommit;

	private static TaskQueueOperations operations;

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
		queues = new QueueRepository(dataSource, tables);
		completionCommit = new Completer.CompletionCommit(dataSource, tables, false);
		jdbc = new JdbcTemplate(dataSource);
		transaction = new TransactionTemplate(new DataSourceTransactionManager(dataSource));
		// The statistics' statements are the operations' own (operations/QueueStatsRepository): read through them.
		operations = OperationsBeans.operations(dataSource, tables, queues, transaction);
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
	void onlyTheHeadOfAKeyIsClaimedAndPriorityDoesNotReorderAKey() {
		UUID first = offer("q", "k", 0);
		UUID second = offer("q", "k", 100);
		UUID other = offer("q", "other", 0);
		UUID plain = offer("q", null, 0);
		assertThat(ids(tasks.claim("q", 0, this.session, 10))).containsExactlyInAnyOrder(first, other, plain);
		assertThat(heldCount("q")).isEqualTo(1);
		assertThat(tasks.claim("q", 0, this.session, 10)).isEmpty();
		assertThat(second).isNotNull();
	}

	@Test
	void everyWayAHeadEndsMakesTheNextTaskOfItsKeyTheHead() {
		List<UUID> ids = new ArrayList<>();
		for (int i = 0; i < 8; i++) {
			ids.add(offer("q", "k", 0));
		}
		List<Consumer<ClaimedTask>> ends = List.of(
				(task) -> assertThat(tasks.complete(task)).isTrue(),
				(task) -> assertThat(tasks.completeAll(this.session, List.of(task))).containsExactly(task.id()),
				(task) -> {
					// The fold hands the next task off to the claiming session; given back, it is claimed below.
					ClaimResult result = tasks.completeAndClaim(List.of(task), "q", 0, this.session, 0);
					assertThat(result.completed()).containsExactly(task.id());
					assertThat(ids(result.handedOff())).containsExactly(ids.get(3));
					assertThat(tasks.releaseUnstarted(ids(result.handedOff()), this.session)).isOne();
				},
				(task) -> assertThat(committed(task)).isTrue(),
				(task) -> assertThat(tasks.moveToDead(task, "dead")).isTrue(),
				(task) -> {
					jdbc.update("UPDATE taskqueue_task SET claimed_by = NULL WHERE id = ?", task.id());
					assertThat(queues.cancel(task.id())).isTrue();
				},
				(task) -> assertThat(tasks.complete(task)).isTrue());
		for (int i = 0; i < ends.size(); i++) {
			ClaimedTask head = claimOne("q");
			assertThat(head.id()).as("head %d", i).isEqualTo(ids.get(i));
			assertThat(head.orderingKey()).isEqualTo("k");
			assertThat(heldCount("q")).isEqualTo(ids.size() - 1 - i);
			ends.get(i).accept(head);
		}
		assertThat(claimOne("q").id()).isEqualTo(ids.get(7));
		assertThat(jdbc.queryForObject("SELECT count(*) FROM taskqueue_dead_task", Integer.class)).isOne();
	}

	@Test
	void aCompletionHandsTheNextDueTaskOfTheKeyOffToItsSessionWhenAsked() {
		UUID k1 = offer("q", "k1", 0);
		UUID k1Next = offer("q", "k1", 0);
		UUID k2 = offer("q", "k2", 0);
		UUID k2Later = enqueue.offer(new NewTask(UUID.randomUUID(), "q", "{}", 0, Duration.ofHours(1), null, "{}",
				null, false, "k2")).id();
		UUID k3 = offer("q", "k3", 0);
		UUID k3Next = offer("q", "k3", 0);
		List<ClaimedTask> heads = tasks.claim("q", 0, this.session, 10);
		assertThat(ids(heads)).containsExactlyInAnyOrder(k1, k2, k3);
		ClaimResult handing = tasks.completeAll(this.session, heads.stream()
			.filter((task) -> !task.id().equals(k3)).toList(), "q");
		assertThat(handing.completed()).containsExactlyInAnyOrder(k1, k2);
		// k1's next is due: claimed for the session, its attempt counted; k2's is due in an hour: only promoted.
		assertThat(handing.handedOff()).singleElement().satisfies((task) -> {
			assertThat(task.id()).isEqualTo(k1Next);
			assertThat(task.claimedBy()).isEqualTo(this.session);
			assertThat(task.attempt()).isOne();
			assertThat(task.orderingKey()).isEqualTo("k1");
		});
		assertThat(jdbc.queryForObject("SELECT claimed_by IS NULL FROM taskqueue_task WHERE id = ?", Boolean.class,
				k2Later)).isTrue();
		// Without a hand-off queue (or with another queue's name), the next task is promoted for any claim.
		ClaimedTask k3Head = heads.stream().filter((task) -> task.id().equals(k3)).findFirst().orElseThrow();
		ClaimResult promoting = tasks.completeAll(this.session, List.of(k3Head), "other");
		assertThat(promoting.completed()).containsExactly(k3);
		assertThat(promoting.handedOff()).isEmpty();
		assertThat(ids(tasks.claim("q", 0, this.session, 10))).containsExactly(k3Next);
		assertThat(tasks.complete(handing.handedOff().get(0))).isTrue();
		assertThat(jdbc.queryForObject("SELECT count(*) FROM taskqueue_task", Integer.class)).isEqualTo(2);
	}

	@Test
	void aCompletionLeavingTheHeadLeavesTheKeyToAClaimThatHandsItsNextTaskOff() {
		UUID first = offer("q", "k", 0);
		UUID second = offer("q", "k", 0);
		UUID third = offer("q", "k", 0);
		UUID other = offer("q", "other", 0);
		ClaimedTask head = tasks.claim("q", 0, this.session, 1).get(0);
		assertThat(head.id()).isEqualTo(first);
		// A lost claim deletes nothing: the fence fails the statement, the transaction rolls back.
		ClaimedTask lost = new ClaimedTask(first, "q", "{}", 0, 7, head.enqueuedAt(), head.runAt(), head.claimedAt(),
				this.session, null, "{}", "k");
		assertThat(transaction.<Boolean>execute((status) -> {
			boolean completed = completionCommit.completeAndCommit(lost);
			status.setRollbackOnly();
			return completed;
		})).isFalse();
		assertThat(transaction.<Boolean>execute((status) -> completionCommit.completeAndCommit(head)))
			.isTrue();
		// The key has no head now, yet its held tasks stay held: an enqueue goes behind them, and no claim takes them.
		UUID fourth = offer("q", "k", 0);
		assertThat(heldCount("q")).isEqualTo(3);
		ClaimResult result = tasks.handOffAndClaim(List.of("k"), "q", 0, this.session, 5, 5);
		assertThat(ids(result.claimed())).containsExactly(other);
		assertThat(result.handedOff()).singleElement().satisfies((task) -> {
			assertThat(task.id()).isEqualTo(second);
			assertThat(task.claimedBy()).isEqualTo(this.session);
			assertThat(task.attempt()).isOne();
		});
		// The due tasks that follow it, in order, still held: shown as the session's claim would make them.
		assertThat(ids(result.following().get(second))).containsExactly(third, fourth);
		assertThat(result.following().get(second).get(0).claimedBy()).isEqualTo(this.session);
		assertThat(result.following().get(second).get(0).attempt()).isOne();
		// The key has a head again (handed off, or given by the sweep or an enqueue): nothing more is handed off.
		assertThat(tasks.handOffAndClaim(List.of("k"), "q", 0, this.session, 5, 0).handedOff()).isEmpty();
		assertThat(heldCount("q")).isEqualTo(2);
		// A next task that is not due yet becomes the head for the claim at its due time, not handed off.
		assertThat(committedLeavingHead(result.handedOff().get(0))).isTrue();
		jdbc.update("UPDATE taskqueue_task SET run_at = now() + interval '1 hour' WHERE id = ?", third);
		assertThat(tasks.handOffAndClaim(List.of("k"), "q", 0, this.session, 5, 0).handedOff()).isEmpty();
		assertThat(jdbc.queryForObject("SELECT claimed_by IS NULL FROM taskqueue_task WHERE id = ?", Boolean.class,
				third)).isTrue();
		assertThat(heldCount("q")).isOne();
		// Without a claim (a paused queue, a worker that stops), the next task becomes the head for any claim.
		jdbc.update("UPDATE taskqueue_task SET run_at = now() WHERE id = ?", third);
		assertThat(committedLeavingHead(claimOne("q"))).isTrue();
		assertThat(tasks.promoteHeadless("q", List.of("k", "unknown"))).isOne();
		assertThat(claimOne("q").id()).isEqualTo(fourth);
	}

	@Test
	void theTasksThatFollowAHandedOffTaskEndBeforeTheFirstThatIsNotDue() {
		offer("q", "k", 0);
		UUID second = offer("q", "k", 0);
		UUID third = offer("q", "k", 0);
		enqueue.offer(new NewTask(UUID.randomUUID(), "q", "{}", 0, Duration.ofHours(1), null, "{}", null, false, "k"));
		offer("q", "k", 0);
		assertThat(committedLeavingHead(claimOne("q"))).isTrue();
		ClaimResult result = tasks.handOffAndClaim(List.of("k"), "q", 0, this.session, 5, 10);
		assertThat(ids(result.handedOff())).containsExactly(second);
		assertThat(ids(result.following().get(second))).containsExactly(third);
		assertThat(heldCount("q")).isEqualTo(3);
		// Claimed for the session only by claimHeld, which a group runs for one that failed, after the head's delete.
		assertThat(committedLeavingHead(result.handedOff().get(0))).isTrue();
		assertThat(tasks.claimHeld(this.session, List.of(third))).isOne();
		assertThat(tasks.claimHeld(this.session, List.of(third))).as("no longer held").isZero();
	}

	@Test
	void aKeyWithoutHeldTasksGetsNoHeadFromAClaimAndTakesTheNextEnqueueAsItsHead() {
		offer("q", "k", 0);
		assertThat(committedLeavingHead(claimOne("q"))).isTrue();
		assertThat(tasks.handOffAndClaim(List.of("k"), "q", 0, this.session, 5, 0).handedOff()).isEmpty();
		UUID next = offer("q", "k", 0);
		assertThat(heldCount("q")).isZero();
		assertThat(claimOne("q").id()).isEqualTo(next);
	}

	@Test
	void aHeadWaitingToRetryOrReleasedByItsSessionKeepsItsKey() {
		UUID first = offer("q", "k", 0);
		UUID second = offer("q", "k", 0);
		ClaimedTask head = claimOne("q");
		assertThat(tasks.retryLater(head, Duration.ZERO, "failed")).isTrue();
		assertThat(claimOne("q").id()).as("the retry, not the next task").isEqualTo(first);
		jdbc.update("UPDATE taskqueue_session SET heartbeat_at = now() - interval '1 hour'");
		assertThat(sessions.expire(Duration.ofMinutes(1))).as("only the running head is released").isOne();
		UUID next = UUID.randomUUID();
		sessions.register(next, "next");
		List<ClaimedTask> again = tasks.claim("q", 0, next, 10);
		assertThat(ids(again)).containsExactly(first);
		assertThat(again.get(0).attempt()).isEqualTo(3);
		assertThat(tasks.complete(again.get(0))).isTrue();
		assertThat(ids(tasks.claim("q", 0, next, 10))).containsExactly(second);
	}

	@Test
	void enqueueAllKeepsTheListOrderWithinAKey() {
		List<NewTask> list = new ArrayList<>();
		String[] keys = { "a", "b", "a", "a", "b" };
		for (String key : keys) {
			list.add(newTask("q", key, 0));
		}
		list.add(newTask("q", null, 0));
		enqueue.offerAll(list);
		List<UUID> order = new ArrayList<>();
		for (int round = 0; round < 3; round++) {
			List<ClaimedTask> claimed = tasks.claim("q", 0, this.session, 10);
			claimed.stream().filter((task) -> "a".equals(task.orderingKey())).forEach((task) -> order.add(task.id()));
			claimed.forEach((task) -> assertThat(tasks.complete(task)).isTrue());
		}
		assertThat(order).containsExactly(list.get(0).id(), list.get(2).id(), list.get(3).id());
		assertThat(jdbc.queryForObject("SELECT count(*) FROM taskqueue_task", Integer.class)).isZero();
	}

	@Test
	void concurrentEnqueuesOfOneKeyBothCommitWithOneHead() throws Exception {
		UUID[] second = new UUID[1];
		Future<?> other = transaction.execute((status) -> {
			UUID first = offer("q", "k", 0);
			Future<?> concurrent = otherThread
				.submit(() -> transaction.executeWithoutResult((s) -> second[0] = offer("q", "k", 0)));
			Await.until("the second enqueue waits in the index", Duration.ofSeconds(10), () -> waitingOnLock() > 0);
			assertThat(first).isNotNull();
			return concurrent;
		});
		other.get(10, TimeUnit.SECONDS);
		assertThat(jdbc.queryForObject("SELECT count(*) FROM taskqueue_task WHERE ordering_key = 'k'", Integer.class))
			.isEqualTo(2);
		assertThat(heldCount("q")).isOne();
		assertThat(ids(tasks.claim("q", 0, this.session, 10))).doesNotContain(second[0]).hasSize(1);
	}

	@Test
	void aHeldTaskCommittedAfterItsHeadEndedIsPromotedByTheSweepBeforeLaterTasks() {
		offer("q", "k", 0);
		ClaimedTask head = claimOne("q");
		UUID[] late = new UUID[1];
		transaction.executeWithoutResult((status) -> {
			late[0] = offer("q", "k", 0); // held behind the head, not committed until the head has ended
			try {
				assertThat(otherThread.submit(() -> tasks.complete(head)).get(10, TimeUnit.SECONDS)).isTrue();
			}
			catch (Exception ex) {
				throw new IllegalStateException(ex);
			}
		});
		assertThat(tasks.claim("q", 0, this.session, 10)).as("the key has no head").isEmpty();
		UUID later = offer("q", "k", 0);
		assertThat(tasks.claim("q", 0, this.session, 10)).as("a later enqueue goes behind it").isEmpty();
		assertThat(tasks.promoteOrphanedKeys(1000)).isOne();
		assertThat(claimOne("q").id()).isEqualTo(late[0]);
		assertThat(tasks.promoteOrphanedKeys(1000)).isZero();
		assertThat(later).isNotNull();
	}

	@Test
	void theSweepGoesOnFromWhereItStopped() {
		for (int i = 0; i < 5; i++) {
			jdbc.update("INSERT INTO taskqueue_task (id, queue, payload, ordering_key, ordering_seq, claimed_by) "
					+ "VALUES (?, 'q', '{}', ?, ?, '00000000-0000-0000-0000-000000000000')", UUID.randomUUID(),
					"k" + i, i);
		}
		assertThat(tasks.promoteOrphanedKeys(2)).isEqualTo(2);
		assertThat(tasks.promoteOrphanedKeys(2)).isEqualTo(2);
		assertThat(tasks.promoteOrphanedKeys(2)).isEqualTo(1);
		assertThat(tasks.promoteOrphanedKeys(2)).isZero();
		assertThat(tasks.claim("q", 0, this.session, 10)).hasSize(5);
	}

	@Test
	void aHotKeyDoesNotHoldUpColdKeys() {
		List<NewTask> hot = new ArrayList<>();
		for (int i = 0; i < 2000; i++) {
			hot.add(newTask("q", "hot", 10));
		}
		enqueue.offerAll(hot);
		List<UUID> cold = new ArrayList<>();
		for (int i = 0; i < 20; i++) {
			cold.add(offer("q", "cold-" + i, 0));
		}
		List<ClaimedTask> claimed = tasks.claim("q", 0, this.session, 21);
		assertThat(ids(claimed)).containsAll(cold).contains(hot.get(0).id()).hasSize(21);
		assertThat(heldCount("q")).isEqualTo(1999);
	}

	private static @Nullable Boolean committed(ClaimedTask task) {
		return transaction.execute((status) -> completionCommit.completePromotingAndCommit(task));
	}

	private static @Nullable Boolean committedLeavingHead(ClaimedTask task) {
		return transaction.execute((status) -> completionCommit.completeAndCommit(task));
	}

	/** The tasks held behind their keys, as the statistics of all queues and those of this one count them. */
	private long heldCount(String queue) {
		long held = operations.queueStats()
			.stream()
			.filter((s) -> s.queue().equals(queue))
			.findFirst()
			.orElseThrow()
			.waitingForKey();
		assertThat(operations.queueStats(queue).waitingForKey()).isEqualTo(held);
		return held;
	}

	private static int waitingOnLock() {
		jdbc.queryForObject("SELECT pg_stat_clear_snapshot()", Object.class); // read in a transaction: not cached
		return jdbc.queryForObject("SELECT count(*) FROM pg_stat_activity WHERE wait_event_type = 'Lock' "
				+ "AND datname = current_database()",
				Integer.class);
	}

	private ClaimedTask claimOne(String queue) {
		List<ClaimedTask> claimed = tasks.claim(queue, 0, this.session, 10);
		assertThat(claimed).hasSize(1);
		return claimed.get(0);
	}

	private static UUID offer(String queue, @Nullable String key, int priority) {
		return enqueue.offer(newTask(queue, key, priority)).id();
	}

	private static NewTask newTask(String queue, @Nullable String key, int priority) {
		return new NewTask(UUID.randomUUID(), queue, "{}", priority, null, null, "{}", null, false, key);
	}

	private static List<UUID> ids(List<ClaimedTask> claimed) {
		return claimed.stream().map(ClaimedTask::id).toList();
	}

}
