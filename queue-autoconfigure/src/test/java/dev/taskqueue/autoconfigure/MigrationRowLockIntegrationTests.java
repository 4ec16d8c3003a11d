package dev.taskqueue.autoconfigure;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import dev.taskqueue.dialect.RestrictedPostgres;
import dev.taskqueue.internal.jdbc.TaskTables;
import dev.taskqueue.test.TestDatabase;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.jdbc.datasource.DriverManagerDataSource;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalStateException;

/**
 * The migration lock of databases without advisory locks: a row of {@code taskqueue_migration_lock} locked
 * {@code FOR UPDATE} across the migration. Instances migrating at once take turns, on a role that may not take an
 * advisory lock, and on an empty database Flyway's first migration runs once.
 */
class MigrationRowLockIntegrationTests {

	private final RestrictedPostgres database = new RestrictedPostgres();

	@AfterEach
	void dropRole() {
		this.database.close();
	}

	@Test
	void migrationsUnderTheRowLockTakeTurnsWhereAdvisoryLocksAreForbidden() throws Exception {
		DriverManagerDataSource restricted = new DriverManagerDataSource(this.database.url());
		TaskTables tables = TaskTables.inSchema(null);
		assertThatIllegalStateException().isThrownBy(() -> MigrationLock.holding(restricted, tables, true, (c) -> {
		})).withMessageContaining("permission denied for function pg_advisory_lock");

		AtomicInteger inside = new AtomicInteger();
		List<Integer> seen = new ArrayList<>();
		ExecutorService instances = Executors.newFixedThreadPool(4);
		try {
			List<Future<?>> runs = new ArrayList<>();
			for (int i = 0; i < 4; i++) {
				runs.add(instances.submit(() -> MigrationLock.holding(restricted, tables, false, (connection) -> {
					int now = inside.incrementAndGet();
					synchronized (seen) {
						seen.add(now);
					}
					sleep(200);
					inside.decrementAndGet();
				})));
			}
			for (Future<?> run : runs) {
				run.get(30, TimeUnit.SECONDS);
			}
		}
		finally {
			instances.shutdownNow();
		}
		assertThat(seen).as("one migration at a time").containsExactly(1, 1, 1, 1);
		assertThat(this.database.count("SELECT count(*) FROM taskqueue_migration_lock")).isEqualTo(1);
	}

	@Test
	void threeInstancesMigratingAnEmptySchemaUnderTheRowLockAllSucceed() throws Exception {
		String url = TestDatabase.createDatabase();
		ExecutorService instances = Executors.newFixedThreadPool(3);
		try {
			List<Future<?>> runs = new ArrayList<>();
			for (int i = 0; i < 3; i++) {
				runs.add(instances.submit(() -> new TaskQueueSchemaMigrator(new DriverManagerDataSource(url),
						TaskTables.inSchema("queues"), false).afterPropertiesSet()));
			}
			for (Future<?> run : runs) {
				run.get(60, TimeUnit.SECONDS);
			}
		}
		finally {
			instances.shutdownNow();
		}
		JdbcTemplate jdbc = new JdbcTemplate(new DriverManagerDataSource(url));
		assertThat(jdbc.queryForList("SELECT version FROM queues.taskqueue_schema_history WHERE success "
				+ "AND version <> '0' ORDER BY installed_rank", String.class))
			.as("each migration applied once").doesNotHaveDuplicates().contains("1", "8");
		assertThat(jdbc.queryForObject("SELECT count(*) FROM queues.taskqueue_migration_lock", Integer.class))
			.isEqualTo(1);
	}

	private static void sleep(long millis) {
		try {
			Thread.sleep(millis);
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
		}
	}

}
