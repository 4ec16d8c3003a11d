package dev.taskqueue.internal.worker;

import java.time.Duration;
import java.util.List;
import java.util.UUID;

import javax.sql.DataSource;

import dev.taskqueue.EnqueueResult;
import dev.taskqueue.TaskQueueListener;
import dev.taskqueue.TaskRequest;
import dev.taskqueue.UniqueMode;
import dev.taskqueue.autoconfigure.TaskQueueSchemaMigrator;
import dev.taskqueue.internal.jdbc.EnqueueRepository;
import dev.taskqueue.internal.producer.DefaultTaskQueue;
import dev.taskqueue.internal.jdbc.TaskTables;
import dev.taskqueue.test.TestDatabase;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.json.JsonMapper;

import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.jdbc.datasource.DataSourceTransactionManager;
import org.springframework.jdbc.datasource.DriverManagerDataSource;
import org.springframework.transaction.support.TransactionTemplate;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

/**
 * Unique keys on a real PostgreSQL, one task state after the other: what KEEP and REPLACE do while a task with the
 * key waits, is scheduled, runs, waits to retry, and after it completes or goes to the dead letters. Concurrent
 * transactions: {@link ConcurrentUniqueTasksIntegrationTests}.
 */
class UniqueTasksIntegrationTests {

	private static final UUID SESSION = UUID.randomUUID();

	static DataSource dataSource;

	static JdbcTemplate jdbc;

	static TransactionTemplate transaction;

	static DefaultTaskQueue queue;

	static TaskRepository tasks;

	@BeforeAll
	static void migrate() {
		dataSource = new DriverManagerDataSource(TestDatabase.createDatabase());
		TaskTables tables = TaskTables.inSchema(null);
		new TaskQueueSchemaMigrator(dataSource, tables).afterPropertiesSet();
		jdbc = new JdbcTemplate(dataSource);
		transaction = new TransactionTemplate(new DataSourceTransactionManager(dataSource));
		queue = new DefaultTaskQueue(new EnqueueRepository(dataSource, tables, "taskqueue_unique_tests"),
				JsonMapper.builder().build(), new TaskQueueListener() {
				});
		tasks = new TaskRepository(dataSource, tables);
		new SessionRepository(dataSource, tables).register(SESSION, "unique-tests");
	}

	@BeforeEach
	void emptyTables() {
		jdbc.execute("TRUNCATE taskqueue_task, taskqueue_dead_task");
	}

	@Test
	void keepReturnsTheWaitingOrScheduledTaskAndAddsNothing() {
		EnqueueResult first = queue.offer(TaskRequest.of("q", "first").withUniqueKey("k"));
		EnqueueResult second = queue.offer(TaskRequest.of("q", "second").withUniqueKey("k"));
		UUID scheduled = queue.enqueue(TaskRequest.of("q", "later").withDelay(Duration.ofHours(1)).withUniqueKey("s"));
		assertThat(first.duplicate()).isFalse();
		assertThat(second).isEqualTo(new EnqueueResult(first.id(), true));
		assertThat(queue.enqueue(TaskRequest.of("q", "again").withUniqueKey("s"))).isEqualTo(scheduled);
		assertThat(payloads()).containsExactly("\"first\"", "\"later\"");
	}

	@Test
	void keysArePerQueueAndTasksWithoutAKeyAreNeverDuplicates() {
		UUID a = queue.enqueue(TaskRequest.of("a", 1).withUniqueKey("k"));
		UUID b = queue.enqueue(TaskRequest.of("b", 2).withUniqueKey("k"));
		EnqueueResult keyless = queue.offer(TaskRequest.of("a", 3));
		assertThat(a).isNotEqualTo(b);
		assertThat(keyless.duplicate()).isFalse();
		queue.enqueue(TaskRequest.of("a", 3));
		assertThat(count()).isEqualTo(4);
	}

	@Test
	void keepHoldsTheKeyWhileRunningAndWaitingToRetryAndFreesItOnCompletion() {
		UUID id = queue.enqueue(TaskRequest.of("q", "v1").withUniqueKey("k"));
		ClaimedTask running = claimOne();
		assertThat(queue.offer(TaskRequest.of("q", "v2").withUniqueKey("k"))).isEqualTo(new EnqueueResult(id, true));
		assertThat(tasks.retryLater(running, Duration.ofHours(1), "failed")).isTrue();
		assertThat(queue.offer(TaskRequest.of("q", "v3").withUniqueKey("k"))).isEqualTo(new EnqueueResult(id, true));
		jdbc.update("UPDATE taskqueue_task SET run_at = now()");
		assertThat(tasks.complete(claimOne())).isTrue();
		EnqueueResult after = queue.offer(TaskRequest.of("q", "v4").withUniqueKey("k"));
		assertThat(after.duplicate()).isFalse();
		assertThat(after.id()).isNotEqualTo(id);
		assertThat(payloads()).containsExactly("\"v4\"");
	}

