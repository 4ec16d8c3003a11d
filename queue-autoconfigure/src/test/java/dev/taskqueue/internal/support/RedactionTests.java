package dev.taskqueue.internal.support;

import java.time.Instant;
import java.util.List;
import java.util.UUID;

import dev.taskqueue.DeadTask;
import dev.taskqueue.TaskRedactor;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/** What {@code taskqueue.redaction.hide-payloads} does to the application's redactor. */
class RedactionTests {

	private final TaskRedactor masking = new TaskRedactor() {

		@Override
		public String payload(String queue, String json) {
			return json.replace("secret", "***");
		}

		@Override
		public String error(String queue, String error) {
			return error.replace("secret", "***");
		}

	};

	private final DeadTask task = new DeadTask(UUID.randomUUID(), "q", 0, 1, Instant.EPOCH, Instant.EPOCH,
			"\"a secret\"", "boom: secret", List.of(), "tenant");

	@Test
	void hidePayloadsHidesEveryPayloadAndStillRedactsErrors() {
		DeadTask shown = Redaction.apply(Redaction.effective(this.masking, true), this.task);
		assertThat(shown.payload()).isEqualTo(TaskRedactor.HIDDEN);
		assertThat(shown.error()).isEqualTo("boom: ***");
		assertThat(shown.fairnessKey()).as("a key is no value to hide: the endpoint shows whose task it is")
			.isEqualTo("tenant");
		assertThat(Redaction.apply(Redaction.effective(TaskRedactor.NONE, true), this.task).payload())
			.isEqualTo("\"(hidden)\"");
	}

	@Test
	void withoutItTheRedactorAlone() {
		assertThat(Redaction.apply(Redaction.effective(this.masking, false), this.task).payload())
			.isEqualTo("\"a ***\"");
		assertThat(Redaction.apply(TaskRedactor.NONE, this.task)).isSameAs(this.task);
	}

}
