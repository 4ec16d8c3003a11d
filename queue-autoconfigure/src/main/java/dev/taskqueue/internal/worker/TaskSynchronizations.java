package dev.taskqueue.internal.worker;

import java.util.List;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;

import org.springframework.transaction.support.TransactionSynchronization;
import org.springframework.transaction.support.TransactionSynchronizationManager;

/**
 * The transaction synchronizations of one task of a group (see {@link GroupCommit}): those it registered are
 * rolled back with its savepoint when it fails, while the group's transaction goes on.
 */
final class TaskSynchronizations {

	private static final Log logger = LogFactory.getLog(TaskSynchronizations.class);

	private TaskSynchronizations() {
	}

	/** The synchronizations registered so far, before a task runs. */
	static List<TransactionSynchronization> current() {
		return TransactionSynchronizationManager.isSynchronizationActive()
				? TransactionSynchronizationManager.getSynchronizations() : List.of();
	}

	/**
	 * Drops the transaction synchronizations a failed task registered, after telling them their work was rolled
	 * back, so that, say, an after-commit event of a failed task is not published when its group commits.
	 */
	static void rollBackSince(List<TransactionSynchronization> before) {
		if (!TransactionSynchronizationManager.isSynchronizationActive()) {
			return;
		}
		List<TransactionSynchronization> all = TransactionSynchronizationManager.getSynchronizations();
		if (all.size() == before.size()) {
			return;
		}
		TransactionSynchronizationManager.clearSynchronization();
		TransactionSynchronizationManager.initSynchronization();
		before.forEach(TransactionSynchronizationManager::registerSynchronization);
		for (TransactionSynchronization synchronization : all) {
			if (!before.contains(synchronization)) {
				try {
					synchronization.beforeCompletion();
				}
				catch (RuntimeException ex) {
					logger.warn("A transaction synchronization of a failed task threw before its rollback: "
							+ ErrorText.summary(ex));
				}
				try {
					synchronization.afterCompletion(TransactionSynchronization.STATUS_ROLLED_BACK);
				}
				catch (RuntimeException ex) {
					logger.warn("A transaction synchronization of a failed task threw on its rollback: "
							+ ErrorText.summary(ex));
				}
			}
		}
	}

}
