package dev.taskqueue.internal.worker;

import java.sql.SQLException;
import java.util.List;
import java.util.Objects;

import javax.sql.DataSource;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

import org.springframework.jdbc.datasource.ConnectionHolder;
import org.springframework.transaction.CannotCreateTransactionException;
import org.springframework.transaction.support.TransactionOperations;
import org.springframework.transaction.support.TransactionSynchronizationManager;

/**
 * Gives up a group of {@link GroupCommit} whose task ran past its timeout: ends the database session serving the
 * group's transaction ({@code SessionEnder}: {@code pg_terminate_backend} on PostgreSQL and YugabyteDB, a role may
 * always end its own backends; {@code CANCEL SESSION} on CockroachDB), which rolls it back and frees its locks,
 * releases the tasks it had completed, and records the others' outcomes. The completed tasks are released only once
 * the session is gone, so their work, which was in that transaction, can no longer commit: they run again, once.
 */
final class GroupGiveUp {

	private static final Log logger = LogFactory.getLog(GroupGiveUp.class);

	private final TaskRepository tasks;

	private final OutcomeRecorder outcomes;

	private final TransactionOperations ownTransactions;

	GroupGiveUp(TaskRepository tasks, OutcomeRecorder outcomes, TransactionOperations ownTransactions) {
		this.tasks = tasks;
		this.outcomes = outcomes;
		this.ownTransactions = ownTransactions;
	}

	/**
	 * Gives up the group whose task ran past its timeout: its transaction is ended by ending its database backend,
	 * which frees its locks, and the tasks it had completed are released to run again.
	 */
	void timedOut(ClaimedTask task, QueueSettings settings, Exception timeout, CommitGroup group,
			CompletionMode.Lane steps) {
		// Not on the timeout thread: ending the backend and releasing the tasks wait for the database.
		Threads.named("tq-give-up-", true).newThread(() -> giveUp(group, task, settings, timeout, steps)).start();
	}

	private void giveUp(CommitGroup group, ClaimedTask timedOut, QueueSettings settings, Exception timeout,
			CompletionMode.Lane steps) {
		List<CommitGroup.Entry> entries = group.entries();
		try {
			group.released = endSession(group.session, timedOut);
			if (group.released) {
				this.outcomes.release(claimedCompleted(group, entries));
			}
		}
		finally {
			group.ended.countDown();
		}
		logger.warn(OutcomeRecorder.describe(timedOut) + " ran past its timeout inside a group of "
				+ (entries.size() + 1) + " tasks; " + (group.released ? "the group's transaction was rolled back and "
						+ "its other tasks run again" : "its other tasks stay claimed until the handler returns"));
		if (group.claimed(timedOut)) { // else the rollback leaves it as it was, and nothing here settles it
			this.outcomes.failed(timedOut, TaskInvoker.context(timedOut), settings, timeout, settings.timeout());
			steps.settled(timedOut);
		}
		if (group.released) {
			settleAfterRollback(group, entries, settings, steps);
		}
	}

	/** The tasks of {@code group} that completed and that its session holds claimed. */
	static List<ClaimedTask> claimedCompleted(CommitGroup group, List<CommitGroup.Entry> entries) {
		return CommitGroup.completedTasks(entries).stream().filter(group::claimed).toList();
	}

	private boolean endSession(@Nullable Object session, ClaimedTask timedOut) {
		if (session == null) {
			return false;
		}
		try {
			return Boolean.TRUE.equals(this.ownTransactions.execute((status) -> {
				try {
					return this.tasks.sessionEnder().end(session);
				}
				catch (SQLException ex) {
					throw new IllegalStateException(ex.getMessage(), ex);
				}
			}));
		}
		catch (RuntimeException ex) {
			logger.warn("Could not end the database session " + session + " running task " + timedOut.id()
					+ " and its group: " + ErrorText.summary(ex));
			return false;
		}
	}


	/** The database session of the group's own connection, the one its transaction manager bound to {@code dataSource}. */
	Object identify(DataSource dataSource) {
		ConnectionHolder holder = (ConnectionHolder) Objects
			.requireNonNull(TransactionSynchronizationManager.getResource(dataSource));
		try {
			return this.tasks.sessionEnder().identify(holder.getConnection());
		}
		catch (SQLException ex) {
			throw new CannotCreateTransactionException("Could not identify the session of a group's connection", ex);
		}
	}

	/** Settles the tasks of a group that was rolled back: failures are recorded, completed tasks released. */
	void settleAfterRollback(CommitGroup group, List<CommitGroup.Entry> entries, QueueSettings settings,
			CompletionMode.Lane steps) {
		for (CommitGroup.Entry entry : entries) {
			if (!group.claimed(entry.task())) {
				continue; // the rollback left it as it was
			}
			if (entry.rejected()) {
				this.outcomes.deadLetter(entry.task(), entry.context(), entry.rejection(), settings.maxAttempts());
			}
			else if (entry.failure() != null) {
				this.outcomes.failed(entry.task(), entry.context(), settings, entry.failure(), entry.duration());
			}
			steps.settled(entry.task());
		}
	}

}
