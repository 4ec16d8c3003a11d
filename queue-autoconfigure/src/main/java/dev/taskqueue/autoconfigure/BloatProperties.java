package dev.taskqueue.autoconfigure;

import java.time.Duration;

/**
 * The bloat figures and their warnings, under {@code taskqueue.bloat} (docs/operations.md#bloat).
 */
public class BloatProperties {

	/**
	 * Whether TaskQueue reads its tables' dead rows, size and the xmin horizon's holder (gauges, health detail,
	 * endpoint, dashboard), with one statement every taskqueue.metrics.refresh-interval. Only on PostgreSQL:
	 * CockroachDB and YugabyteDB have no VACUUM, and nothing is read there.
	 */
	private boolean enabled = true;

	/**
	 * Dead rows of a task table from which the health indicator warns (detail bloat, the status stays UP), when
	 * they are also at least dead-ratio times its live rows.
	 */
	private long deadTuples = 1_000_000;

	/**
	 * The least ratio of a task table's dead rows to its live rows with which the health indicator warns, together
	 * with dead-tuples.
	 */
	private double deadRatio = 0.5;

	/**
	 * How long a transaction, prepared transaction or replication slot may hold the database's xmin horizon before
	 * the health indicator warns (detail bloat, naming the holder): while it is held, VACUUM removes no row deleted
	 * since.
	 */
	private Duration horizonAge = Duration.ofMinutes(10);

	public boolean isEnabled() {
		return this.enabled;
	}

	public void setEnabled(boolean enabled) {
		this.enabled = enabled;
	}

	public long getDeadTuples() {
		return this.deadTuples;
	}

	public void setDeadTuples(long deadTuples) {
		this.deadTuples = deadTuples;
	}

	public double getDeadRatio() {
		return this.deadRatio;
	}

	public void setDeadRatio(double deadRatio) {
		this.deadRatio = deadRatio;
	}

	public Duration getHorizonAge() {
		return this.horizonAge;
	}

	public void setHorizonAge(Duration horizonAge) {
		this.horizonAge = horizonAge;
	}

}
