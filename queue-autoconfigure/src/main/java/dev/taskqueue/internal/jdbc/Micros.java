package dev.taskqueue.internal.jdbc;

import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.sql.Types;
import java.time.Duration;
import java.time.Instant;

import org.jspecify.annotations.Nullable;

/**
 * Times as the whole microseconds PostgreSQL keeps, for statements that add them to {@code timestamptz 'epoch'} or
 * {@code now()}: a number binds the same on every driver, unlike a {@code java.time} value.
 */
public final class Micros {

	private Micros() {
	}

	/** The duration in microseconds, 0 for {@code null}. */
	public static Long of(@Nullable Duration duration) {
		return (duration != null) ? duration.toNanos() / 1000 : 0L;
	}

	/** Microseconds since the epoch, or {@code null}. */
	public static @Nullable Long sinceEpoch(@Nullable Instant instant) {
		return (instant != null) ? Math.addExact(Math.multiplyExact(instant.getEpochSecond(), 1_000_000L),
				instant.getNano() / 1000) : null;
	}

	/** Binds {@code micros}, SQL {@code NULL} for {@code null}. */
	public static void bind(PreparedStatement statement, int index, @Nullable Long micros) throws SQLException {
		if (micros != null) {
			statement.setLong(index, micros);
		}
		else {
			statement.setNull(index, Types.BIGINT);
		}
	}

}
