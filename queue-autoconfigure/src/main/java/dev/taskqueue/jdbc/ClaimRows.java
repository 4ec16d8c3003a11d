package dev.taskqueue.jdbc;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.UUID;

/**
 * The rows of {@link TaskClaims}: the claimed tasks it reads, and the completions its folded statements bind.
 */
final class ClaimRows {

	private ClaimRows() {
	}

	static List<ClaimedTask> claimedTasks(ResultSet rows) throws SQLException {
		List<ClaimedTask> tasks = new ArrayList<>();
		while (rows.next()) {
			tasks.add(claimedTask(rows));
		}
		return tasks;
	}

	static ClaimResult claimResult(ResultSet rows) throws SQLException {
		List<ClaimedTask> claimed = new ArrayList<>();
		Set<UUID> completed = new HashSet<>();
		while (rows.next()) {
			if (rows.getBoolean(14)) {
				completed.add(rows.getObject(1, UUID.class));
			}
			else {
				claimed.add(claimedTask(rows));
			}
		}
		return new ClaimResult(claimed, completed);
	}

	private static ClaimedTask claimedTask(ResultSet rows) throws SQLException {
		return new ClaimedTask(rows.getObject(1, UUID.class), rows.getString(2), rows.getString(3), rows.getInt(4),
				rows.getInt(5), instant(rows, 6), instant(rows, 7), instant(rows, 8), rows.getObject(9, UUID.class),
				rows.getString(10), rows.getString(11), rows.getString(12), rows.getInt(13));
	}

	// OffsetDateTime rather than getTimestamp: no Calendar per value on the claim's hot path.
	private static Instant instant(ResultSet rows, int column) throws SQLException {
		return rows.getObject(column, OffsetDateTime.class).toInstant();
	}

	/** The arrays COMPLETED unnests, built before the statement takes a connection. */
	static final class Completions {

		private final UUID[] ids;

		private final Integer[] attempts;

		private final UUID[] sessions;

		Completions(List<ClaimedTask> done) {
			this.ids = new UUID[done.size()];
			this.attempts = new Integer[done.size()];
			this.sessions = new UUID[done.size()];
			for (int i = 0; i < this.ids.length; i++) {
				ClaimedTask task = done.get(i);
				this.ids[i] = task.id();
				this.attempts[i] = task.attempt();
				this.sessions[i] = TaskRepository.session(task.claimedBy());
			}
		}

		void bind(PreparedStatement statement, Connection connection) throws SQLException {
			statement.setArray(1, connection.createArrayOf("uuid", this.ids));
			statement.setArray(2, connection.createArrayOf("int4", this.attempts));
			statement.setArray(3, connection.createArrayOf("uuid", this.sessions));
		}

	}

}