	@Test
	void aDeadTaskDoesNotHoldItsKey() {
		UUID id = queue.enqueue(TaskRequest.of("q", "v1").withUniqueKey("k"));
		assertThat(tasks.moveToDead(claimOne(), "gave up")).isTrue();
		EnqueueResult after = queue.offer(TaskRequest.of("q", "v2").withUniqueKey("k"));
		assertThat(after.duplicate()).isFalse();
		assertThat(after.id()).isNotEqualTo(id);
		assertThat(count()).isEqualTo(1);
	}

	@Test
	void replaceDebouncesAWaitingTask() {
		List<EnqueueResult> results = List.of(offerReplacing("v1", 1, Duration.ofSeconds(10)),
				offerReplacing("v2", 2, Duration.ofSeconds(20)), offerReplacing("v3", 3, Duration.ofSeconds(30)));
		assertThat(results).extracting(EnqueueResult::id).containsOnly(results.get(0).id());
		assertThat(results).extracting(EnqueueResult::duplicate).containsExactly(false, true, true);
		assertThat(payloads()).containsExactly("\"v3\"");
		assertThat(jdbc.queryForObject("SELECT priority FROM taskqueue_task", Integer.class)).isEqualTo(3);
		// Later than v2's 20 s could be, with ten seconds of room for a loaded machine between the offer and the read.
		assertThat(jdbc.queryForObject("SELECT run_at > now() + interval '20 seconds' "
				+ "AND run_at <= now() + interval '30 seconds' FROM taskqueue_task", Boolean.class)).isTrue();
	}

	@Test
	void replaceWhileTheTaskRunsAddsOneAfterIt() {
		UUID first = offerReplacing("v1", 0, Duration.ZERO).id();
		ClaimedTask running = claimOne();
		EnqueueResult second = offerReplacing("v2", 0, Duration.ofHours(1));
		EnqueueResult third = offerReplacing("v3", 0, Duration.ofHours(1));
		assertThat(second.duplicate()).isFalse();
		assertThat(second.id()).isNotEqualTo(first);
		assertThat(third).isEqualTo(new EnqueueResult(second.id(), true));
		// The running task going back to waiting (retry, or a release) meets the new one's key without a conflict.
		assertThat(tasks.retryLater(running, Duration.ofHours(1), "failed")).isTrue();
		assertThat(payloads()).containsExactly("\"v1\"", "\"v3\"");
		assertThat(queue.offer(TaskRequest.of("q", "kept").withUniqueKey("k")).id()).isIn(first, second.id());
	}

	@Test
	void releasingAnUnstartedKeyedTaskKeepsItsAttemptSoItNeverMeetsANewerOne() {
		offerReplacing("v1", 0, Duration.ZERO);
		ClaimedTask claimed = claimOne();
		UUID second = offerReplacing("v2", 0, Duration.ZERO).id();
		assertThat(tasks.releaseUnstarted(List.of(claimed.id()), SESSION)).isOne();
		assertThat(jdbc.queryForObject("SELECT attempt FROM taskqueue_task WHERE id = ?", Integer.class, claimed.id()))
			.isOne();
		assertThat(offerReplacing("v3", 0, Duration.ZERO)).isEqualTo(new EnqueueResult(second, true));
		UUID keyless = queue.enqueue("q", "x");
		jdbc.update("UPDATE taskqueue_task SET claimed_by = ?, attempt = 1 WHERE id = ?", SESSION, keyless);
		tasks.releaseUnstarted(List.of(keyless), SESSION);
		assertThat(jdbc.queryForObject("SELECT attempt FROM taskqueue_task WHERE id = ?", Integer.class, keyless))
			.isZero();
	}

	@Test
	void keepFindsARunningTaskEnqueuedWithReplace() {
		UUID id = offerReplacing("v1", 0, Duration.ZERO).id();
		claimOne();
		assertThat(queue.offer(TaskRequest.of("q", "v2").withUniqueKey("k"))).isEqualTo(new EnqueueResult(id, true));
		assertThat(count()).isOne();
	}

