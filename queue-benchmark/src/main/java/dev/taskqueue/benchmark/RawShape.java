package dev.taskqueue.benchmark;

/**
 * What a raw-SQL drain does per task, named and described in every result line it produces, so that no figure is
 * read as a limit it is not.
 *
 * @param name the short name, e.g. {@code raw-1-per-tx}
 * @param batch tasks claimed (and deleted) per round
 * @param kind how a round claims and deletes
 */
record RawShape(String name, int batch, Kind kind) {

	/** The limit of one task per transaction: lock one row, delete it in the same transaction, commit. */
	static RawShape onePerTransaction() {
		return new RawShape("raw-1-per-tx", 1, Kind.LOCK_THEN_DELETE);
	}

	/** The limit of batching: claim {@code batch} rows and commit, then delete them all in one statement and commit. */
	static RawShape batch(int batch) {
		return new RawShape("raw-batch-" + batch, batch, Kind.CLAIM_THEN_DELETE);
	}

	/** The benchmark's earlier "one per transaction" baseline, kept for reference: two commits per task. */
	static RawShape claimThenDelete() {
		return new RawShape("raw-claim-then-delete", 1, Kind.CLAIM_THEN_DELETE);
	}

	/** One statement and one commit per task: the delete is the claim, the handler would run before the commit. */
	static RawShape deleteReturning() {
		return new RawShape("raw-delete-returning", 1, Kind.DELETE_RETURNING);
	}

	/** Exactly what it does, for the result lines. */
	String description() {
		return switch (this.kind) {
			case LOCK_THEN_DELETE -> "claim 1 FOR UPDATE SKIP LOCKED + DELETE by id in the same transaction, "
					+ "1 commit/task";
			case DELETE_RETURNING -> "DELETE WHERE id = (SELECT 1 FOR UPDATE SKIP LOCKED) RETURNING, "
					+ "1 statement + 1 commit/task";
			case CLAIM_THEN_DELETE -> (this.batch == 1)
					? "claim 1 SKIP LOCKED (UPDATE, commit) + DELETE by id (commit), 2 commits/task"
					: "claim " + this.batch + " SKIP LOCKED (UPDATE, commit) + DELETE = ANY (commit), 2 commits/"
							+ this.batch + " tasks";
		};
	}

	/** {@code baseline=<name> threads=<threads> does=[<description>]}. */
	String label(int threads) {
		return "baseline=" + this.name + " threads=" + threads + " does=[" + description() + "]";
	}

	/** How a raw drain claims and deletes. */
	enum Kind {

		/** {@code SELECT … FOR UPDATE SKIP LOCKED}, then {@code DELETE} by id, one commit. */
		LOCK_THEN_DELETE,

		/** {@code DELETE … WHERE id = (SELECT … FOR UPDATE SKIP LOCKED) RETURNING}, one commit. */
		DELETE_RETURNING,

		/** TaskRepository's claim ({@code UPDATE … RETURNING}) and commit, then {@code DELETE} and commit. */
		CLAIM_THEN_DELETE

	}

}
