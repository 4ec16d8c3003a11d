package dev.taskqueue;

import java.time.Instant;
import java.util.UUID;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

/**
 * A {@link TaskContext} as a test makes it keeps the progress and the result given to it, so that a handler's unit
 * test can read them back.
 */
class TaskContextTests {

	private final TaskContext context = new TaskContext(UUID.randomUUID(), "reports", 1, Instant.now());

	@Test
	void keepsTheLastProgressAndTheResult() {
		assertThat(this.context.progress()).isNull();
		assertThat(this.context.result()).isNull();
		this.context.progress(10, "first");
		this.context.progress(55, null);
		this.context.result(42);
		TaskProgress progress = this.context.progress();
		assertThat(progress).isNotNull();
		assertThat(progress.percent()).isEqualTo(55);
		assertThat(progress.message()).isNull();
		assertThat(this.context.result()).isEqualTo(42);
	}

	@Test
	void refusesAPercentOutsideZeroToAHundred() {
		this.context.progress(0, "start");
		this.context.progress(100, "done");
		assertThatIllegalArgumentException().isThrownBy(() -> this.context.progress(101, "too far"))
			.withMessage("percent must be from 0 to 100 but was 101");
		assertThatIllegalArgumentException().isThrownBy(() -> this.context.progress(-1, "before"))
			.withMessage("percent must be from 0 to 100 but was -1");
		assertThat(this.context.progress().percent()).isEqualTo(100);
	}

	@Test
	void cutsALongMessageWithoutSplittingACharacter() {
		this.context.progress(1, "x".repeat(2_000));
		assertThat(this.context.progress().message()).hasSize(TaskContext.MAX_PROGRESS_MESSAGE_LENGTH);
		String emoji = "\uD83D\uDE00";
		this.context.progress(2, "x".repeat(TaskContext.MAX_PROGRESS_MESSAGE_LENGTH - 1) + emoji);
		assertThat(this.context.progress().message()).isEqualTo("x".repeat(TaskContext.MAX_PROGRESS_MESSAGE_LENGTH - 1));
	}

}
