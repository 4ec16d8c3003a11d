package dev.taskqueue.autoconfigure;

import java.sql.Connection;
import java.sql.SQLException;

import javax.sql.DataSource;

import com.zaxxer.hikari.HikariDataSource;
import org.jspecify.annotations.Nullable;

import org.springframework.jdbc.datasource.DataSourceTransactionManager;
import org.springframework.transaction.support.TransactionOperations;
import org.springframework.transaction.support.TransactionTemplate;
import org.springframework.util.ClassUtils;

/**
 * How the worker shares the application's connection pool. A running handler holds one connection for its
 * transaction; LISTEN holds one for as long as the worker runs; claims, heartbeats, recorded outcomes and batched
 * completions are single short statements, so they share one more and wait for one another for milliseconds at
 * most. A pool of the queues' concurrency added up, plus 2 (plus 1 without LISTEN), therefore runs every handler
 * without waiting for a connection and never makes a heartbeat wait behind a handler; the rest of the application
 * needs its own connections on top.
 */
final class ConnectionBudget {

	/** The smallest pool that keeps one connection for LISTEN: below it, one for bookkeeping and two handlers. */
	static final int LISTEN_MIN_POOL_SIZE = 4;

	private ConnectionBudget() {
	}

	/**
	 * Transactions for the worker's bookkeeping, every piece of which is a single statement: none at all when the
	 * pool hands out auto-commit connections (a COMMIT round trip less per claim), real ones when it does not.
	 */
	static TransactionOperations ownTransactions(DataSource dataSource) {
		try (Connection connection = dataSource.getConnection()) {
			if (connection.getAutoCommit()) {
				return TransactionOperations.withoutTransaction();
			}
		}
		catch (SQLException ex) {
			// cannot tell: transactions are right either way
		}
		return new TransactionTemplate(new DataSourceTransactionManager(dataSource));
	}

	/** The size of the pool behind {@code dataSource} when it is a Hikari pool, or {@code null}. */
	static @Nullable Integer poolSize(DataSource dataSource) {
		return ClassUtils.isPresent("com.zaxxer.hikari.HikariDataSource", null) ? HikariPool.maximumPoolSize(dataSource)
				: null;
	}

	/** Whether a pool of {@code poolSize} connections has room for LISTEN besides handlers and bookkeeping. */
	static boolean hasRoomForListen(int poolSize) {
		return poolSize >= LISTEN_MIN_POOL_SIZE;
	}

	/** How many handlers may run at once on a pool of {@code poolSize}: at least 1, however small the pool. */
	static int maxHandlers(int poolSize, boolean listening) {
		return Math.max(1, poolSize - 1 - (listening ? 1 : 0));
	}

	/** Reads the pool size of a Hikari pool; kept apart so Hikari stays optional. */
	private static final class HikariPool {

		static @Nullable Integer maximumPoolSize(DataSource dataSource) {
			try {
				return dataSource.isWrapperFor(HikariDataSource.class)
						? dataSource.unwrap(HikariDataSource.class).getMaximumPoolSize() : null;
			}
			catch (SQLException ex) {
				return null;
			}
		}

	}

}
