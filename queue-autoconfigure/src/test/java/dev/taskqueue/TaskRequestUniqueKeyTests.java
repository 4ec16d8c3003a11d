package dev.taskqueue;

import java.time.Duration;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

/**
 * The unique key of a {@link TaskRequest}: checked when it is given, before any SQL, and kept by every
 * {@code with…} method, none of which changes the request it is called on.
 */
class TaskRequestUniqueKeyTests {

	private final TaskRequest request = TaskRequest.of("emails", "payload");

	@Test
	void aNullOrBlankKeyIsRejected() {
		assertThatIllegalArgumentException().isThrownBy(() -> this.request.withUniqueKey(null))
			.withMessage("unique key must not be null or blank (queue 'emails')");
		assertThatIllegalArgumentException().isThrownBy(() -> this.request.withUniqueKey(" \t"))
			.withMessage("unique key must not be null or blank (queue 'emails')");
		assertThatIllegalArgumentException().isThrownBy(() -> this.request.withUniqueKey("", UniqueMode.REPLACE))
			.withMessage("unique key must not be null or blank (queue 'emails')");
	}

	@Test
	void aKeyHasAtMost255Characters() {
		String longest = "\uD83D\uDE00".repeat(255);
		assertThat(this.request.withUniqueKey(longest).uniqueKey()).isEqualTo(longest);
		assertThatIllegalArgumentException().isThrownBy(() -> this.request.withUniqueKey("k".repeat(256)))
			.withMessage("unique key must be at most 255 characters but was 256 (queue 'emails')");
	}

	@Test
	void aKeyPostgresqlCannotStoreIsRejected() {
		assertThatIllegalArgumentException().isThrownBy(() -> this.request.withUniqueKey("a\u0000b"))
			.withMessageStartingWith("unique key cannot be stored: it contains U+0000 (NUL)");
		assertThatIllegalArgumentException().isThrownBy(() -> this.request.withUniqueKey("a\uD800"))
			.withMessageStartingWith("unique key cannot be stored: it contains an unpaired UTF-16 surrogate (U+D800)");
	}

	@Test
	void aNullModeIsRejected() {
		assertThatIllegalArgumentException().isThrownBy(() -> this.request.withUniqueKey("k", null))
			.withMessage("unique mode must not be null (queue 'emails')");
	}

	@Test
	void theKeyIsKeptByEveryWithMethodAndTheOriginalIsUnchanged() {
		TaskRequest keyed = this.request.withUniqueKey("k", UniqueMode.REPLACE);
		TaskRequest changed = keyed.withPriority(3).withDelay(Duration.ofSeconds(1));
		assertThat(this.request.uniqueKey()).isNull();
		assertThat(this.request.uniqueMode()).isEqualTo(UniqueMode.KEEP);
		assertThat(changed.uniqueKey()).isEqualTo("k");
		assertThat(changed.uniqueMode()).isEqualTo(UniqueMode.REPLACE);
		assertThat(changed.priority()).isEqualTo(3);
		assertThat(keyed.priority()).isZero();
		assertThat(this.request.withUniqueKey("k").uniqueMode()).isEqualTo(UniqueMode.KEEP);
		assertThat(keyed.toString()).isEqualTo("TaskRequest[queue=emails, priority=0, uniqueKey=k, uniqueMode=REPLACE]");
	}

}
