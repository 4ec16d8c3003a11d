package dev.taskqueue.internal.worker;

import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Types;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.UUID;

import dev.taskqueue.internal.jdbc.Micros;
import org.jspecify.annotations.Nullable;

/**
 * The rows of {@link TaskClaims}: the claimed tasks it reads, the parameters of its claims, and the completions its
 * folded statements bind.
 */
final class ClaimRows {

	private ClaimRows() {
	}

	static List<ClaimedTask> claimedTasks(ResultSet rows) throws SQLException {
		List<ClaimedTask> tasks = new ArrayList<>();
		boolean micros = micros(rows);
		while (rows.next()) {
			tasks.add(claimedTask(rows, micros));
		}
		return tasks;
	}

	/** Reads the rows of a fold (TaskClaims) or of KeyStatements' complete-all: done at 14, handed at 15. */
	static ClaimResult claimResult(ResultSet rows) throws SQLException {
		List<ClaimedTask> claimed = new ArrayList<>();
		Set<UUID> completed = new HashSet<>();
		List<ClaimedTask> handedOff = new ArrayList<>();
		boolean micros = micros(rows);
		while (rows.next()) {
			if (rows.getBoolean(14)) {
				completed.add(rows.getObject(1, UUID.class));
			}
			else {
				(rows.getBoolean(15) ? handedOff : claimed).add(claimedTask(rows, micros));
			}
		}
		return new ClaimResult(claimed, completed, handedOff);
	}

	/**
	 * Reads the rows of a fair claim (TaskClaims), whose column {@code nextKeyColumn} is the key the next one starts
	 * after, followed by the tenants it found and its first key; with {@code folded}, those of its fold with
	 * completions, read like {@link #claimResult}.
	 */
	static ClaimResult fairResult(ResultSet rows, int nextKeyColumn, boolean folded) throws SQLException {
		List<ClaimedTask> claimed = new ArrayList<>();
		Set<UUID> completed = new HashSet<>();
		List<ClaimedTask> handedOff = new ArrayList<>();
		String nextKey = null;
		int tenants = -1;
		String soleKey = null;
		Map<UUID, String> keys = new HashMap<>();
		boolean micros = micros(rows);
		while (rows.next()) {
			if (folded && rows.getBoolean(14)) {
				completed.add(rows.getObject(1, UUID.class));
				continue;
			}
			String key = rows.getString(nextKeyColumn);
			nextKey = (key != null) ? key : nextKey;
			int found = rows.getInt(nextKeyColumn + 1);
			tenants = rows.wasNull() ? tenants : found;
			String first = rows.getString(nextKeyColumn + 2);
			soleKey = (first != null) ? first : soleKey;
			ClaimedTask task = claimedTask(rows, micros);
			if (folded && rows.getBoolean(15)) {
				handedOff.add(task);
			}
			else {
				claimed.add(task);
				keys.put(task.id(), Objects.requireNonNullElse(rows.getString(nextKeyColumn + 3), ""));
			}
		}
		return new ClaimResult(claimed, completed, handedOff, Map.of(), nextKey,
				(tenants < 0) ? null : new ClaimResult.FairTenants(tenants, (tenants == 1) ? soleKey : null),
				ahead(keys));
	}

	/**
	 * The tasks of a fair claim ({@code keys}: each claimed task's fairness key, {@code ""} for none) whose key took
	 * fewer of them than the key that took the most: the tenants with little due work, which a claim's share served
	 * whole, beside the one whose backlog filled the rest. Empty when every key took as many.
	 */
	static Set<UUID> ahead(Map<UUID, String> keys) {
		Map<String, Integer> counts = new HashMap<>();
		keys.values().forEach((key) -> counts.merge(key, 1, Integer::sum));
		int most = counts.values().stream().mapToInt(Integer::intValue).max().orElse(0);
		Set<UUID> ahead = new HashSet<>();
		keys.forEach((id, key) -> {
			if (counts.get(key) < most) {
				ahead.add(id);
			}
		});
		return ahead;
	}

	/**
	 * Reads the claimed columns of a claim, its first thirteen.
	 * @param micros whether its times are microseconds since the epoch, see {@link #micros}
	 */
	static ClaimedTask claimedTask(ResultSet rows, boolean micros) throws SQLException {
		return new ClaimedTask(rows.getObject(1, UUID.class), rows.getString(2), rows.getString(3), rows.getInt(4),
				rows.getInt(5), instant(rows, 6, micros), instant(rows, 7, micros), instant(rows, 8, micros),
				rows.getObject(9, UUID.class), rows.getString(10), rows.getString(11), rows.getString(12),
				rows.getInt(13));
	}

