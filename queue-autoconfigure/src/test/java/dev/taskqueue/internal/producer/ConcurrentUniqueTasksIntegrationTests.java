package dev.taskqueue.internal.producer;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.function.IntFunction;
import java.util.stream.IntStream;

import dev.taskqueue.EnqueueResult;
import dev.taskqueue.TaskQueueListener;
import dev.taskqueue.TaskRequest;
import dev.taskqueue.UniqueMode;
import dev.taskqueue.autoconfigure.TaskQueueSchemaMigrator;
import dev.taskqueue.internal.jdbc.EnqueueRepository;
import dev.taskqueue.internal.jdbc.TaskTables;
import dev.taskqueue.test.TestDatabase;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.postgresql.PGConnection;
import org.postgresql.PGNotification;
import tools.jackson.databind.json.JsonMapper;

import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.jdbc.datasource.DataSourceTransactionManager;
import org.springframework.jdbc.datasource.DriverManagerDataSource;
import org.springframework.transaction.support.TransactionTemplate;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Concurrent transactions enqueueing the same keys, each in a transaction of its own that stays open a while after
 * the enqueue: exactly one task per key, and none of them fails.
 */
class ConcurrentUniqueTasksIntegrationTests {

	private static final int THREADS = 8;

	private static final String CHANNEL = "taskqueue_unique_concurrency";

	static String url;

	static JdbcTemplate jdbc;

	static TransactionTemplate transaction;

	static DefaultTaskQueue queue;

	static ExecutorService threads;

	@BeforeAll
	static void migrate() {
		url = TestDatabase.createDatabase();
		DriverManagerDataSource dataSource = new DriverManagerDataSource(url);
		TaskTables tables = TaskTables.inSchema(null);
		new TaskQueueSchemaMigrator(dataSource, tables).afterPropertiesSet();
		jdbc = new JdbcTemplate(dataSource);
		transaction = new TransactionTemplate(new DataSourceTransactionManager(dataSource));
		queue = new DefaultTaskQueue(new EnqueueRepository(dataSource, tables, CHANNEL), JsonMapper.builder().build(),
				new TaskQueueListener() {
				});
		threads = Executors.newFixedThreadPool(THREADS);
	}

	@AfterAll
	static void stop() {
		threads.shutdownNow();
	}

	@BeforeEach
	void emptyTable() {
		jdbc.execute("TRUNCATE taskqueue_task");
	}

	@Test
	void concurrentKeepsOfOneKeyEndWithOneTask() throws Exception {
		List<EnqueueResult> results = inConcurrentTransactions(
				(i) -> List.of(TaskRequest.of("q", "from " + i).withUniqueKey("k")));
		assertThat(results).extracting(EnqueueResult::id).containsOnly(results.get(0).id());
		assertThat(results).filteredOn((result) -> !result.duplicate()).hasSize(1);
		assertThat(jdbc.queryForObject("SELECT count(*) FROM taskqueue_task", Integer.class)).isOne();
	}

	@Test
	void concurrentReplacesOfOneKeyEndWithOneTaskWithOneOfTheirPayloads() throws Exception {
		List<EnqueueResult> results = inConcurrentTransactions(
				(i) -> List.of(TaskRequest.of("q", "from " + i).withUniqueKey("k", UniqueMode.REPLACE)));
		assertThat(results).extracting(EnqueueResult::id).containsOnly(results.get(0).id());
		assertThat(results).filteredOn((result) -> !result.duplicate()).hasSize(1);
		assertThat(jdbc.queryForList("SELECT payload #>> '{}' FROM taskqueue_task", String.class)).singleElement()
			.asString()
			.startsWith("from ");
	}

