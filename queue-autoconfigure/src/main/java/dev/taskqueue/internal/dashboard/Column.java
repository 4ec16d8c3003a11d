package dev.taskqueue.internal.dashboard;

import java.util.List;
import java.util.function.Function;

import org.jspecify.annotations.Nullable;

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
 * @param style the cells' class: {@code num} for numbers (aligned right), {@code wide} for long text (a whole line
 * of a row shown as a card on a narrow screen), or {@code null}
 */
record Column<T>(String header, Function<T, Object> cell, @Nullable String style) {

	static <T> Column<T> text(String header, Function<T, Object> cell) {
		return new Column<>(header, cell, null);
	}

	static <T> Column<T> number(String header, Function<T, Object> cell) {
		return new Column<>(header, cell, "num");
	}

	/** Long text, such as a payload, an error or a task id: on a narrow screen it gets its own line. */
	static <T> Column<T> wide(String header, Function<T, Object> cell) {
		return new Column<>(header, cell, "wide");
	}

	/**
	 * A table of {@code rows}, or {@code empty} as a paragraph when there are none. The table scrolls within its own
	 * box rather than widening the page; on a narrow screen the style sheet shows each row as a card, each cell
	 * under its header (its {@code data-label}).
	 */
	static <T> Html table(List<Column<T>> columns, List<T> rows, String empty) {
		if (rows.isEmpty()) {
			return element("p", attrs("class", "empty"), empty);
		}
		Html head = tag("tr", join(columns.stream()
			.map((column) -> element("th", attrs("scope", "col", "class", column.style), column.header))
			.toList()));
		Html body = join(rows.stream()
			.map((row) -> tag("tr", join(columns.stream()
				.map((column) -> element("td",
						attrs("class", column.style, "data-label", column.header.isEmpty() ? null : column.header),
						column.cell.apply(row)))
				.toList())))
			.toList());
		return element("div", attrs("class", "table"), tag("table", tag("thead", head), tag("tbody", body)));
	}

}