	/**
	 * Whether the claim's times, from its column 6, are microseconds since the epoch (a {@code bigint}, as
	 * {@link StorageDriver#claimedTime} returns them on PostgreSQL) rather than timestamps (on CockroachDB). Asked
	 * once per result: all its rows are alike.
	 */
	static boolean micros(ResultSet rows) throws SQLException {
		return rows.getMetaData().getColumnType(6) == Types.BIGINT;
	}

	// A number, as PostgreSQL's claims return the times: no OffsetDateTime, nor the driver's TimestampUtils per value,
	// which cost the claim thread a fifth of its CPU in a profile of W1. A timestamp on CockroachDB: OffsetDateTime
	// rather than getTimestamp, no Calendar per value.
	private static Instant instant(ResultSet rows, int column, boolean micros) throws SQLException {
		if (micros) {
			long value = rows.getLong(column);
			return Instant.ofEpochSecond(Math.floorDiv(value, 1_000_000L), Math.floorMod(value, 1_000_000L) * 1000L);
		}
		return rows.getObject(column, OffsetDateTime.class).toInstant();
	}

	/** Binds TaskClaims' READY and TAKE_READY from position {@code first}; returns the position after them. */
	static int bindClaim(PreparedStatement statement, int first, String queue, int bucket, UUID session,
			int limit) throws SQLException {
		statement.setString(first, queue);
		statement.setInt(first + 1, bucket);
		statement.setObject(first + 2, session);
		statement.setInt(first + 3, limit);
		statement.setObject(first + 4, session);
		return first + 5;
	}

	/**
	 * Binds StorageDriver's READY_FAIR and TAKE_READY from position {@code first}; returns the position after them.
	 * @param after the key the claim starts after, {@code ""} for the first
	 */
	static int bindFairClaim(PreparedStatement statement, int first, String queue, int bucket, UUID session,
			int limit, String after) throws SQLException {
		// later, earlier
		statement.setString(first, queue);
		statement.setString(first + 1, after);
		statement.setString(first + 2, queue);
		statement.setString(first + 3, queue);
		statement.setString(first + 4, queue);
		statement.setString(first + 5, after);
		// keys, share
		statement.setString(first + 6, after);
		statement.setInt(first + 7, limit);
		statement.setInt(first + 8, limit);
		statement.setInt(first + 9, limit);
		statement.setInt(first + 10, limit);
		statement.setObject(first + 11, session);
		// picked: the keys' tasks, then those without a key
		statement.setString(first + 12, queue);
		statement.setString(first + 13, queue);
		statement.setInt(first + 14, bucket);
		statement.setInt(first + 15, limit);
		// filled, then TAKE_READY
		statement.setString(first + 16, queue);
		statement.setInt(first + 17, bucket);
		statement.setInt(first + 18, limit);
		statement.setObject(first + 19, session);
		return first + 20;
	}

	/**
	 * Binds StorageDriver's READY_AFTER and TAKE_READY from position {@code first}: each use of a parameter has its own.
	 * Returns the position after them.
	 */
	static int bindClaimAfter(PreparedStatement statement, int first, String queue, int bucket,
			UUID session, int limit, int priority, @Nullable Long afterMicros, UUID afterId) throws SQLException {
		// higher
		statement.setString(first, queue);
		statement.setInt(first + 1, bucket);
		statement.setInt(first + 2, priority);
		statement.setInt(first + 3, limit);
		// same
		statement.setString(first + 4, queue);
		statement.setInt(first + 5, bucket);
		statement.setInt(first + 6, priority);
		Micros.bind(statement, first + 7, afterMicros);
		Micros.bind(statement, first + 8, afterMicros);
		statement.setObject(first + 9, afterId);
		statement.setInt(first + 10, limit);
		// lower
		statement.setString(first + 11, queue);
		statement.setInt(first + 12, bucket);
		statement.setInt(first + 13, priority);
		statement.setInt(first + 14, limit);
		// the session's check, the overall limit, then TAKE_READY
		statement.setObject(first + 15, session);
		statement.setInt(first + 16, limit);
		statement.setObject(first + 17, session);
		return first + 18;
	}

}