	@Test
	void concurrentListsOfTheSameKeysInAnyOrderEndWithOneTaskPerKey() throws Exception {
		List<EnqueueResult> results = inConcurrentTransactions((i) -> {
			List<TaskRequest> requests = new ArrayList<>(IntStream.range(0, 20)
				.mapToObj((k) -> TaskRequest.of("q", k).withUniqueKey("k" + k))
				.toList());
			Collections.shuffle(requests);
			return requests;
		});
		assertThat(results).hasSize(THREADS * 20);
		assertThat(results).filteredOn((result) -> !result.duplicate()).hasSize(20);
		assertThat(results.stream().map(EnqueueResult::id).distinct())
			.containsExactlyInAnyOrderElementsOf(jdbc.queryForList("SELECT id FROM taskqueue_task", UUID.class));
		assertThat(jdbc.queryForObject("SELECT count(DISTINCT unique_key) FROM taskqueue_task", Integer.class))
			.isEqualTo(20);
		assertThat(jdbc.queryForObject("SELECT count(*) FROM taskqueue_task", Integer.class)).isEqualTo(20);
	}

	@Test
	void aKeyWaitedForIsFreeWhenItsTransactionRollsBack() throws Exception {
		CountDownLatch inserted = new CountDownLatch(1);
		CountDownLatch rollBack = new CountDownLatch(1);
		Future<?> first = threads.submit(() -> transaction.executeWithoutResult((status) -> {
			queue.enqueue(TaskRequest.of("q", "rolled back").withUniqueKey("k"));
			inserted.countDown();
			await(rollBack);
			status.setRollbackOnly();
		}));
		assertThat(inserted.await(20, TimeUnit.SECONDS)).isTrue();
		Future<EnqueueResult> second = threads.submit(() -> queue.offer(TaskRequest.of("q", "kept").withUniqueKey("k")));
		Thread.sleep(200);
		assertThat(second).isNotDone();
		rollBack.countDown();
		first.get(20, TimeUnit.SECONDS);
		EnqueueResult kept = second.get(20, TimeUnit.SECONDS);
		assertThat(kept.duplicate()).isFalse();
		assertThat(jdbc.queryForList("SELECT id FROM taskqueue_task", UUID.class)).containsExactly(kept.id());
	}

	@Test
	void aReplaceWaitingForAClaimAddsATaskAfterTheClaimedOne() throws Exception {
		UUID claimed = queue.enqueue(TaskRequest.of("q", "v1").withUniqueKey("k", UniqueMode.REPLACE));
		EnqueueResult replace = whileClaimIsOpen(true, true,
				() -> queue.offer(TaskRequest.of("q", "v2").withUniqueKey("k", UniqueMode.REPLACE)));
		assertThat(replace.duplicate()).isFalse();
		assertThat(replace.id()).isNotEqualTo(claimed);
		assertThat(jdbc.queryForList("SELECT payload #>> '{}' FROM taskqueue_task ORDER BY id", String.class))
			.containsExactly("v1", "v2");
	}

	@Test
	void aReplaceWaitingForAClaimThatRollsBackReplacesTheTask() throws Exception {
		UUID waiting = queue.enqueue(TaskRequest.of("q", "v1").withUniqueKey("k", UniqueMode.REPLACE));
		EnqueueResult replace = whileClaimIsOpen(false, true,
				() -> queue.offer(TaskRequest.of("q", "v2").withUniqueKey("k", UniqueMode.REPLACE)));
		assertThat(replace).isEqualTo(new EnqueueResult(waiting, true));
		assertThat(jdbc.queryForList("SELECT payload #>> '{}' FROM taskqueue_task", String.class)).containsExactly("v2");
	}

	@Test
	void aKeepDuringAClaimFindsTheTaskWithoutWaiting() throws Exception {
		UUID claimed = queue.enqueue(TaskRequest.of("q", "v1").withUniqueKey("k"));
		EnqueueResult keep = whileClaimIsOpen(true, false,
				() -> queue.offer(TaskRequest.of("q", "v2").withUniqueKey("k")));
		assertThat(keep).isEqualTo(new EnqueueResult(claimed, true));
		assertThat(jdbc.queryForObject("SELECT count(*) FROM taskqueue_task", Integer.class)).isOne();
	}

