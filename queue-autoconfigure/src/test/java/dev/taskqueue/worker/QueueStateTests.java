package dev.taskqueue.worker;

import java.time.Duration;

import dev.taskqueue.handler.TaskHandlerMethod;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * How many tasks a queue claims: ahead of its threads while handlers are quick, only what it starts once they are
 * slow.
 */
class QueueStateTests {

	private static final RetryPolicy RETRY = new RetryPolicy(Duration.ofSeconds(1), 2, Duration.ofMinutes(1), 0);

	@Test
	void quickHandlersClaimAheadAndSlowOnesDoNot() {
		QueueState queue = new QueueState(handler(false), new QueueSettings(4, 5, RETRY, Duration.ofMinutes(1)));
		assertThat(queue.capacity()).isEqualTo(8);
		queue.handled(Duration.ofMillis(2).toNanos());
		assertThat(queue.capacity()).isEqualTo(8);
		for (int i = 0; i < 40; i++) {
			queue.handled(Duration.ofMillis(200).toNanos());
		}
		assertThat(queue.capacity()).isEqualTo(4);
		for (int i = 0; i < 40; i++) {
			queue.handled(Duration.ofMillis(1).toNanos());
		}
		assertThat(queue.capacity()).isEqualTo(8);
	}

	@Test
	void groupCommitClaimsTwoGroupsPerThreadAndBatchedCompletionIgnoresTheGroupSize() {
		QueueSettings grouped = new QueueSettings(3, 5, RETRY, Duration.ofMinutes(1), 10, Duration.ofMillis(20));
		assertThat(new QueueState(handler(false), grouped).capacity()).isEqualTo(60);
		QueueState batched = new QueueState(handler(true), grouped);
		assertThat(batched.grouped()).isFalse();
		assertThat(batched.capacity()).isEqualTo(6);
	}

	@Test
	void aQueueThatClaimsAheadWaitsForAQuarterOfItsCapacityWhileABacklogIsLikely() {
		QueueState queue = new QueueState(handler(false), new QueueSettings(4, 5, RETRY, Duration.ofMinutes(1)));
		queue.inFlight.set(7);
		assertThat(queue.toClaim()).as("no backlog known: any free room is claimed").isEqualTo(1);
		queue.mayHaveMore = true;
		assertThat(queue.toClaim()).isZero();
		queue.inFlight.set(6);
		assertThat(queue.toClaim()).isEqualTo(2);
	}

	private static TaskHandlerMethod handler(boolean batched) {
		try {
			return new TaskHandlerMethod("q", "bean", new Object(), Object.class.getMethod("toString"), String.class,
					false, 0, 0, batched);
		}
		catch (NoSuchMethodException ex) {
			throw new IllegalStateException(ex);
		}
	}

}
