package dev.taskqueue.internal.dashboard;

import java.util.List;

import dev.taskqueue.TaskQueueOperations.BatchProgress;

import static dev.taskqueue.internal.dashboard.Html.attrs;
import static dev.taskqueue.internal.dashboard.Html.element;
import static dev.taskqueue.internal.dashboard.Html.join;

/**
 * Batches on the overview: the newest open ones and the last finished ones, each with its progress, read with one
 * bounded statement ({@link DashboardQueries#batches}).
 */
final class BatchesSection implements OverviewSection {

	static final int OPEN = 20;

	static final int FINISHED = 10;

	private final DashboardQueries queries;

	private final int countLimit;

	BatchesSection(DashboardQueries queries, int countLimit) {
		this.queries = queries;
		this.countLimit = countLimit;
	}

	@Override
	public String title() {
		return "Batches";
	}

	@Override
	public Html render(PageContext context) {
		List<BatchProgress> batches = this.queries.batches(OPEN, FINISHED, this.countLimit);
		return Html.join(Column.table(columns(context), batches, "No open or recently finished batch."),
				element("p", attrs("class", "note"), "The newest " + OPEN + " open batches and the last " + FINISHED
						+ " finished ones (kept for taskqueue.retention.dead-letters)."));
	}

	private List<Column<BatchProgress>> columns(PageContext context) {
		return List.of(Column.wide("batch", (b) -> element("span", attrs("class", "id"), b.id().toString())),
				Column.text("state", (b) -> b.finished() ? join("finished ", Formats.when(b.finishedAt(), context.now())) : "open"),
				Column.text("created", (b) -> Formats.when(b.createdAt(), context.now())),
				Column.number("total", (b) -> String.format("%,d", b.total())),
				// Past the count limit an open batch's counts stop, so its completed count is not known.
				Column.number("completed", (b) -> capped(b) ? "?" : String.format("%,d", b.completed())),
				Column.number("dead", (b) -> b.finished() ? String.format("%,d", b.dead())
						: Formats.count(b.dead(), this.countLimit)),
				Column.number("remaining", (b) -> Formats.count(b.remaining(), this.countLimit)),
				Column.text("progress", BatchesSection::bar),
				Column.text("then task", (b) -> b.finished()
						? element("a", attrs("href", context.url("/tasks/" + b.thenTaskId()), "class", "id"), "then task")
						: ""));
	}

	private boolean capped(BatchProgress batch) {
		return !batch.finished() && (batch.remaining() >= this.countLimit || batch.dead() >= this.countLimit);
	}

	/** A bar of completed and dead tasks out of the total, in SVG as the sparklines are (no script). */
	private static Html bar(BatchProgress batch) {
		int width = 100;
		long total = Math.max(1, batch.total());
		long done = Math.min(width, batch.completed() * width / total);
		long dead = Math.min(width - done, batch.dead() * width / total);
		return element("svg", attrs("class", "progress", "width", String.valueOf(width), "height", "10", "role", "img",
				"aria-label", batch.completed() + " completed, " + batch.dead() + " dead of " + batch.total()),
				element("rect", attrs("class", "ok", "width", String.valueOf(done), "height", "10")),
				element("rect", attrs("class", "bad", "x", String.valueOf(done), "width", String.valueOf(dead), "height",
						"10")));
	}

}
