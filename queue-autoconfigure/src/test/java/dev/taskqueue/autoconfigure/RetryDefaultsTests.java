package dev.taskqueue.autoconfigure;

import java.time.Duration;
import java.time.Instant;
import java.util.UUID;

import dev.taskqueue.RetryPolicy;
import dev.taskqueue.TaskContext;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The default retries outlast a one-hour outage: a task that fails on every attempt from the start of the outage
 * is still being retried an hour later, even when the jitter shortens every wait as much as it can. The schedule
 * is in docs/configuration.md.
 */
class RetryDefaultsTests {

	private final RetryProperties defaults = new RetryProperties();

	@Test
	void shortestTimeToTheDeadLettersOutlastsAnHourOfOutage() {
		assertThat(cumulative(this.defaults.getBackoff().getJitter())).isGreaterThan(Duration.ofHours(1));
	}

	@Test
	void scheduleIsTheOneDocumented() {
		assertThat(this.defaults.getMaxAttempts()).isEqualTo(20);
		// 1 + 2 + ... + 2048 s, then seven waits of the one-hour cap: 8 h 8 min 15 s.
		assertThat(cumulative(0.0)).isEqualTo(Duration.ofSeconds(29_295));
		// The jitter takes off at most 20 % of each wait: 6 h 30 min 36 s.
		assertThat(cumulative(this.defaults.getBackoff().getJitter())).isEqualTo(Duration.ofSeconds(23_436));
	}

	@Test
	void realPolicyWaitsNoLessThanTheShortestSchedule() {
		RetryPolicy policy = policy(this.defaults.getBackoff().getJitter());
		for (int run = 0; run < 100; run++) {
			Duration total = Duration.ZERO;
			for (int failed = 1; failed < this.defaults.getMaxAttempts(); failed++) {
				total = total.plus(delay(policy, failed));
			}
			assertThat(total).isBetween(cumulative(this.defaults.getBackoff().getJitter()), cumulative(0.0));
		}
	}

	/**
	 * The wait from the first failure to the last attempt, with every delay shortened by {@code jitter} of itself:
	 * the default jitter gives the shortest the policy can draw, 0 the longest.
	 */
	private Duration cumulative(double jitter) {
		// The policy without jitter is deterministic; the real one takes a random part of up to jitter off each wait.
		RetryPolicy nominal = policy(0.0);
		Duration total = Duration.ZERO;
		for (int failed = 1; failed < this.defaults.getMaxAttempts(); failed++) {
			Duration delay = delay(nominal, failed);
			total = total.plus(Duration.ofNanos((long) (delay.toNanos() * (1.0 - jitter))));
		}
		return total;
	}

	private RetryPolicy policy(double jitter) {
		RetryProperties.Backoff backoff = this.defaults.getBackoff();
		return RetryPolicy.exponentialBackoff(backoff.getInitialDelay(), backoff.getMultiplier(), backoff.getMaxDelay(),
				jitter);
	}

	private static Duration delay(RetryPolicy policy, int failedAttempt) {
		TaskContext task = new TaskContext(UUID.randomUUID(), "q", failedAttempt, Instant.now());
		return policy.nextAttemptDelay(task, new IllegalStateException("failed"));
	}

}