	@Test
	void enqueueAllDeduplicatesWithinTheListAndAgainstTheTable() {
		UUID existing = queue.enqueue(TaskRequest.of("q", "old").withUniqueKey("a"));
		UUID waiting = queue.enqueue(TaskRequest.of("q", "old c").withUniqueKey("c", UniqueMode.REPLACE));
		List<EnqueueResult> results = queue.offerAll(List.of(TaskRequest.of("q", "a").withUniqueKey("a"),
				TaskRequest.of("q", "b1").withUniqueKey("b"), TaskRequest.of("q", "b2").withUniqueKey("b"),
				TaskRequest.of("q", "none"), TaskRequest.of("q", "c1").withUniqueKey("c", UniqueMode.REPLACE),
				TaskRequest.of("q", "c2").withUniqueKey("c", UniqueMode.REPLACE),
				TaskRequest.of("q", "d1").withUniqueKey("d", UniqueMode.REPLACE),
				TaskRequest.of("q", "d2").withUniqueKey("d", UniqueMode.REPLACE)));
		assertThat(results.get(0)).isEqualTo(new EnqueueResult(existing, true));
		assertThat(results.get(1).duplicate()).isFalse();
		assertThat(results.get(2)).isEqualTo(new EnqueueResult(results.get(1).id(), true));
		assertThat(results.get(3).duplicate()).isFalse();
		assertThat(results.get(4)).isEqualTo(new EnqueueResult(waiting, true));
		assertThat(results.get(5)).isEqualTo(new EnqueueResult(waiting, true));
		assertThat(results.get(6).duplicate()).isFalse();
		assertThat(results.get(7)).isEqualTo(new EnqueueResult(results.get(6).id(), true));
		assertThat(payloads()).containsExactlyInAnyOrder("\"old\"", "\"b1\"", "\"none\"", "\"c2\"", "\"d2\"");
		assertThat(queue.enqueueAll(List.of(TaskRequest.of("q", "b3").withUniqueKey("b"))))
			.containsExactly(results.get(1).id());
	}

	@Test
	void enqueueAllAddsATaskAfterARunningOneWithReplaceAndFindsItWithKeep() {
		UUID running = offerReplacing("v1", 0, Duration.ZERO).id();
		claimOne();
		List<EnqueueResult> replaced = queue.offerAll(List.of(
				TaskRequest.of("q", "v2").withUniqueKey("k", UniqueMode.REPLACE),
				TaskRequest.of("q", "v3").withUniqueKey("k", UniqueMode.REPLACE)));
		assertThat(replaced.get(0).duplicate()).isFalse();
		assertThat(replaced.get(0).id()).isNotEqualTo(running);
		assertThat(replaced.get(1)).isEqualTo(new EnqueueResult(replaced.get(0).id(), true));
		List<EnqueueResult> kept = queue.offerAll(List.of(TaskRequest.of("q", "v4").withUniqueKey("k")));
		assertThat(kept.get(0).duplicate()).isTrue();
		assertThat(payloads()).containsExactly("\"v1\"", "\"v3\"");
	}

	@Test
	void oneListMustNotUseAKeyWithTwoModes() {
		assertThatIllegalArgumentException()
			.isThrownBy(() -> queue.enqueueAll(List.of(TaskRequest.of("q", 1).withUniqueKey("k"),
					TaskRequest.of("q", 2), TaskRequest.of("q", 3).withUniqueKey("k", UniqueMode.REPLACE))))
			.withMessage("requests[2] has unique key 'k' of queue 'q' with mode REPLACE but requests[0] has it with "
					+ "mode KEEP: one list must use one mode per key");
		assertThat(count()).isZero();
	}

	@Test
	void aRolledBackTaskDoesNotHoldItsKey() {
		transaction.executeWithoutResult((status) -> {
			queue.enqueue(TaskRequest.of("q", "rolled back").withUniqueKey("k"));
			status.setRollbackOnly();
		});
		EnqueueResult result = queue.offer(TaskRequest.of("q", "kept").withUniqueKey("k"));
		assertThat(result.duplicate()).isFalse();
		assertThat(payloads()).containsExactly("\"kept\"");
	}

	private static EnqueueResult offerReplacing(String payload, int priority, Duration delay) {
		return queue.offer(
				TaskRequest.of("q", payload).withPriority(priority).withDelay(delay).withUniqueKey("k", UniqueMode.REPLACE));
	}

	private static ClaimedTask claimOne() {
		List<ClaimedTask> claimed = tasks.claim(TaskClaims.Request.of("q", SESSION, 1)).claimed();
		assertThat(claimed).hasSize(1);
		return claimed.get(0);
	}

	private static List<String> payloads() {
		return jdbc.queryForList("SELECT payload::text FROM taskqueue_task ORDER BY id", String.class);
	}

	private static int count() {
		return jdbc.queryForObject("SELECT count(*) FROM taskqueue_task", Integer.class);
	}

}
