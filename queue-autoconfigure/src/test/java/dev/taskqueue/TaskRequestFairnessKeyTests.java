package dev.taskqueue;

import java.time.Duration;
import java.util.UUID;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

/**
 * The fairness key of a {@link TaskRequest}: checked when it is given, before any SQL, kept by every {@code with…}
 * method, and not combined with a unique key, an ordering key or prerequisites (docs/fairness.md).
 */
class TaskRequestFairnessKeyTests {

	private final TaskRequest request = TaskRequest.of("reports", "payload");

	@Test
	void aNullBlankOrLongKeyIsRejected() {
		assertThatIllegalArgumentException().isThrownBy(() -> this.request.withFairnessKey(null))
			.withMessage("fairness key must not be null or blank (queue 'reports')");
		assertThatIllegalArgumentException().isThrownBy(() -> this.request.withFairnessKey(" "))
			.withMessage("fairness key must not be null or blank (queue 'reports')");
		assertThatIllegalArgumentException().isThrownBy(() -> this.request.withFairnessKey("k".repeat(256)))
			.withMessage("fairness key must be at most 255 characters but was 256 (queue 'reports')");
		assertThatIllegalArgumentException().isThrownBy(() -> this.request.withFairnessKey("a\u0000b"))
			.withMessageStartingWith("fairness key cannot be stored: it contains U+0000 (NUL)");
	}

	@Test
	void everyWithMethodKeepsTheKey() {
		TaskRequest keyed = this.request.withFairnessKey("tenant-1");
		assertThat(this.request.fairnessKey()).isNull();
		assertThat(keyed.withPriority(3).withDelay(Duration.ofSeconds(1)).fairnessKey()).isEqualTo("tenant-1");
		assertThat(keyed.withRunAt(java.time.Instant.now()).withDependencyFailure(DependencyFailure.DEAD).fairnessKey())
			.isEqualTo("tenant-1");
		assertThat(keyed.toString()).contains("fairnessKey=tenant-1");
	}

	@Test
	void otherKeysAndPrerequisitesAreNotCombined() {
		String combined = "a request cannot have a fairness key together with a unique key or an ordering key "
				+ "(queue 'reports')";
		assertThatIllegalArgumentException().isThrownBy(() -> this.request.withUniqueKey("u").withFairnessKey("t"))
			.withMessage(combined);
		assertThatIllegalArgumentException().isThrownBy(() -> this.request.withFairnessKey("t").withUniqueKey("u"))
			.withMessage(combined);
		assertThatIllegalArgumentException().isThrownBy(() -> this.request.withOrderingKey("o").withFairnessKey("t"))
			.withMessage(combined);
		assertThatIllegalArgumentException().isThrownBy(() -> this.request.withFairnessKey("t").withOrderingKey("o"))
			.withMessage(combined);
		assertThatIllegalArgumentException()
			.isThrownBy(() -> this.request.withFairnessKey("t").withDependsOn(UUID.randomUUID()))
			.withMessageStartingWith("a request with prerequisites (dependsOn) cannot have");
		assertThatIllegalArgumentException()
			.isThrownBy(() -> this.request.withDependsOn(UUID.randomUUID()).withFairnessKey("t"))
			.withMessageStartingWith("a request with prerequisites (dependsOn) cannot have");
	}

}
