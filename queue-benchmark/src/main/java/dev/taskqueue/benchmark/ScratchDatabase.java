package dev.taskqueue.benchmark;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;

/**
 * A database made for one measurement and dropped after it.
 */
final class ScratchDatabase implements AutoCloseable {

	private final String url;

	private final Runnable drop;

	ScratchDatabase(String url, Runnable drop) {
		this.url = url;
		this.drop = drop;
	}

	/** Its JDBC URL, credentials included. */
	String url() {
		return this.url;
	}

	/** A new plain JDBC connection, in auto-commit mode. */
	Connection connect() {
		return connect(this.url);
	}

	static Connection connect(String url) {
		try {
			return DriverManager.getConnection(url);
		}
		catch (SQLException ex) {
			throw new IllegalStateException("Could not connect to " + url + ": " + ex.getMessage(), ex);
		}
	}

	@Override
	public void close() {
		this.drop.run();
	}

}
