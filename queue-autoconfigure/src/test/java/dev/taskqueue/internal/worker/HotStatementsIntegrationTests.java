package dev.taskqueue.internal.worker;

import java.time.Instant;
import java.util.List;
import java.util.UUID;
import java.util.function.Consumer;

import com.zaxxer.hikari.HikariDataSource;
import dev.taskqueue.autoconfigure.TaskQueueSchemaMigrator;
import dev.taskqueue.internal.jdbc.EnqueueRepository;
import dev.taskqueue.internal.jdbc.EnqueueRepository.NewTask;
import dev.taskqueue.internal.jdbc.TaskTables;
import dev.taskqueue.test.TestDatabase;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import org.springframework.dao.DataAccessException;
import org.springframework.jdbc.BadSqlGrammarException;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.jdbc.datasource.DataSourceTransactionManager;
import org.springframework.jdbc.datasource.DriverManagerDataSource;
import org.springframework.transaction.TransactionTimedOutException;
import org.springframework.transaction.support.TransactionTemplate;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

/**
 * The plain-JDBC claims and completions behave as they did on {@code JdbcClient}: on the transaction's connection,
 * with its timeout, connection given back, errors translated as {@code JdbcTemplate} translates them. The pool has
 * one connection, so a statement that took a connection of its own inside a transaction, or kept one, fails.
 */
class HotStatementsIntegrationTests {

	private static final Instant PAST = Instant.parse("2020-01-01T00:00:00Z");

	private static HikariDataSource dataSource;

	private static TaskRepository tasks;

	private static EnqueueRepository enqueue;

	private static JdbcTemplate jdbc;

	private static DataSourceTransactionManager transactionManager;

	private final UUID session = UUID.randomUUID();

	@BeforeAll
	static void migrate() {
		String url = TestDatabase.createDatabase();
		TaskTables tables = TaskTables.inSchema(null);
		new TaskQueueSchemaMigrator(new DriverManagerDataSource(url), tables).afterPropertiesSet();
		dataSource = new HikariDataSource();
		dataSource.setJdbcUrl(url);
		dataSource.setMaximumPoolSize(1);
		dataSource.setConnectionTimeout(1000);
		tasks = new TaskRepository(dataSource, tables);
		enqueue = new EnqueueRepository(dataSource, tables);
		jdbc = new JdbcTemplate(dataSource);
		transactionManager = new DataSourceTransactionManager(dataSource);
	}

	@AfterAll
	static void closePool() {
		dataSource.close();
	}

	@BeforeEach
	void emptyTables() {
		jdbc.execute("TRUNCATE taskqueue_task, taskqueue_session");
		new SessionRepository(dataSource, TaskTables.inSchema(null)).register(this.session, "test");
	}

	@Test
	void claimAndCompleteRunOnTheTransactionsConnection() {
		UUID id = insert();
		new TransactionTemplate(transactionManager).executeWithoutResult((status) -> {
			ClaimedTask task = tasks.claim("q", 0, this.session, 10).get(0);
			assertThat(tasks.complete(task)).isTrue();
			assertThat(jdbc.queryForObject("SELECT count(*) FROM taskqueue_task", Integer.class)).isZero();
			status.setRollbackOnly();
		});
		assertThat(jdbc.queryForObject("SELECT attempt FROM taskqueue_task WHERE id = ?", Integer.class, id))
			.as("claim and completion rolled back with the transaction")
			.isZero();
		new TransactionTemplate(transactionManager).executeWithoutResult((status) -> {
			List<ClaimedTask> claimed = tasks.claimAfter("q", 0, this.session, 10, 0, PAST, new UUID(0, 0));
			assertThat(tasks.completeAll(this.session, claimed)).containsExactly(id);
			status.setRollbackOnly();
		});
		assertThat(jdbc.queryForObject("SELECT attempt FROM taskqueue_task WHERE id = ?", Integer.class, id)).isZero();
	}

	@Test
	void errorsAreTranslatedAsJdbcTemplateTranslatesThemAndTheConnectionIsGivenBack() {
		DataAccessException expected = catchThrowableOfType(DataAccessException.class,
				() -> jdbc.queryForList("SELECT 1 LIMIT ?", -1));
		// A row to claim: on an empty table that was never analyzed, the planner may scan it without ever
		// evaluating the claim's LIMIT.
		insert();
		for (int i = 0; i < 3; i++) {
			DataAccessException actual = catchThrowableOfType(DataAccessException.class,
					() -> tasks.claim("q", 0, this.session, -1));
			assertThat(actual).isExactlyInstanceOf(expected.getClass());
			assertThat(actual.getMessage()).startsWith("PreparedStatementCallback; ")
				.contains("LIMIT must not be negative");
		}
		TaskRepository missingSchema = new TaskRepository(dataSource, TaskTables.inSchema("no_such_schema"));
		ClaimedTask task = new ClaimedTask(UUID.randomUUID(), "q", "{}", 0, 1, PAST, PAST, PAST, this.session, null);
		List<Consumer<TaskRepository>> statements = List.of((repository) -> repository.claim("q", 0, this.session, 1),
				(repository) -> repository.claimAfter("q", 0, this.session, 1, 0, PAST, task.id()),
				(repository) -> repository.complete(task),
				(repository) -> repository.completeAll(this.session, List.of(task)));
		for (Consumer<TaskRepository> statement : statements) {
			assertThatExceptionOfType(BadSqlGrammarException.class).isThrownBy(() -> statement.accept(missingSchema))
				.withMessageContaining("no_such_schema");
		}
		assertThat(jdbc.queryForObject("SELECT 1", Integer.class)).as("the pool's one connection is back").isOne();
	}

	@Test
	void statementsGetTheTransactionsTimeout() {
		insert();
		TransactionTemplate oneSecond = new TransactionTemplate(transactionManager);
		oneSecond.setTimeout(1);
		assertThatExceptionOfType(TransactionTimedOutException.class)
			.isThrownBy(() -> oneSecond.executeWithoutResult((status) -> {
				sleep(1100);
				tasks.claim("q", 0, this.session, 10);
			}));
		assertThat(jdbc.queryForObject("SELECT attempt FROM taskqueue_task", Integer.class)).isZero();
	}

	private static UUID insert() {
		UUID id = UUID.randomUUID();
		enqueue.insert(new NewTask(id, "q", "{}", 0, null, PAST));
		return id;
	}

	private static void sleep(long millis) {
		try {
			Thread.sleep(millis);
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			throw new AssertionError(ex);
		}
	}

}
