package dev.taskqueue.worker;

import java.time.Duration;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

class RetryPolicyTests {

	@Test
	void delayGrowsByTheMultiplierUpToTheCap() {
		RetryPolicy policy = new RetryPolicy(Duration.ofSeconds(1), 2.0, Duration.ofSeconds(10), 0.0);
		assertThat(policy.delayAfter(1)).isEqualTo(Duration.ofSeconds(1));
		assertThat(policy.delayAfter(2)).isEqualTo(Duration.ofSeconds(2));
		assertThat(policy.delayAfter(4)).isEqualTo(Duration.ofSeconds(8));
		assertThat(policy.delayAfter(5)).isEqualTo(Duration.ofSeconds(10));
		assertThat(policy.delayAfter(500)).isEqualTo(Duration.ofSeconds(10));
	}

	@Test
	void jitterShortensTheDelayByAtMostItsFraction() {
		RetryPolicy policy = new RetryPolicy(Duration.ofSeconds(10), 1.0, Duration.ofMinutes(1), 0.5);
		for (int i = 0; i < 1_000; i++) {
			assertThat(policy.delayAfter(1)).isBetween(Duration.ofSeconds(5), Duration.ofSeconds(10));
		}
	}

	@Test
	void rejectsJitterOutsideZeroToOne() {
		assertThatIllegalArgumentException()
			.isThrownBy(() -> new RetryPolicy(Duration.ofSeconds(1), 2.0, Duration.ofSeconds(1), 1.5));
	}

}
