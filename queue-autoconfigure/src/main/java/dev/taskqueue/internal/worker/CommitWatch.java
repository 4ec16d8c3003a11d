package dev.taskqueue.internal.worker;

import org.springframework.transaction.support.TransactionSynchronization;
import org.springframework.transaction.support.TransactionSynchronizationManager;

/**
 * Tells whether the transaction it watches committed. Spring lets an exception of an after-commit callback out
 * of the commit, although the transaction, the handler's work and the task's completion with it, did commit: the
 * task must then count as completed, not failed, and its handler must not run again.
 */
final class CommitWatch implements TransactionSynchronization {

	private volatile boolean committed;

	/** Watches the transaction of the calling thread, if it has synchronizations. */
	void watch() {
		if (TransactionSynchronizationManager.isSynchronizationActive()) {
			TransactionSynchronizationManager.registerSynchronization(this);
		}
	}

	@Override
	public void afterCompletion(int status) {
		this.committed = status == STATUS_COMMITTED;
	}

	boolean committed() {
		return this.committed;
	}

}
