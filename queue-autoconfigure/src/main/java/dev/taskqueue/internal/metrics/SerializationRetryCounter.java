package dev.taskqueue.internal.metrics;

import dev.taskqueue.internal.jdbc.SerializationRetry;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;

/**
 * Counts the retries of serialization failures and deadlocks as {@code taskqueue.serialization.retries}, tagged
 * with the operation that was run again: claim, limited-claim, outcome, session, handler, schedule-tick,
 * batch-sweep.
 */
final class SerializationRetryCounter {

	static final String NAME = "taskqueue.serialization.retries";

	SerializationRetryCounter(SerializationRetry retry, MeterRegistry registry) {
		retry.onRetry((operation) -> Counter.builder(NAME)
			.description("Transactions and statements of TaskQueue run again after a serialization failure")
			.tag("operation", operation)
			.register(registry)
			.increment());
	}

}
