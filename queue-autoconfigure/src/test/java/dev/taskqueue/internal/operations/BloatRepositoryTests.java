package dev.taskqueue.internal.operations;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import java.util.List;

import javax.sql.DataSource;

import dev.taskqueue.autoconfigure.TaskQueueSchemaMigrator;
import dev.taskqueue.internal.jdbc.TaskTables;
import dev.taskqueue.internal.operations.BloatRepository.Holder;
import dev.taskqueue.internal.operations.BloatRepository.Reading;
import dev.taskqueue.internal.operations.BloatRepository.Table;
import dev.taskqueue.test.Await;
import dev.taskqueue.test.TestDatabase;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import org.springframework.jdbc.core.simple.JdbcClient;
import org.springframework.jdbc.datasource.DriverManagerDataSource;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The bloat statement on a real PostgreSQL, with autovacuum off for the table (so the count stays until read; the
 * machine's server may have autovacuum off altogether, which changes nothing here): dead rows counted exactly, and
 * the session that holds the xmin horizon named by its pid, then gone once it lets go.
 */
class BloatRepositoryTests {

	private static final Duration WAIT = Duration.ofSeconds(30);

	private static String url;

	private static BloatRepository bloat;

	private static JdbcClient jdbc;

	@BeforeAll
	static void migrate() {
		url = TestDatabase.createDatabase();
		DataSource dataSource = new DriverManagerDataSource(url);
		TaskTables tables = TaskTables.inSchema(null);
		new TaskQueueSchemaMigrator(dataSource, tables).afterPropertiesSet();
		bloat = new BloatRepository(dataSource, tables);
		jdbc = JdbcClient.create(dataSource);
	}

	@Test
	void countsTheDeadRowsOfEachTaskTableExactly() throws Exception {
		jdbc.sql("ALTER TABLE taskqueue_task SET (autovacuum_enabled = false)").update();
		// On a connection of its own, closed at the end: a backend reports its counts to the statistics when it
		// goes idle or exits, so the reads below see them shortly after (they wait for it, never sleep).
		try (Connection writer = DriverManager.getConnection(url); Statement statement = writer.createStatement()) {
			statement.execute("INSERT INTO taskqueue_task (id, queue, payload) "
					+ "SELECT gen_random_uuid(), 'bloat', '{}' FROM generate_series(1, 1000)");
			assertThat(statement.executeUpdate("DELETE FROM taskqueue_task WHERE queue = 'bloat' AND "
					+ "id IN (SELECT id FROM taskqueue_task WHERE queue = 'bloat' LIMIT 700)")).isEqualTo(700);
		}
		Await.until(() -> "700 dead rows in taskqueue_task, read " + table("taskqueue_task"), WAIT,
				() -> table("taskqueue_task").dead() == 700);
		Table task = table("taskqueue_task");
		assertThat(task.live()).isEqualTo(300);
		assertThat(task.dead()).isEqualTo(700);
		assertThat(task.sizeBytes()).isEqualTo(
				jdbc.sql("SELECT pg_total_relation_size('taskqueue_task')").query(Long.class).single());
		assertThat(task.lastVacuum()).isNull();
		assertThat(bloat.read().tables()).extracting(Table::table)
			.containsExactly("taskqueue_dead_task", "taskqueue_history", "taskqueue_task");
		assertThat(table("taskqueue_dead_task").dead()).isZero();

		jdbc.sql("VACUUM taskqueue_task").update();
		Await.until("VACUUM's removal counted", WAIT, () -> table("taskqueue_task").dead() == 0);
		assertThat(table("taskqueue_task").live()).isEqualTo(300);
		assertThat(table("taskqueue_task").lastVacuum()).isNotNull();
	}

	@Test
	void namesTheSessionThatHoldsTheHorizonUntilItLetsGo() throws Exception {
		try (Connection holder = DriverManager.getConnection(url)) {
			holder.setClientInfo("ApplicationName", "bloat-holder");
			holder.setAutoCommit(false);
			holder.setTransactionIsolation(Connection.TRANSACTION_REPEATABLE_READ);
			int pid;
			try (Statement statement = holder.createStatement();
					ResultSet result = statement.executeQuery("SELECT pg_backend_pid()")) { // takes the snapshot
				result.next();
				pid = result.getInt(1);
			}
			Reading reading = bloat.read();
			Holder held = reading.holder();
			assertThat(held).isNotNull();
			assertThat(held.kind()).isEqualTo("session");
			assertThat(held.pid()).isEqualTo(pid);
			assertThat(held.applicationName()).isEqualTo("bloat-holder");
			assertThat(held.state()).isEqualTo("idle in transaction");
			assertThat(held.since()).isNotNull().isBeforeOrEqualTo(reading.readAt());
			assertThat(held.name()).isEqualTo("client backend");
			holder.rollback();
		}
		Await.until("no holder once the transaction ended", WAIT, () -> bloat.read().holder() == null);
	}

	private static Table table(String name) {
		List<Table> tables = bloat.read().tables();
		return tables.stream().filter((table) -> table.table().equals(name)).findFirst().orElseThrow();
	}

}
