package dev.taskqueue.internal.worker;

import java.time.Duration;
import java.util.List;
import java.util.UUID;

import javax.sql.DataSource;

import dev.taskqueue.autoconfigure.TaskQueueSchemaMigrator;
import dev.taskqueue.internal.jdbc.EnqueueRepository;
import dev.taskqueue.internal.jdbc.EnqueueRepository.NewTask;
import dev.taskqueue.internal.jdbc.TaskTables;
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
 * The keys a completion leaves to the claim loop in the {@link Mailbox}: taken by claims oldest first, and given their next head for any
 * claim when the loop does not claim for their queue (paused) or has ended, also for a completion that commits after.
 */
class MailboxKeysIntegrationTests {

	private static TaskRepository tasks;

	private static EnqueueRepository enqueue;

	private static SessionRepository sessions;

	private static JdbcTemplate jdbc;

	private static TransactionTemplate transactions;

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
		transactions = new TransactionTemplate(new DataSourceTransactionManager(dataSource));
	}

	@BeforeEach
	void emptyTables() {
		jdbc.execute("TRUNCATE taskqueue_task, taskqueue_session");
		sessions.register(this.session, "test");
	}

	@Test
	void keysWaitForAClaimOfTheirQueueAndGetTheirHeadWhenTheLoopDoesNotClaim() {
		Mailbox headless = new Mailbox(tasks, transactions, 10, Duration.ofMillis(10));
		UUID a2 = twoTasks("q", "a");
		UUID b2 = twoTasks("q", "b");
		UUID c2 = twoTasks("r", "c");
		headless.post(Completer.keysOf(completeHeads("q", 2)));
		headless.post(Completer.keysOf(completeHeads("r", 1)));
		assertThat(claimable("q")).as("held until a claim or promotion").isEmpty();
		assertThat(headless.takeKeys("q", 1)).containsExactly("a");
		headless.putBackKeys("q", List.of("a"));
		assertThat(headless.takeKeys("q", 5)).containsExactly("a", "b");
		headless.putBackKeys("q", List.of("a", "b"));
		headless.promoteKeys("q"); // paused: any instance may run them once resumed
		assertThat(headless.takeKeys("q", 5)).isEmpty();
		assertThat(claimable("q")).containsExactlyInAnyOrder(a2, b2);
		assertThat(claimable("r")).isEmpty();
		headless.closeKeys(); // the claim loop ended: what waits gets its head
		assertThat(claimable("r")).containsExactly(c2);
		jdbc.update("DELETE FROM taskqueue_task WHERE claimed_by IS NULL");
		UUID d2 = twoTasks("q", "d");
		headless.post(Completer.keysOf(completeHeads("q", 1))); // committed after the loop ended
		assertThat(claimable("q")).containsExactly(d2);
	}

	private static UUID twoTasks(String queue, String key) {
		enqueue.offer(new NewTask(UUID.randomUUID(), queue, "{}", 0, null, null, "{}", null, false, key));
		return enqueue.offer(new NewTask(UUID.randomUUID(), queue, "{}", 0, null, null, "{}", null, false, key)).id();
	}

	/** Claims {@code count} heads of {@code queue} and deletes them as a completion that leaves its keys does. */
	private List<ClaimedTask> completeHeads(String queue, int count) {
		List<ClaimedTask> heads = tasks.claim(TaskClaims.Request.of(queue, this.session, count)).claimed();
		assertThat(heads).hasSize(count);
		assertThat(tasks.completeAllLeavingHeads(this.session, heads)).hasSize(count);
		return heads;
	}

	private static List<UUID> claimable(String queue) {
		return jdbc.queryForList("SELECT id FROM taskqueue_task WHERE queue = ? AND claimed_by IS NULL", UUID.class,
				queue);
	}

}
