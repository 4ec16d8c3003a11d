package dev.taskqueue;

import java.time.Duration;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

class ExponentialBackoffTests {

	@Test
	void delayGrowsByTheMultiplierUpToTheCap() {
		ExponentialBackoff policy = new ExponentialBackoff(Duration.ofSeconds(1), 2.0, Duration.ofSeconds(10), 0.0);
		assertThat(policy.delayAfter(1)).isEqualTo(Duration.ofSeconds(1));
		assertThat(policy.delayAfter(2)).isEqualTo(Duration.ofSeconds(2));
		assertThat(policy.delayAfter(4)).isEqualTo(Duration.ofSeconds(8));
		assertThat(policy.delayAfter(5)).isEqualTo(Duration.ofSeconds(10));
		assertThat(policy.delayAfter(500)).isEqualTo(Duration.ofSeconds(10));
	}

	@Test
	void jitterShortensTheDelayByAtMostItsFraction() {
		ExponentialBackoff policy = new ExponentialBackoff(Duration.ofSeconds(10), 1.0, Duration.ofMinutes(1), 0.5);
		for (int i = 0; i < 1_000; i++) {
			assertThat(policy.delayAfter(1)).isBetween(Duration.ofSeconds(5), Duration.ofSeconds(10));
		}
	}

	@Test
	void asksOnlyTheAttemptThatFailed() {
		RetryPolicy policy = RetryPolicy.exponentialBackoff(Duration.ofSeconds(1), 3.0, Duration.ofHours(1), 0.0);
		TaskContext third = new TaskContext(java.util.UUID.randomUUID(), "q", 3, java.time.Instant.now());
		assertThat(policy.nextAttemptDelay(third, new IllegalStateException())).isEqualTo(Duration.ofSeconds(9));
	}

	@Test
	void rejectsNegativeDelays() {
		assertThatIllegalArgumentException()
			.isThrownBy(() -> RetryPolicy.exponentialBackoff(Duration.ofSeconds(-1), 2.0, Duration.ofSeconds(1), 0));
	}

	@Test
	void rejectsJitterOutsideZeroToOne() {
		assertThatIllegalArgumentException()
			.isThrownBy(() -> RetryPolicy.exponentialBackoff(Duration.ofSeconds(1), 2.0, Duration.ofSeconds(1), 1.5));
	}

}
