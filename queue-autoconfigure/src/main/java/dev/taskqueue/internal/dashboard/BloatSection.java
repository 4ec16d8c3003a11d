package dev.taskqueue.internal.dashboard;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

import dev.taskqueue.internal.operations.BloatWatch;
import dev.taskqueue.internal.operations.BloatWatch.Horizon;
import dev.taskqueue.internal.operations.BloatWatch.Report;
import dev.taskqueue.internal.operations.BloatWatch.TableStats;

import static dev.taskqueue.internal.dashboard.Html.attrs;
import static dev.taskqueue.internal.dashboard.Html.element;
import static dev.taskqueue.internal.dashboard.Html.join;

/**
 * The task tables' bloat on the overview (docs/operations.md#bloat): each table's dead and live rows and size, the
 * xmin horizon's oldest holder, and the health indicator's warnings. The last report of {@link BloatWatch}, which
 * reads the database at most about once per refresh interval however often the page reloads.
 */
final class BloatSection implements OverviewSection {

	private final BloatWatch watch;

	BloatSection(BloatWatch watch) {
		this.watch = watch;
	}

	@Override
	public String title() {
		return "Table bloat";
	}

	@Override
	public Html render(PageContext context) {
		Report report = this.watch.current();
		List<Html> parts = new ArrayList<>();
		for (String warning : report.warnings()) {
			parts.add(element("p", attrs("class", "problem"), warning));
		}
		parts.add(Column.table(columns(), report.tables(), "No task table found."));
		Horizon horizon = report.horizon();
		parts.add(element("p", attrs("class", "note"), (horizon != null)
				? "Oldest holder of the xmin horizon: " + horizon.describe() + ", for " + Formats.age(horizon.age())
						+ " (" + String.format(Locale.ROOT, "%,d", horizon.xidAge()) + " transactions)."
				: "No transaction holds the xmin horizon."));
		return join(parts);
	}

	private static List<Column<TableStats>> columns() {
		return List.of(Column.text("table", TableStats::table),
				Column.number("dead rows", (t) -> t.overThreshold()
						? element("span", attrs("class", "unhandled"), String.format("%,d", t.deadTuples()))
						: String.format("%,d", t.deadTuples())),
				Column.number("live rows", (t) -> String.format("%,d", t.liveTuples())),
				Column.number("size", (t) -> Formats.size(t.sizeBytes())),
				Column.text("last vacuum", (t) -> (t.lastVacuum() != null) ? Formats.time(t.lastVacuum()) : "never"));
	}

}
