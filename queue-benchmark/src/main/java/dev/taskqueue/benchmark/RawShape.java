package dev.taskqueue.benchmark;

/**
 * What a raw-SQL drain does per task, named and described in every result line it produces, so that no figure is
 * read as a limit it is not.
 *
 * @param name the short name, e.g. {@code raw-1-per-tx}
 * @param batch tasks claimed (and deleted) per round
 * @param claimInOwnTransaction whether the claim commits on its own before the delete (two commits per round)
 */
record RawShape(String name, int batch, boolean claimInOwnTransaction) {

	/** The limit of one task per transaction: claim one row and delete it in the same transaction. */
	static RawShape onePerTransaction() {
		return new RawShape("raw-1-per-tx", 1, false);
	}

	/** The limit of batching: claim {@code batch} rows and commit, then delete them all in one statement and commit. */
	static RawShape batch(int batch) {
		return new RawShape("raw-batch-" + batch, batch, true);
	}

	/** The benchmark's earlier "one per transaction" baseline, kept for reference: two commits per task. */
	static RawShape claimThenDelete() {
		return new RawShape("raw-claim-then-delete", 1, true);
	}

	/** Exactly what it does, for the result lines. */
	String description() {
		if (!this.claimInOwnTransaction) {
			return "claim 1 FOR UPDATE SKIP LOCKED + DELETE by id in the same transaction, 1 commit/task";
		}
		if (this.batch == 1) {
			return "claim 1 SKIP LOCKED (UPDATE, commit) + DELETE by id (commit), 2 commits/task";
		}
		return "claim " + this.batch + " SKIP LOCKED (UPDATE, commit) + DELETE = ANY (commit), 2 commits/" + this.batch
				+ " tasks";
	}

	/** {@code baseline=<name> threads=<threads> does=[<description>]}. */
	String label(int threads) {
		return "baseline=" + this.name + " threads=" + threads + " does=[" + description() + "]";
	}

}
