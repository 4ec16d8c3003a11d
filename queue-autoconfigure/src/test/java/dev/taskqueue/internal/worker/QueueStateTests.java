package dev.taskqueue.internal.worker;

import dev.taskqueue.RetryPolicy;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.List;
import java.util.UUID;

import dev.taskqueue.internal.handler.TaskHandlerMethod;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * How many tasks a queue claims (ahead of its threads while handlers are quick, only what it starts once they are
 * slow) and where its claims start.
 */
class QueueStateTests {

	private static final RetryPolicy RETRY = RetryPolicy.exponentialBackoff(Duration.ofSeconds(1), 2, Duration.ofMinutes(1), 0);

	@Test
	void quickHandlersClaimAheadWhatTheyFinishInTenMillisecondsAndSlowOnesDoNot() {
		QueueState queue = TestQueues.queue(handler(false), new QueueSettings(4, 5, RETRY, Duration.ofMinutes(1)), 256);
		assertThat(queue.capacity()).as("before any handler ran: as many again as run").isEqualTo(8);
		queue.handled(Duration.ofMillis(2).toNanos());
		assertThat(queue.capacity()).as("4 threads finish 20 tasks of 2 ms in 10 ms").isEqualTo(4 + 20);
		for (int i = 0; i < 40; i++) {
			queue.handled(Duration.ofMillis(200).toNanos());
		}
		assertThat(queue.capacity()).isEqualTo(4);
		for (int i = 0; i < 200; i++) {
			queue.handled(Duration.ofMillis(20).toNanos());
		}
		assertThat(queue.capacity()).as("slower than the horizon: one task ahead per thread").isEqualTo(8);
		for (int i = 0; i < 200; i++) {
			queue.handled(Duration.ofNanos(10_000).toNanos());
		}
		assertThat(queue.capacity()).as("no-op handlers: bounded by max-prefetch").isEqualTo(4 + 256);
		QueueState bounded = TestQueues.queue(handler(false), new QueueSettings(4, 5, RETRY, Duration.ofMinutes(1)), 0);
		bounded.handled(Duration.ofMillis(2).toNanos());
		assertThat(bounded.capacity()).as("max-prefetch 0: only what runs").isEqualTo(4);
	}

	@Test
	void groupCommitClaimsTwoGroupsPerThreadAndBatchedCompletionIgnoresTheGroupSize() {
		QueueSettings grouped = new QueueSettings(3, 5, RETRY, Duration.ofMinutes(1), 10, Duration.ofMillis(20));
		assertThat(TestQueues.queue(handler(false), grouped, 256).capacity()).isEqualTo(60);
		QueueState batched = TestQueues.queue(handler(true), grouped, 256);
		assertThat(batched.spec.mode()).isInstanceOf(BatchedRun.class);
		assertThat(batched.capacity()).isEqualTo(6);
	}

	@Test
	void aQueueThatClaimsAheadWaitsForAQuarterOfItsCapacityWhileABacklogIsLikely() {
		QueueState queue = TestQueues.queue(handler(false), new QueueSettings(4, 5, RETRY, Duration.ofMinutes(1)), 256);
		queue.inFlight.set(7);
		assertThat(queue.toClaim()).as("no backlog known: any free room is claimed").isEqualTo(1);
		queue.mayHaveMore = true;
		assertThat(queue.toClaim()).isZero();
		queue.inFlight.set(6);
		assertThat(queue.toClaim()).isEqualTo(2);
	}

	@Test
	void claimsStartWhereTheLastEndedBetweenScansFromTheStart() {
		QueueState queue = TestQueues.queue(handler(false), new QueueSettings(4, 5, RETRY, Duration.ofMinutes(1)), 256);
		long start = System.nanoTime();
		assertThat(queue.positions.claimFrom(0, start)).as("the first claim scans from the start").isNull();
		ClaimedTask first = task(5);
		ClaimedTask last = task(0);
		queue.positions.claimed(0, List.of(first, last), true, start, start + millis(5));
		assertThat(queue.positions.claimFrom(0, start + millis(10))).isSameAs(last);
		queue.positions.claimed(0, List.of(), false, start + millis(10), start + millis(11));
		assertThat(queue.positions.claimFrom(0, start + millis(12))).as("an empty claim keeps the position").isSameAs(last);
		assertThat(queue.positions.claimFrom(0, start + millis(1005))).as("a second after the last full scan").isNull();
		queue.positions.claimed(0, List.of(), true, start + millis(1005), start + millis(1205));
		assertThat(queue.positions.claimFrom(0, start + millis(5000))).as("20 times a slow scan's 200 ms").isSameAs(last);
		assertThat(queue.positions.claimFrom(0, start + millis(5205))).isNull();
		queue.positions.claimed(0, List.of(), true, start + millis(5205), start + millis(10_205));
		assertThat(queue.positions.claimFrom(0, start + millis(40_000))).as("at most 30 s apart").isSameAs(last);
		assertThat(queue.positions.claimFrom(0, start + millis(40_205))).isNull();
		queue.positions.claimed(0, List.of(), true, start + millis(40_205), start + millis(40_206));
		queue.positions.claimFromStart();
		assertThat(queue.positions.claimFrom(0, System.nanoTime())).as("tasks were released").isNull();
	}

	@Test
	void claimsStartFromThePositionOnlyWhileThatIsMeasurablyCheaper() {
		QueueState queue = TestQueues.queue(handler(false), new QueueSettings(4, 5, RETRY, Duration.ofMinutes(1)), 256);
		long start = System.nanoTime();
		ClaimedTask last = task(0);
		queue.positions.claimed(0, List.of(task(0), last), true, start, start + micros(300));
		assertThat(queue.positions.claimFrom(0, start + millis(1))).as("the position is tried once it is known").isSameAs(last);
		queue.positions.claimed(0, List.of(), false, start + millis(1), start + millis(1) + micros(700));
		assertThat(queue.positions.claimFrom(0, start + millis(2))).as("scans from the start are cheaper").isNull();
		queue.positions.claimed(0, List.of(), true, start + millis(2), start + millis(2) + micros(300));
		assertThat(queue.positions.claimFrom(0, start + millis(500))).isNull();
		assertThat(queue.positions.claimFrom(0, start + millis(1002))).as("a second later, the position is tried again")
			.isSameAs(last);
		queue.positions.claimed(0, List.of(), false, start + millis(1002), start + millis(1002) + micros(700));
		long at = start + millis(1003);
		for (int i = 0; i < 2; i++) {
			assertThat(queue.positions.claimFrom(0, at)).isNull();
			queue.positions.claimed(0, List.of(), true, at, at + millis(3));
			at += millis(4);
		}
		assertThat(queue.positions.claimFrom(0, at)).as("scans from the start became slow").isSameAs(last);
	}

	private static long millis(long millis) {
		return Duration.ofMillis(millis).toNanos();
	}

	private static long micros(long micros) {
		return Duration.of(micros, ChronoUnit.MICROS).toNanos();
	}

	private static ClaimedTask task(int priority) {
		return new ClaimedTask(UUID.randomUUID(), "q", "{}", priority, 1, Instant.now(), Instant.now(), Instant.now(),
				UUID.randomUUID(), null);
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
