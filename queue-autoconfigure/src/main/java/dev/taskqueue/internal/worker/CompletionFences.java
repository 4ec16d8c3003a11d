package dev.taskqueue.internal.worker;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.sql.Types;
import java.util.List;
import java.util.Objects;
import java.util.UUID;

/**
 * The fence of many completions in one statement ({@code BATCHED}'s fold and flusher, group commit): each task is
 * deleted only while its claim is still the one that ran it, the same attempt by the same session, as the delete of
 * one task checks with {@code claimed_by} and {@code attempt}.
 * <p>
 * The tasks are found by primary key with {@code = ANY} of their ids. Each row's claim is then looked up by its id in
 * a JSON object of {@code "<attempt> <session>"} values, a binary search of the object's sorted keys, so the statement
 * costs the same per task whatever its plan and its number of tasks. A join with the unnested arrays of ids, attempts
 * and sessions does not: on a table never analyzed (the planner takes any array for ten elements) it is a nested loop
 * that compares every row with every completion, 3.5 ms for 100 completions and 10.7 ms for 200 against 0.8 and 1.2
 * this way; W6's completion flusher spent two thirds of its time there. A join alone, without {@code = ANY}, lets the
 * planner hash the whole table instead. Being one expression of the row, the fence is also checked again on a row
 * that another transaction changed meanwhile, as a plain {@code WHERE} is.
 */
final class CompletionFences {

	/**
	 * The condition on the task table {@code t} that takes the fenced tasks. Parameters: 1 ids, 2 claims.
	 * <p>
	 * {@code concat}, not {@code ||}: a strict expression of {@code claimed_by} would imply {@code claimed_by IS NOT
	 * NULL} and let the planner take the partial index of claimed tasks, which looks small after an {@code ANALYZE}
	 * that saw none claimed (see {@link TaskCompletions}: it holds an entry for every claim that {@code VACUUM} has
	 * not removed yet). The casts are for CockroachDB, whose {@code concat} takes strings.
	 */
	static final String FENCED = "t.id = ANY(?) AND concat(CAST(t.attempt AS text), ' ', CAST(t.claimed_by AS text)) "
			+ "= CAST(? AS jsonb) ->> CAST(t.id AS text)";

	private final UUID[] ids;

	private final String claims;

	/** The fence of {@code tasks}, each by its own claim; built before the statement takes a connection. */
	CompletionFences(List<ClaimedTask> tasks) {
		this.ids = new UUID[tasks.size()];
		StringBuilder claims = new StringBuilder(tasks.size() * 84 + 2).append('{');
		for (int i = 0; i < this.ids.length; i++) {
			ClaimedTask task = tasks.get(i);
			this.ids[i] = task.id();
			if (i > 0) {
				claims.append(',');
			}
			claims.append('"').append(task.id()).append("\":\"").append(task.attempt()).append(' ')
				.append(session(task.claimedBy())).append('"');
		}
		this.claims = claims.append('}').toString();
	}

	/** A fence's session, never {@code null}: the fence would match unclaimed tasks. */
	static UUID session(UUID session) {
		return Objects.requireNonNull(session, "a fenced statement needs the claiming session");
	}

	/** Binds {@link #FENCED}'s parameters from position {@code first}. */
	void bind(PreparedStatement statement, Connection connection, int first) throws SQLException {
		statement.setArray(first, connection.createArrayOf("uuid", this.ids));
		statement.setObject(first + 1, this.claims, Types.OTHER);
	}

}
