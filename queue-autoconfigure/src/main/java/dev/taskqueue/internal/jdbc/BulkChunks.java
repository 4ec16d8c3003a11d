package dev.taskqueue.internal.jdbc;

import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Function;

import org.jspecify.annotations.Nullable;

import org.springframework.jdbc.core.simple.JdbcClient;

/**
 * What the bulk actions on dead letters ({@link DeadTaskRepository}) and on waiting tasks ({@link QueueRepository})
 * share: the conditions of their filter (queue, error text, a time range) and the loop that takes the rows that
 * match a chunk at a time, each chunk one statement (its own transaction outside one), from where the last ended.
 */
final class BulkChunks {

	private BulkChunks() {
	}

	/**
	 * Runs {@code next} from {@code start}, then from the last cursor each run returned, until a run returns fewer
	 * than {@code chunk}: none is left after the cursor, or only rows another transaction holds.
	 * @param next one chunk from a cursor: the cursors of the rows it took, in the order of the cursor
	 * @return how many rows the chunks took
	 */
	static <C> int run(int chunk, C start, Function<C, List<C>> next) {
		C after = start;
		int total = 0;
		int found;
		do {
			List<C> taken = next.apply(after);
			found = taken.size();
			total += found;
			if (found > 0) {
				after = taken.get(found - 1);
			}
		}
		while (found == chunk);
		return total;
	}

	/**
	 * The conditions of a filter, made of fixed fragments only: values are parameters ({@link #bind}).
	 * @param error the column of the error text
	 * @param time the column (or expression) the time range applies to
	 */
	static String matching(String error, String time, @Nullable String queue, @Nullable String text,
			@Nullable Instant from, @Nullable Instant before) {
		List<String> conditions = new ArrayList<>();
		conditions.add("true");
		if (queue != null) {
			conditions.add("queue = :queue");
		}
		if (text != null) {
			conditions.add("strpos(lower(" + error + "), lower(:text)) > 0");
		}
		if (from != null) {
			conditions.add(time + " >= :from");
		}
		if (before != null) {
			conditions.add(time + " < :before");
		}
		return String.join(" AND ", conditions);
	}

	/** Binds what {@link #matching} names. */
	static JdbcClient.StatementSpec bind(JdbcClient.StatementSpec statement, @Nullable String queue,
			@Nullable String text, @Nullable Instant from, @Nullable Instant before) {
		if (queue != null) {
			statement = statement.param("queue", queue);
		}
		if (text != null) {
			statement = statement.param("text", text);
		}
		if (from != null) {
			statement = statement.param("from", OffsetDateTime.ofInstant(from, ZoneOffset.UTC));
		}
		if (before != null) {
			statement = statement.param("before", OffsetDateTime.ofInstant(before, ZoneOffset.UTC));
		}
		return statement;
	}

}
