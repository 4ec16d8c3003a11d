package dev.taskqueue.benchmark;

import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;

/**
 * What the peers' drains ({@link DbSchedulerDrain}, {@link JobRunrDrain}) share: a HikariCP pool on the scratch
 * database, and the two waits that end a timed drain, until every task ran and until the peer's table says so.
 */
final class PeerDrains {

	private PeerDrains() {
	}

	static HikariDataSource pool(ScratchDatabase database, String name, int size) {
		HikariConfig config = new HikariConfig();
		config.setJdbcUrl(database.url());
		config.setMaximumPoolSize(size);
		config.setPoolName(name);
		return new HikariDataSource(config);
	}

	/**
	 * Waits until {@code handled} reaches {@code tasks}.
	 * @throws IllegalStateException when {@code peer} ran none for {@link Probe#STALL_TIMEOUT}
	 */
	static void awaitHandled(AtomicLong handled, int tasks, String peer) {
		long last = -1;
		long lastProgress = System.nanoTime();
		while (handled.get() < tasks) {
			long now = System.nanoTime();
			if (handled.get() != last) {
				last = handled.get();
				lastProgress = now;
			}
			else if (now - lastProgress > Probe.STALL_TIMEOUT.toNanos()) {
				throw new IllegalStateException(peer + " ran only " + last + " of " + tasks + " tasks, none in the "
						+ "last " + Probe.STALL_TIMEOUT.toSeconds() + " s");
			}
			LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(1));
		}
	}

	/**
	 * Waits until {@code anyLeft}, a {@code SELECT EXISTS (...)} on the peer's table, is false: the peer has written
	 * every task's end.
	 * @throws IllegalStateException when it is still true {@link Probe#STALL_TIMEOUT} later
	 */
	static void awaitNoneLeft(PreparedStatement anyLeft, String peer) throws SQLException {
		long deadline = System.nanoTime() + Probe.STALL_TIMEOUT.toNanos();
		while (true) {
			try (ResultSet result = anyLeft.executeQuery()) {
				result.next();
				if (!result.getBoolean(1)) {
					return;
				}
			}
			if (System.nanoTime() > deadline) {
				throw new IllegalStateException(peer + "'s table still holds unfinished tasks "
						+ Probe.STALL_TIMEOUT.toSeconds() + " s after all of them ran");
			}
			LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(2));
		}
	}

}
