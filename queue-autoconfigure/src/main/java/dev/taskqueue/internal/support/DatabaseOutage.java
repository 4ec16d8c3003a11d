package dev.taskqueue.internal.support;

import java.sql.SQLException;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicLong;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;

import org.springframework.transaction.TransactionSystemException;

/**
 * Says once that the database cannot be reached and once that it is back, for all of an instance's background
 * loops (claims, heartbeats, sweeps, gauges, schedules, ...). Without it each loop logged every failed try with its
 * stack trace: a 20 s outage printed about 1,400 lines per instance. A loop reports each failure to
 * {@link #failed} and each success to {@link #succeeded}; only the first failure of an outage is a WARN line, the
 * recovery one INFO line with the outage's duration, and the stack traces are at DEBUG.
 * <p>
 * Only a try that began after the outage was noticed ends it: a statement sent just before the server went away may
 * still answer after another loop saw the connection drop. Counting that answer as "back" said the outage twice.
 * <p>
 * One per application context (a bean), so that each instance says it once, even with several in one JVM.
 */
public final class DatabaseOutage {

	private static final Log logger = LogFactory.getLog(DatabaseOutage.class);

	/** When the outage began ({@link System#nanoTime()}), {@link #NONE} while the database answers. */
	private final AtomicLong since = new AtomicLong(NONE);

	private static final long NONE = Long.MIN_VALUE;

	/**
	 * A background loop failed while {@code doing} something: a WARN line if it is the first sign that the database
	 * cannot be reached, a DEBUG line otherwise.
	 * @return {@code true} when the failure is that of an outage, so the loop need not log it; {@code false} for any
	 * other failure, which the loop logs itself
	 */
	public boolean failed(String doing, Throwable failure) {
		if (this.since.get() == NONE && !unreachable(failure)) {
			return false;
		}
		if (this.since.compareAndSet(NONE, System.nanoTime())) {
			logger.warn("TaskQueue cannot reach the database (" + doing + ": " + summary(failure)
					+ "); its background work tries again quietly until the database is back");
		}
		if (logger.isDebugEnabled()) {
			logger.debug("TaskQueue could not " + doing + " during a database outage", failure);
		}
		return true;
	}

	/**
	 * A background loop reached the database: an INFO line if that ends an outage.
	 * @param triedAt when the try began ({@link System#nanoTime()}, taken before its first statement); a try begun
	 * before the outage was noticed does not end it
	 */
	public void succeeded(long triedAt) {
		long began = this.since.get();
		if (began != NONE && triedAt - began > 0 && this.since.compareAndSet(began, NONE)) {
			logger.info("TaskQueue reached the database again after an outage of "
					+ Duration.ofNanos(System.nanoTime() - began).toMillis() + " ms");
		}
	}

	/** Whether the database is known unreachable now. */
	public boolean isDown() {
		return this.since.get() != NONE;
	}

	/**
	 * A failure to connect (SQLSTATE class 08, a pool that timed out), or the server going away under a connection
	 * (class 57P: shut down by an administrator, crashed, or not accepting connections yet). When the rollback after
	 * such a failure fails too, Spring throws a {@link TransactionSystemException} caused by the rollback's failure,
	 * with the first one aside as its application exception: both are looked at.
	 */
	static boolean unreachable(Throwable failure) {
		if (DatabaseFailures.connectionFailure(failure) != null) {
			return true;
		}
		for (Throwable cause = failure; cause != null; cause = cause.getCause()) {
			if (cause instanceof SQLException sql && sql.getSQLState() != null && sql.getSQLState().startsWith("57P")) {
				return true;
			}
			if (cause instanceof TransactionSystemException rollback && rollback.getApplicationException() != null
					&& rollback.getApplicationException() != failure
					&& unreachable(rollback.getApplicationException())) {
				return true;
			}
		}
		return false;
	}

	private static String summary(Throwable failure) {
		String message = failure.getMessage();
		return failure.getClass().getSimpleName() + ((message != null) ? ": " + message.lines().findFirst().orElse("")
				: "");
	}

}
