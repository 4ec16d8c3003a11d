package dev.taskqueue.internal.dashboard;

import java.time.Duration;
import java.time.Instant;

import dev.taskqueue.TaskQueueOperations.QueueStats;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/** The overview's "held back" cell counts the tasks waiting for their prerequisites, with the reason. */
class HeldBackTests {

	private final PageContext context = new PageContext("/taskqueue", true, false, null, null, null, null, "/taskqueue",
			null, Instant::now);

	@Test
	void tasksWaitingForPrerequisitesAreHeldBackWithTheirReason() {
		QueueStats stats = new QueueStats("reports", 1, 0, 0, 0, Duration.ZERO, false, 2, null, false, 3);
		assertThat(HeldBack.cell(this.context, stats, 1000).toString()).startsWith("<a href=\"/taskqueue/queues/reports"
				+ "?view=held\">5</a> <span class=\"reason\"").endsWith(">(key 2, prerequisites 3)</span>");
	}

	@Test
	void aQueueWithNothingHeldBackShowsZero() {
		QueueStats stats = new QueueStats("reports", 1, 0, 0, 0, Duration.ZERO, false, 0, null, false, 0);
		assertThat(HeldBack.cell(this.context, stats, 1000).toString()).isEqualTo("0");
	}

}
