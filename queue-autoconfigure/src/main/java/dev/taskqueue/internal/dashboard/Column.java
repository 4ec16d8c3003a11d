package dev.taskqueue.internal.dashboard;

import java.util.List;
import java.util.function.Function;

import static dev.taskqueue.internal.dashboard.Html.attrs;
import static dev.taskqueue.internal.dashboard.Html.element;
import static dev.taskqueue.internal.dashboard.Html.join;
import static dev.taskqueue.internal.dashboard.Html.tag;

/**
 * One column of a table: its header and what each row shows in it. A page lists its columns in one place, so adding
 * a column is adding one entry there.
 *
 * @param header the column's header
 * @param cell what a row shows: {@link Html} as it is, anything else as text
 * @param numeric whether the column holds numbers (aligned right)
 */
record Column<T>(String header, Function<T, Object> cell, boolean numeric) {

	static <T> Column<T> text(String header, Function<T, Object> cell) {
		return new Column<>(header, cell, false);
	}

	static <T> Column<T> number(String header, Function<T, Object> cell) {
		return new Column<>(header, cell, true);
	}

	/** A table of {@code rows}, or {@code empty} as a paragraph when there are none. */
	static <T> Html table(List<Column<T>> columns, List<T> rows, String empty) {
		if (rows.isEmpty()) {
			return element("p", attrs("class", "empty"), empty);
		}
		Html head = tag("tr", join(columns.stream()
			.map((column) -> element("th", attrs("class", column.numeric ? "num" : null), column.header))
			.toList()));
		Html body = join(rows.stream()
			.map((row) -> tag("tr", join(columns.stream()
				.map((column) -> element("td", attrs("class", column.numeric ? "num" : null), column.cell.apply(row)))
				.toList())))
			.toList());
		return tag("table", tag("thead", head), tag("tbody", body));
	}

}
