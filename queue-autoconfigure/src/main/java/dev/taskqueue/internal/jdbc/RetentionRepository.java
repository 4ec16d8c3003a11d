package dev.taskqueue.internal.jdbc;

import java.sql.Types;
import java.time.Duration;

import javax.sql.DataSource;

import org.springframework.jdbc.core.simple.JdbcClient;

/**
 * Deletes dead letters, history rows and audit log entries past their retention, a bounded batch per statement so that no statement
 * holds many locks or runs long. Every statement runs in its own transaction (auto-commit).
 */
public class RetentionRepository {

	// SKIP LOCKED: instances pruning at the same time share the rows instead of waiting for each other.
	private static final String PRUNE = """
			DELETE FROM %1$s WHERE id IN (
			    SELECT id FROM %1$s WHERE %2$s < now() - :keepMicros * interval '1 microsecond'
			    LIMIT :batch FOR UPDATE SKIP LOCKED)
			""";

	private final JdbcClient jdbc;

	private final String pruneDead;

	private final String pruneHistory;

	private final String pruneAudit;

	public RetentionRepository(DataSource dataSource, TaskTables tables) {
		this.jdbc = JdbcClient.create(dataSource);
		this.pruneDead = PRUNE.formatted(tables.deadTask(), "failed_at");
		this.pruneHistory = PRUNE.formatted(tables.history(), "completed_at");
		this.pruneAudit = PRUNE.formatted(tables.audit(), "acted_at");
	}

	/** Deletes up to {@code batch} dead letters that failed more than {@code keep} ago; returns how many. */
	public int pruneDead(Duration keep, int batch) {
		return prune(this.pruneDead, keep, batch);
	}

	/** Deletes up to {@code batch} history rows completed more than {@code keep} ago; returns how many. */
	public int pruneHistory(Duration keep, int batch) {
		return prune(this.pruneHistory, keep, batch);
	}

	/** Deletes up to {@code batch} audit log entries written more than {@code keep} ago; returns how many. */
	public int pruneAudit(Duration keep, int batch) {
		return prune(this.pruneAudit, keep, batch);
	}

	private int prune(String sql, Duration keep, int batch) {
		return this.jdbc.sql(sql)
			.param("keepMicros", keep.toNanos() / 1000, Types.BIGINT)
			.param("batch", batch)
			.update();
	}

}
