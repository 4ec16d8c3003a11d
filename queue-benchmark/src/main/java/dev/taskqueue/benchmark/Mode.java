package dev.taskqueue.benchmark;

/**
 * A way the library records a task's completion, with the queue and handler that use it.
 */
enum Mode {

	/** The handler and the fenced completion commit in one transaction per task. */
	TRANSACTIONAL("transactional", TransactionalNoopHandler.QUEUE, TransactionalNoopHandler.class),

	/** Like {@link #TRANSACTIONAL}, with group commit: several tasks per transaction, each in a savepoint. */
	GROUPED("grouped", GroupedNoopHandler.QUEUE, GroupedNoopHandler.class),

	/** Completions are deleted in batches after the handlers return. */
	BATCHED("batched", BatchedNoopHandler.QUEUE, BatchedNoopHandler.class);

	private final String label;

	private final String queue;

	private final Class<?> handler;

	Mode(String label, String queue, Class<?> handler) {
		this.label = label;
		this.queue = queue;
		this.handler = handler;
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

}
