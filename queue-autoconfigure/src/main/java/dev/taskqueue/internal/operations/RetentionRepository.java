package dev.taskqueue.internal.operations;

import java.sql.Types;
import java.time.Duration;

import javax.sql.DataSource;

import dev.taskqueue.internal.jdbc.TaskTables;

import org.springframework.jdbc.core.simple.JdbcClient;

/**
 * Deletes dead letters, history rows and audit log entries past their retention, a bounded batch per statement so that no statement
 * holds many locks or runs long. Every statement runs in its own transaction (auto-commit).
 */
final class RetentionRepository {

	// SKIP LOCKED: instances pruning at the same time share the rows instead of waiting for each other.
	// "id = ANY(ARRAY(...))", not "id IN (...)": the batch's ids are read first and deleted on the primary key, whatever
	// the plan. With IN, the generic plan (which a server prepares once the statement has run a few times, and uses
	// with plan_cache_mode = force_generic_plan) cannot know the LIMIT, expects a tenth of the rows and hash-joins them
	// with a sequential scan of the whole table: 344 ms instead of 6.5 ms per batch of 1,000 among 1,000,000 dead
	// letters (W10 of queue-benchmark flagged it).
	private static final String PRUNE = """
			DELETE FROM %1$s WHERE id = ANY(ARRAY(
			    SELECT id FROM %1$s WHERE %2$s < now() - :keepMicros * interval '1 microsecond'
			    LIMIT :batch FOR UPDATE SKIP LOCKED))
			""";

	private final JdbcClient jdbc;

	private final String pruneDead;

	private final String pruneHistory;

	private final String pruneAudit;

	RetentionRepository(DataSource dataSource, TaskTables tables) {
		this.jdbc = JdbcClient.create(dataSource);
		this.pruneDead = PRUNE.formatted(tables.deadTask(), "failed_at");
		this.pruneHistory = PRUNE.formatted(tables.history(), "completed_at");
		this.pruneAudit = PRUNE.formatted(tables.audit(), "acted_at");
	}

	/** Deletes up to {@code batch} dead letters that failed more than {@code keep} ago; returns how many. */
	int pruneDead(Duration keep, int batch) {
		return prune(this.pruneDead, keep, batch);
	}

	/** Deletes up to {@code batch} history rows completed more than {@code keep} ago; returns how many. */
	int pruneHistory(Duration keep, int batch) {
		return prune(this.pruneHistory, keep, batch);
	}

	/** Deletes up to {@code batch} audit log entries written more than {@code keep} ago; returns how many. */
	int pruneAudit(Duration keep, int batch) {
		return prune(this.pruneAudit, keep, batch);
	}

	private int prune(String sql, Duration keep, int batch) {
		return this.jdbc.sql(sql)
			.param("keepMicros", keep.toNanos() / 1000, Types.BIGINT)
			.param("batch", batch)
			.update();
	}

}
