package dev.taskqueue;

import java.util.List;

import dev.taskqueue.internal.support.PostgresText;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/** The public package's own key check says what {@link PostgresText} says, for every kind of text. */
class KeyTextTests {

	@Test
	void agreesWithPostgresText() {
		List<String> texts = List.of("", "order-42", "a\u0000b", "\u0000", "x\uD83D\uDE00y", "x\uD83Dy", "x\uDE00",
				"\uD83D", "\uDE00\uD83D", "\uD83D\uDE00\u0000", "é∂", "\uD83D\uD83D\uDE00");
		for (String text : texts) {
			assertThat(KeyText.problem(text)).as(text).isEqualTo(PostgresText.problem(text));
		}
		assertThat(KeyText.problem("a\u0000b")).isNotNull();
		assertThat(KeyText.problem("x\uD83Dy")).isNotNull();
	}

}