	/**
	 * Runs {@code enqueue} while another transaction has claimed the only task (as the claim statement does) and not
	 * committed yet; checks whether the enqueue waits for it, then commits or rolls back the claim.
	 */
	private static EnqueueResult whileClaimIsOpen(boolean commit, boolean waits, Callable<EnqueueResult> enqueue)
			throws Exception {
		CountDownLatch claimedLatch = new CountDownLatch(1);
		CountDownLatch end = new CountDownLatch(1);
		Future<?> claim = threads.submit(() -> transaction.executeWithoutResult((status) -> {
			jdbc.update("UPDATE taskqueue_task SET claimed_by = ?, claimed_at = now(), attempt = attempt + 1",
					UUID.randomUUID());
			claimedLatch.countDown();
			await(end);
			if (!commit) {
				status.setRollbackOnly();
			}
		}));
		assertThat(claimedLatch.await(20, TimeUnit.SECONDS)).isTrue();
		Future<EnqueueResult> result = threads.submit(enqueue);
		if (waits) {
			Thread.sleep(200);
			assertThat(result).isNotDone();
		}
		else {
			result.get(20, TimeUnit.SECONDS);
		}
		end.countDown();
		claim.get(20, TimeUnit.SECONDS);
		return result.get(20, TimeUnit.SECONDS);
	}

	@Test
	void aTaskAddedOrReplacedWakesWorkersAndADuplicateDoesNot() throws Exception {
		try (Connection listener = DriverManager.getConnection(url); Statement statement = listener.createStatement()) {
			statement.execute("LISTEN " + CHANNEL);
			queue.enqueue(TaskRequest.of("q", 1).withUniqueKey("k"));
			assertThat(notifications(listener)).isOne();
			queue.enqueue(TaskRequest.of("q", 2).withUniqueKey("k"));
			assertThat(notifications(listener)).isZero();
			queue.enqueue(TaskRequest.of("q", 3).withUniqueKey("k", UniqueMode.REPLACE));
			assertThat(notifications(listener)).isOne();
			queue.enqueueAll(List.of(TaskRequest.of("q", 4).withUniqueKey("k")));
			assertThat(notifications(listener)).isZero();
			queue.enqueueAll(List.of(TaskRequest.of("q", 5).withUniqueKey("k", UniqueMode.REPLACE)));
			assertThat(notifications(listener)).isOne();
		}
	}

	private static int notifications(Connection listener) throws Exception {
		try (Statement statement = listener.createStatement()) {
			statement.execute("SELECT 1");
		}
		PGNotification[] received = listener.unwrap(PGConnection.class).getNotifications(500);
		return (received != null) ? received.length : 0;
	}

	/** Runs THREADS transactions that start together, enqueue and hold on to their locks for a while. */
	private static List<EnqueueResult> inConcurrentTransactions(IntFunction<List<TaskRequest>> requests)
			throws Exception {
		CyclicBarrier start = new CyclicBarrier(THREADS);
		List<Future<List<EnqueueResult>>> futures = new ArrayList<>();
		for (int i = 0; i < THREADS; i++) {
			List<TaskRequest> mine = requests.apply(i);
			futures.add(threads.submit(() -> {
				start.await(20, TimeUnit.SECONDS);
				return transaction.execute((status) -> {
					List<EnqueueResult> results = (mine.size() == 1) ? List.of(queue.offer(mine.get(0)))
							: queue.offerAll(mine);
					sleep(100);
					return results;
				});
			}));
		}
		List<EnqueueResult> all = new ArrayList<>();
		for (Future<List<EnqueueResult>> future : futures) {
			all.addAll(future.get(60, TimeUnit.SECONDS));
		}
		return all;
	}

	private static void sleep(long millis) {
		try {
			Thread.sleep(millis);
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
		}
	}

	private static void await(CountDownLatch latch) {
		try {
			latch.await(20, TimeUnit.SECONDS);
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
		}
	}

}
