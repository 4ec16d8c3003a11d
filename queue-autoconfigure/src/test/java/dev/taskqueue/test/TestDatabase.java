package dev.taskqueue.test;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import io.zonky.test.db.postgres.embedded.EmbeddedPostgres;

import org.springframework.boot.SpringApplication;

/**
 * The PostgreSQL server the tests talk to: the one {@code TASKQUEUE_TEST_JDBC_URL} points at (a JDBC URL with
 * user and password as parameters, e.g. {@code jdbc:postgresql://127.0.0.1:5432/postgres?user=postgres}), or else
 * an embedded PostgreSQL started once per JVM. Each caller of {@link #createDatabase()} gets a new, empty database
 * on it, dropped when the JVM exits, so tests never see each other's tasks.
 */
public final class TestDatabase {

	public static final String URL_VARIABLE = "TASKQUEUE_TEST_JDBC_URL";

	private static final Pattern URL = Pattern.compile("(jdbc:postgresql://[^/]+/)([^?]*)(\\?.*)?");

	private static String serverUrl;

	private static EmbeddedPostgres embedded;

	private static final List<String> created = new ArrayList<>();

	private TestDatabase() {
	}

	/** Creates a new database and returns its JDBC URL, credentials included. */
	public static synchronized String createDatabase() {
		String name = "taskqueue_test_" + UUID.randomUUID().toString().replace("-", "").substring(0, 12);
		execute(server(), "CREATE DATABASE " + name);
		created.add(name);
		return urlOf(name);
	}

	/** Whether the tests run on the embedded server (so it can be stopped and started by a test). */
	public static synchronized boolean isEmbedded() {
		server();
		return embedded != null;
	}

	/** The embedded server, started if need be; fails when the tests run on an external server. */
	public static synchronized EmbeddedPostgres embedded() {
		server();
		if (embedded == null) {
			throw new IllegalStateException("The tests run on " + serverUrl + ", not on embedded PostgreSQL");
		}
		return embedded;
	}

	/** Runs one SQL statement on {@code url}, outside any transaction. */
	public static void execute(String url, String sql) {
		try (Connection connection = DriverManager.getConnection(url); Statement statement = connection.createStatement()) {
			statement.execute(sql);
		}
		catch (SQLException ex) {
			throw new IllegalStateException("Could not run '" + sql + "' on " + url + ": " + ex.getMessage(), ex);
		}
	}

	private static String urlOf(String database) {
		Matcher matcher = URL.matcher(server());
		if (!matcher.matches()) {
			throw new IllegalStateException(URL_VARIABLE + " must look like jdbc:postgresql://host:port/database?user=... "
					+ "but was " + serverUrl);
		}
		return matcher.group(1) + database + ((matcher.group(3) != null) ? matcher.group(3) : "");
	}

	private static String server() {
		if (serverUrl == null) {
			String url = System.getenv(URL_VARIABLE);
			if (url != null && !url.isBlank()) {
				serverUrl = url;
			}
			else {
				try {
					// No shutdown hook of its own: the server stops in dropAll, once the applications are closed.
					embedded = EmbeddedPostgres.builder().setRegisterShutdownHook(false).start();
				}
				catch (IOException ex) {
					throw new UncheckedIOException("Could not start embedded PostgreSQL", ex);
				}
				serverUrl = embedded.getJdbcUrl("postgres", "postgres");
			}
			// Spring Boot runs its shutdown handlers after it has closed the application contexts (the test framework's
			// cached ones included); a JVM shutdown hook of our own, or the embedded server's own (zonky registers one
			// unless told not to), would race them, and a worker ending its session would wait the pool's connection
			// timeout for a server already gone, past the test JVM's exit deadline ("Surefire is going to kill self
			// fork JVM").
			SpringApplication.getShutdownHandlers().add(TestDatabase::dropAll);
		}
		return serverUrl;
	}

	private static synchronized void dropAll() {
		if (embedded != null) {
			try {
				embedded.close();
			}
			catch (IOException ex) {
				// the JVM is exiting; the data directory is temporary anyway
			}
			return;
		}
		for (String name : created) {
			try {
				execute(serverUrl, "DROP DATABASE IF EXISTS " + name + " WITH (FORCE)");
			}
			catch (RuntimeException ex) {
				// best effort on exit
			}
		}
	}

}
