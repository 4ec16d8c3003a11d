package dev.taskqueue.internal.worker;

import java.util.List;
import java.util.UUID;
import java.util.function.Function;

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
import org.springframework.jdbc.datasource.SingleConnectionDataSource;
import org.springframework.transaction.support.TransactionTemplate;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The claim of a fairness key found beside the one key a queue claims in its order sets {@code synchronous_commit}
 * off for its transaction, so that its commit does not wait for the disk, and for that transaction only: the pooled
 * connection keeps its setting for the next statement. The queue's own claims leave it alone. Read in a transaction
 * around each claim, on one connection, which is where an autocommit claim's own transaction would commit.
 */
class ClaimCommitIntegrationTests {

	private static SingleConnectionDataSource dataSource;

	private static TaskRepository tasks;

	private static EnqueueRepository enqueue;

	private static JdbcTemplate jdbc;

	private static TransactionTemplate transaction;

	private final UUID session = UUID.randomUUID();

	@BeforeAll
	static void migrate() {
		dataSource = new SingleConnectionDataSource(TestDatabase.createDatabase(), true);
		TaskTables tables = TaskTables.inSchema(null);
		new TaskQueueSchemaMigrator(dataSource, tables).afterPropertiesSet();
		tasks = new TaskRepository(dataSource, tables);
		enqueue = new EnqueueRepository(dataSource, tables);
		jdbc = new JdbcTemplate(dataSource);
		// The test databases run with it off; the setting a claim must leave as it found it is the connection's.
		jdbc.execute("SET synchronous_commit = on");
		transaction = new TransactionTemplate(new DataSourceTransactionManager(dataSource));
	}

	@AfterAll
	static void close() {
		dataSource.destroy();
	}

	@BeforeEach
	void tasksAndSession() {
		jdbc.execute("TRUNCATE taskqueue_task, taskqueue_session");
		new SessionRepository(dataSource, TaskTables.inSchema(null)).register(this.session, "test");
		for (int i = 0; i < 20; i++) {
			enqueue.offer(new NewTask(UUID.randomUUID(), "q", "{}", 0, null, null, "{}", null, false, null,
					"tenant-" + (i % 2)));
		}
	}

	@Test
	void theClaimOfAKeyBesideTheOneKeyCommitsWithoutWaitingForTheDisk() {
		assertThat(settingAfter((request) -> tasks.claimKey("q", "tenant-1", this.session, 2), plain(2)))
			.isEqualTo("off");
		assertThat(jdbc.queryForObject("SELECT count(*) FROM taskqueue_task WHERE claimed_by IS NOT NULL",
				Integer.class))
			.isEqualTo(2);
		assertThat(setting()).as("the connection's own setting, once the claim's transaction ended").isEqualTo("on");
	}

	@Test
	void theQueuesOwnClaimsCommitAsTheirTransactionSays() {
		// Measured: without the flush the claim loop claimed more often, in smaller claims, and TRANSACTIONAL drained
		// no faster (docs/performance.md); the wait for the disk batches the claims.
		assertThat(settingAfter((request) -> tasks.claim(request).claimed(), plain(2))).isEqualTo("on");
		assertThat(settingAfter((request) -> tasks.claim(request).claimed(),
				TaskClaims.Request.of("q", this.session, 2)))
			.isEqualTo("on");
		assertThat(settingAfter((request) -> tasks.claim(new TaskClaims.Request("q", this.session, 0,
				TaskClaims.Request.Reach.BUCKET, null, 2, List.of(), List.of(), 0, "")).claimed(), plain(2)))
			.isEqualTo("on");
		List<ClaimedTask> done = claimedOutside(2);
		assertThat(settingAfter((request) -> tasks.claim(new TaskClaims.Request("q", this.session, 0,
				TaskClaims.Request.Reach.BUCKET, null, 2, done, List.of(), 0)).claimed(), plain(2))).isEqualTo("on");
		assertThat(jdbc.queryForObject("SELECT count(*) FROM taskqueue_task", Integer.class))
			.as("the two tasks completed in the fold are gone")
			.isEqualTo(18);
	}

	@Test
	void anAutocommitClaimOfAKeyLeavesTheConnectionsSettingAsItWas() {
		assertThat(tasks.claimKey("q", "tenant-0", this.session, 3)).hasSize(3);
		assertThat(setting()).isEqualTo("on");
	}

	private TaskClaims.Request plain(int limit) {
		return new TaskClaims.Request("q", this.session, 0, TaskClaims.Request.Reach.BUCKET, null, limit, List.of(),
				List.of(), 0);
	}

	private List<ClaimedTask> claimedOutside(int limit) {
		List<ClaimedTask> claimed = tasks.claim(plain(limit)).claimed();
		assertThat(claimed).hasSize(limit);
		return claimed;
	}

	/** {@code synchronous_commit} as the transaction of {@code claim} would commit with it, after the claim. */
	private static String settingAfter(Function<TaskClaims.Request, List<ClaimedTask>> claim,
			TaskClaims.Request request) {
		return transaction.execute((status) -> {
			assertThat(setting()).isEqualTo("on");
			assertThat(claim.apply(request)).isNotEmpty();
			return setting();
		});
	}

	private static String setting() {
		return jdbc.queryForObject("SHOW synchronous_commit", String.class);
	}

}
