package dev.taskqueue;

import java.time.Duration;
import java.time.Instant;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

/**
 * The ordering key of a {@link TaskRequest}: checked when it is given, before any SQL, kept by every {@code with…}
 * method, none of which changes the request it is called on, and not combined with a unique key.
 */
class TaskRequestOrderingKeyTests {

	private final TaskRequest request = TaskRequest.of("emails", "payload");

	@Test
	void aNullOrBlankKeyIsRejected() {
		assertThatIllegalArgumentException().isThrownBy(() -> this.request.withOrderingKey(null))
			.withMessage("ordering key must not be null or blank (queue 'emails')");
		assertThatIllegalArgumentException().isThrownBy(() -> this.request.withOrderingKey(" \t"))
			.withMessage("ordering key must not be null or blank (queue 'emails')");
	}

	@Test
	void aKeyHasAtMost255CharactersThatPostgresqlCanStore() {
		String longest = "\uD83D\uDE00".repeat(255);
		assertThat(this.request.withOrderingKey(longest).orderingKey()).isEqualTo(longest);
		assertThatIllegalArgumentException().isThrownBy(() -> this.request.withOrderingKey("k".repeat(256)))
			.withMessage("ordering key must be at most 255 characters but was 256 (queue 'emails')");
		assertThatIllegalArgumentException().isThrownBy(() -> this.request.withOrderingKey("a\u0000b"))
			.withMessageStartingWith("ordering key cannot be stored: it contains U+0000 (NUL)");
	}

	@Test
	void aUniqueKeyAndAnOrderingKeyAreNotCombined() {
		assertThatIllegalArgumentException()
			.isThrownBy(() -> this.request.withUniqueKey("u").withOrderingKey("o"))
			.withMessage("a request cannot have both a unique key and an ordering key (queue 'emails')");
		assertThatIllegalArgumentException()
			.isThrownBy(() -> this.request.withOrderingKey("o").withUniqueKey("u", UniqueMode.REPLACE))
			.withMessage("a request cannot have both a unique key and an ordering key (queue 'emails')");
	}

	@Test
	void theKeyIsKeptByEveryWithMethodAndTheOriginalIsUnchanged() {
		TaskRequest keyed = this.request.withOrderingKey("customer-7");
		TaskRequest changed = keyed.withPriority(3).withDelay(Duration.ofSeconds(1)).withRunAt(Instant.EPOCH);
		assertThat(this.request.orderingKey()).isNull();
		assertThat(changed.orderingKey()).isEqualTo("customer-7");
		assertThat(changed.priority()).isEqualTo(3);
		assertThat(keyed.priority()).isZero();
		assertThat(keyed.toString()).contains("orderingKey=customer-7");
	}

}
