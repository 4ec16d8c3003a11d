package dev.taskqueue.benchmark;

/**
 * A way the library records a task's completion, with the queue and handler that use it and the raw-SQL baseline
 * it is compared with.
 */
enum Mode {

	/** The handler and the fenced completion commit in one transaction per task. */
	TRANSACTIONAL("transactional", TransactionalNoopHandler.QUEUE, TransactionalNoopHandler.class, "raw-1-per-tx"),

	/** Like {@link #TRANSACTIONAL}, with group commit: several tasks per transaction, each in a savepoint. */
	GROUPED("grouped", GroupedNoopHandler.QUEUE, GroupedNoopHandler.class, "raw-batch"),

	/** Completions are deleted in batches after the handlers return. */
	BATCHED("batched", BatchedNoopHandler.QUEUE, BatchedNoopHandler.class, "raw-batch");

	private final String label;

	private final String queue;

	private final Class<?> handler;

	private final String baseline;

	Mode(String label, String queue, Class<?> handler, String baseline) {
		this.label = label;
		this.queue = queue;
		this.handler = handler;
		this.baseline = baseline;
	}

	static Mode of(String label) {
		for (Mode mode : values()) {
			if (mode.label.equalsIgnoreCase(label)) {
				return mode;
			}
		}
		throw new IllegalArgumentException("--modes takes transactional, grouped and batched, but got '" + label + "'");
	}

	String label() {
		return this.label;
	}

	String queue() {
		return this.queue;
	}

	Class<?> handler() {
		return this.handler;
	}

	/** The name of the matching raw-SQL baseline. */
	String baseline() {
		return this.baseline;
	}

}
