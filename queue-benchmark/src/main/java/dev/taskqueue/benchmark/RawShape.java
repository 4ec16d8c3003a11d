package dev.taskqueue.benchmark;

/**
 * What a raw-SQL drain does per task, named and described in every result line it produces, so that no figure is
 * read as a limit it is not.
 *
 * @param name the short name, e.g. {@code raw-delete-returning}
 * @param batch tasks claimed (and deleted) per round
 * @param kind how a round claims and deletes
 */
record RawShape(String name, int batch, Kind kind) {

	/**
	 * The strongest loop for exactly-once, one task per transaction, and the baseline of {@code TRANSACTIONAL}: the
	 * delete is the claim ({@code DELETE … WHERE id = (SELECT … FOR UPDATE SKIP LOCKED) RETURNING}), the handler
	 * runs, the commit: two round trips a task.
	 */
	static RawShape onePerTransaction() {
		return new RawShape("raw-delete-returning", 1, Kind.DELETE_RETURNING);
	}

	/**
	 * The strongest batch loop, the baseline of group commit and {@code BATCHED}: mark {@code batch} rows claimed
	 * ({@code UPDATE … SET claimed_by = ? FROM (SELECT … FOR UPDATE SKIP LOCKED) … RETURNING}) and commit, the
	 * handlers, {@code DELETE … WHERE id = ANY(?)} and commit.
	 */
	static RawShape batch(int batch) {
		return new RawShape("raw-batch-" + batch, batch, Kind.CLAIM_THEN_DELETE);
	}

	/**
	 * A weaker reference, not a baseline: claim one task as TaskRepository does (session, claim time, attempt) and
	 * commit, then delete it fenced by its claim and commit: two commits and two round trips a task besides the
	 * claim's.
	 */
	static RawShape claimThenDelete() {
		return new RawShape("raw-claim-then-delete", 1, Kind.CLAIM_THEN_DELETE);
	}

	/** Exactly what it does, for the result lines. */
	String description() {
		return switch (this.kind) {
			case DELETE_RETURNING -> "DELETE WHERE id = (SELECT 1 FOR UPDATE SKIP LOCKED) RETURNING id+payload, "
					+ "COMMIT: 1 statement + 1 commit/task, 2 round trips";
			case CLAIM_THEN_DELETE -> (this.batch == 1)
					? "weaker reference: claim 1 SKIP LOCKED (UPDATE, commit) + fenced DELETE by id (commit), "
							+ "2 commits/task"
					: "UPDATE SET claimed_by FROM (SELECT " + this.batch + " FOR UPDATE SKIP LOCKED) RETURNING, "
							+ "COMMIT, DELETE WHERE id = ANY, COMMIT: 2 commits/" + this.batch + " tasks";
		};
	}

	/** {@code baseline=<name> threads=<threads> does=[<description>]}. */
	String label(int threads) {
		return "baseline=" + this.name + " threads=" + threads + " does=[" + description() + "]";
	}

	/** How a raw drain claims and deletes. */
	enum Kind {

		/** {@code DELETE … WHERE id = (SELECT … FOR UPDATE SKIP LOCKED) RETURNING}, one commit. */
		DELETE_RETURNING,

		/** Claim ({@code UPDATE … RETURNING}) and commit, then {@code DELETE} and commit. */
		CLAIM_THEN_DELETE

	}

}
