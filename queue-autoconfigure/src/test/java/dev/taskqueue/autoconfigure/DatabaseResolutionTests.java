package dev.taskqueue.autoconfigure;

import dev.taskqueue.internal.jdbc.Database;
import dev.taskqueue.internal.jdbc.TaskBuckets;
import dev.taskqueue.internal.jdbc.DatabaseDialect;
import dev.taskqueue.internal.jdbc.DatabaseDialect.SessionEnd;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.jdbc.datasource.DriverManagerDataSource;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalStateException;

/**
 * What {@code taskqueue.database} resolves to: detection from {@code SELECT version()}, and what each database
 * refuses. The database here is unreachable, so the configured one is assumed (the integration tests detect a real
 * PostgreSQL).
 */
@ExtendWith(OutputCaptureExtension.class)
class DatabaseResolutionTests {

	// Nothing listens on port 1: detection fails at once and the configured database is assumed.
	private final DriverManagerDataSource unreachable = new DriverManagerDataSource(
			"jdbc:postgresql://127.0.0.1:1/none?connectTimeout=1");

	@Test
	void aQueueWithoutItsOwnBucketCountHasTheDatabasesDefault() {
		assertThat(Database.POSTGRESQL.defaultBuckets()).isOne();
		assertThat(Database.COCKROACHDB.defaultBuckets()).isEqualTo(16);
		assertThat(Database.YUGABYTEDB.defaultBuckets()).isEqualTo(16);
		TaskQueueProperties properties = new TaskQueueProperties();
		properties.getQueues().computeIfAbsent("strict", (name) -> new QueueProperties()).setBuckets(1);
		properties.getQueues().computeIfAbsent("wide", (name) -> new QueueProperties()).setBuckets(4);
		properties.getQueues().computeIfAbsent("unset", (name) -> new QueueProperties());
		TaskBuckets buckets = QueueSettingsResolver.buckets(properties, Database.COCKROACHDB.defaultBuckets());
		assertThat(buckets.count("strict")).isOne();
		assertThat(buckets.count("wide")).isEqualTo(4);
		assertThat(buckets.count("unset")).isEqualTo(16);
		assertThat(buckets.count("not-configured")).isEqualTo(16);
		assertThat(QueueSettingsResolver.buckets(properties, 1).count("unset")).isOne();
	}

	@Test
	void cockroachDbMustLetAStatementChangeATableTwice() {
		assertThat(DatabaseResolution.multipleModificationsAllowed("on")).isTrue();
		assertThat(DatabaseResolution.multipleModificationsAllowed("true")).isTrue();
		assertThat(DatabaseResolution.multipleModificationsAllowed("off")).isFalse();
		assertThat(DatabaseResolution.multipleModificationsAllowed(null)).isFalse();
	}

	@Test
	void detectsTheDatabaseFromItsVersion() {
		assertThat(Database.fromVersion("PostgreSQL 18.0 on x86_64-pc-linux-gnu, compiled by gcc"))
			.isEqualTo(Database.POSTGRESQL);
		assertThat(Database.fromVersion("CockroachDB CCL v24.3.1 (x86_64-pc-linux-gnu, built 2024/12/02)"))
			.isEqualTo(Database.COCKROACHDB);
		assertThat(Database.fromVersion("PostgreSQL 15.12-YB-2.25.1.0-b0 on x86_64-pc-linux-gnu"))
			.isEqualTo(Database.YUGABYTEDB);
		assertThat(Database.fromVersion("PostgreSQL 11.2-YB-2.20.2.0-b0 on x86_64-pc-linux-gnu"))
			.isEqualTo(Database.YUGABYTEDB);
	}

	@Test
	void eachDatabaseGetsWhatItHas() {
		assertThat(DatabaseDialect.of(Database.POSTGRESQL, true))
			.isEqualTo(new DatabaseDialect(Database.POSTGRESQL, true, true, SessionEnd.TERMINATE_BACKEND));
		assertThat(DatabaseDialect.of(Database.COCKROACHDB, false))
			.isEqualTo(new DatabaseDialect(Database.COCKROACHDB, false, false, SessionEnd.CANCEL_SESSION));
		assertThat(DatabaseDialect.of(Database.YUGABYTEDB, false))
			.isEqualTo(new DatabaseDialect(Database.YUGABYTEDB, false, false, SessionEnd.TERMINATE_BACKEND));
	}

	@Test
	void cockroachDbPollsWhenNotifyIsLeftAtItsDefaultAndSaysSo(CapturedOutput output) {
		DatabaseDialect dialect = DatabaseResolution.resolve(this.unreachable, Database.COCKROACHDB, true, false);
		assertThat(dialect.listenNotify()).isFalse();
		assertThat(dialect.advisoryLocks()).isFalse();
		assertThat(output).contains("CockroachDB has no LISTEN/NOTIFY: workers poll for new tasks every "
				+ "taskqueue.worker.poll-interval, and enqueues send no NOTIFY")
			.contains("TaskQueue runs on CockroachDB (taskqueue.database=cockroachdb)");
	}

	@Test
	void cockroachDbRefusesNotifyThatWasAskedFor() {
		assertThatIllegalStateException()
			.isThrownBy(() -> DatabaseResolution.resolve(this.unreachable, Database.COCKROACHDB, true, true))
			.withMessage("taskqueue.notify.enabled=true, but CockroachDB has no LISTEN/NOTIFY: remove the property "
					+ "(workers then poll every taskqueue.worker.poll-interval) or set it to false");
	}

	@Test
	void notifySetToFalseIsNoConflictAnywhere() {
		assertThat(DatabaseResolution.resolve(this.unreachable, Database.COCKROACHDB, false, true).listenNotify())
			.isFalse();
		assertThat(DatabaseResolution.resolve(this.unreachable, Database.POSTGRESQL, false, true).listenNotify())
			.isFalse();
	}

	@Test
	void yugabyteDbListensOnlyWhenTheUserSaysTheClusterCan(CapturedOutput output) {
		assertThat(DatabaseResolution.resolve(this.unreachable, Database.YUGABYTEDB, true, false).listenNotify())
			.isFalse();
		assertThat(output).contains("YugabyteDB has no LISTEN/NOTIFY unless the cluster enables it (then set "
				+ "taskqueue.notify.enabled=true)");
		assertThat(DatabaseResolution.resolve(this.unreachable, Database.YUGABYTEDB, true, true).listenNotify())
			.isTrue();
	}

}
