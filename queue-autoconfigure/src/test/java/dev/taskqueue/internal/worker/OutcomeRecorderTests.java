package dev.taskqueue.internal.worker;

import java.time.Duration;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * How the WARN line of a failed attempt says when it is retried.
 */
class OutcomeRecorderTests {

	@Test
	void aBackoffReadsAtAGlance() {
		assertThat(OutcomeRecorder.readable(Duration.ofMillis(850))).isEqualTo("850 ms");
		assertThat(OutcomeRecorder.readable(Duration.ofMillis(12_400))).isEqualTo("12 s");
		assertThat(OutcomeRecorder.readable(Duration.ofMillis(2_238_606))).isEqualTo("37 min 18 s");
		assertThat(OutcomeRecorder.readable(Duration.ofMinutes(125))).isEqualTo("2 h 5 min");
	}

}
