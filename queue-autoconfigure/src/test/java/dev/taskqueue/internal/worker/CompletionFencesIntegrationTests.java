package dev.taskqueue.internal.worker;

import java.time.Instant;
import java.util.Comparator;
import java.util.List;
import java.util.UUID;

import javax.sql.DataSource;

import dev.taskqueue.autoconfigure.TaskQueueSchemaMigrator;
import dev.taskqueue.internal.jdbc.EnqueueRepository;
import dev.taskqueue.internal.jdbc.EnqueueRepository.NewTask;
import dev.taskqueue.internal.jdbc.GenericPlans;
import dev.taskqueue.internal.jdbc.HotStatements;
import dev.taskqueue.internal.jdbc.TaskTables;
import dev.taskqueue.test.TestDatabase;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.jdbc.datasource.DataSourceTransactionManager;
import org.springframework.jdbc.datasource.DriverManagerDataSource;
import org.springframework.transaction.support.TransactionTemplate;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The fence of many completions in one statement: a task is deleted only while its own claim (attempt and session)
 * holds, with and without ordering keys, and the rows are found by primary key with no join, whatever the table's
 * statistics.
 */
class CompletionFencesIntegrationTests {

	private static final Instant PAST = Instant.parse("2020-01-01T00:00:00Z");

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
		enqueue = new EnqueueRepository(dataSource, tables);
		jdbc = new JdbcTemplate(dataSource);
		transaction = new TransactionTemplate(new DataSourceTransactionManager(dataSource));
	}

	@BeforeEach
	void emptyTables() {
		jdbc.execute("TRUNCATE taskqueue_task, taskqueue_session");
		new SessionRepository(dataSource, TaskTables.inSchema(null)).register(this.session, "test");
	}

	@Test
	void completeAllDeletesExactlyTheTasksWhoseOwnClaimHolds() {
		List<ClaimedTask> claimed = claimTasks(null);
		ClaimResult result = completeAll(claimed);
		assertThat(result.completed()).containsExactlyInAnyOrder(claimed.get(0).id(), claimed.get(3).id());
		assertThat(remaining()).containsExactlyInAnyOrder(claimed.get(1).id(), claimed.get(2).id());
	}

	@Test
	void completeAllOfTasksWithOrderingKeysDeletesExactlyTheTasksWhoseOwnClaimHolds() {
		List<ClaimedTask> claimed = claimTasks("k");
		ClaimResult result = completeAll(claimed);
		assertThat(result.completed()).containsExactlyInAnyOrder(claimed.get(0).id(), claimed.get(3).id());
		assertThat(remaining()).containsExactlyInAnyOrder(claimed.get(1).id(), claimed.get(2).id());
	}

	@Test
	void theFencedDeletesFindTheirRowsByPrimaryKeyWithoutAJoinOnATableNeverAnalyzed() {
		// Never analyzed, the planner takes any array for ten elements: the join with unnested arrays that this
		// replaced became a nested loop comparing every row with every completion (W6).
		jdbc.update("INSERT INTO taskqueue_task (id, queue, payload, claimed_by, attempt) "
				+ "SELECT gen_random_uuid(), 'q', '{}', ?, 1 FROM generate_series(1, 20000)", this.session);
		TaskTables tables = TaskTables.inSchema(null);
		String completeAll = "DELETE FROM taskqueue_task t WHERE " + CompletionFences.FENCED + " RETURNING t.id";
		String plan = GenericPlans.of(jdbc, completeAll);
		assertThat(plan).as(plan)
			.contains("taskqueue_task_pkey")
			.doesNotContain("taskqueue_task_claimed_idx")
			.doesNotContain("Join")
			.doesNotContain("Seq Scan")
			.as("the claims are a jsonb parameter, not text cast (parsed) for every row").doesNotContain("::jsonb");
		for (boolean ordered : List.of(false, true)) {
			HotStatements statements = new HotStatements(dataSource, jdbc.getExceptionTranslator());
			TaskClaims claims = ordered ? KeyStatements.handOffClaims(statements, tables, false, StorageDriver.POSTGRESQL)
					: new TaskClaims(statements, tables, false);
			String fold = GenericPlans.of(jdbc, claims.completeAndClaim);
			assertThat(fold).as(fold).contains("Bitmap Index Scan on taskqueue_task_pkey")
				.doesNotContain("Join Filter")
				.doesNotContain("Seq Scan on taskqueue_task");
		}
	}

	/**
	 * Four tasks (with ordering key {@code key}, each its own) claimed by the session, as the worker would complete
	 * them: the first and the last with their claims, the second with a later attempt, the third with another session.
	 */
	private List<ClaimedTask> claimTasks(@Nullable String key) {
		for (int i = 0; i < 4; i++) {
			NewTask task = new NewTask(UUID.randomUUID(), "q", "{}", 0, null, PAST.plusSeconds(i), "{}",
					(key != null) ? key + i : null, false);
			if (key != null) {
				enqueue.offer(task);
			}
			else {
				enqueue.insert(task);
			}
		}
		List<ClaimedTask> claimed = transaction.execute((status) -> tasks.claim("q", 0, this.session, 4))
			.stream()
			.sorted(Comparator.comparing(ClaimedTask::runAt))
			.toList();
		assertThat(claimed).hasSize(4);
		return List.of(claimed.get(0), withClaim(claimed.get(1), claimed.get(1).attempt() + 1, this.session),
				withClaim(claimed.get(2), claimed.get(2).attempt(), UUID.randomUUID()), claimed.get(3));
	}

	private ClaimResult completeAll(List<ClaimedTask> completions) {
		return transaction.execute((status) -> tasks.completeAll(this.session, completions, null));
	}

	private static List<UUID> remaining() {
		return jdbc.queryForList("SELECT id FROM taskqueue_task", UUID.class);
	}

	private static ClaimedTask withClaim(ClaimedTask task, int attempt, UUID claimedBy) {
		return new ClaimedTask(task.id(), task.queue(), task.payload(), task.priority(), attempt, task.enqueuedAt(),
				task.runAt(), task.claimedAt(), claimedBy, task.lastError(), task.headers(), task.orderingKey(),
				task.bucket());
	}

}
