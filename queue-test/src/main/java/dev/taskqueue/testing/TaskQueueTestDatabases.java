package dev.taskqueue.testing;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import io.zonky.test.db.postgres.embedded.EmbeddedPostgres;
import org.jspecify.annotations.Nullable;

import org.springframework.boot.SpringApplication;

/**
 * The server of {@link AutoConfigureTaskQueueDatabase}'s databases, one per JVM: the one
 * {@value #URL_VARIABLE} names, or else an embedded PostgreSQL started on first use.
 */
final class TaskQueueTestDatabases {

	/** The environment variable that names a server to create the databases on instead of the embedded one. */
	static final String URL_VARIABLE = "TASKQUEUE_TEST_JDBC_URL";

	private static final Pattern URL = Pattern.compile("(jdbc:postgresql://[^/?]+/)([^?]*)(\\?(.*))?");

	private static @Nullable Server server;

	private static final List<String> created = new ArrayList<>();

	private TaskQueueTestDatabases() {
	}

	/** A new, empty database. */
	static synchronized Database create() {
		Server server = server();
		String name = "taskqueue_test_" + UUID.randomUUID().toString().replace("-", "").substring(0, 12);
		execute(server.adminUrl(), "CREATE DATABASE " + name);
		created.add(name);
		return new Database(server.urlPrefix() + name + server.urlParameters(), server.username(), server.password());
	}

	private static Server server() {
		if (server == null) {
			String url = System.getenv(URL_VARIABLE);
			server = (url != null && !url.isBlank()) ? external(url.strip()) : embedded();
			// Spring Boot runs its shutdown handlers after it has closed the application contexts, which a plain JVM
			// shutdown hook would race: a worker ending its session would wait for a connection to a server gone.
			SpringApplication.getShutdownHandlers().add(TaskQueueTestDatabases::shutDown);
		}
		return server;
	}

	private static Server external(String url) {
		Matcher matcher = URL.matcher(url);
		if (!matcher.matches()) {
			throw new IllegalStateException(URL_VARIABLE + " must be a PostgreSQL JDBC URL with the user as a parameter, "
					+ "such as jdbc:postgresql://127.0.0.1:5432/postgres?user=postgres, but was " + url);
		}
		String query = (matcher.group(4) != null) ? matcher.group(4) : "";
		Map<String, String> parameters = parameters(query);
		// The URL's parameters (ssl settings and the like) go with every database's URL; pgjdbc prefers the URL's
		// user and password to the data source's, so the properties below only say the same thing again.
		return new Server(url, matcher.group(1), query.isEmpty() ? "" : "?" + query,
				parameters.getOrDefault("user", System.getProperty("user.name")),
				parameters.getOrDefault("password", ""), null);
	}

	private static Server embedded() {
		try {
			// Stopped by shutDown(), after the contexts, rather than by a shutdown hook of its own.
			EmbeddedPostgres postgres = EmbeddedPostgres.builder().setRegisterShutdownHook(false).start();
			String prefix = "jdbc:postgresql://localhost:" + postgres.getPort() + "/";
			return new Server(prefix + "postgres?user=postgres", prefix, "", "postgres", "", postgres);
		}
		catch (IOException ex) {
			throw new UncheckedIOException("Could not start embedded PostgreSQL for @AutoConfigureTaskQueueDatabase; set "
					+ URL_VARIABLE + " to use a PostgreSQL server instead", ex);
		}
	}

	private static Map<String, String> parameters(String query) {
		Map<String, String> parameters = new HashMap<>();
		for (String pair : query.split("&")) {
			int equals = pair.indexOf('=');
			if (equals > 0) {
				parameters.put(pair.substring(0, equals),
						URLDecoder.decode(pair.substring(equals + 1), StandardCharsets.UTF_8));
			}
		}
		return parameters;
	}

	private static void execute(String url, String sql) {
		try (Connection connection = DriverManager.getConnection(url); Statement statement = connection.createStatement()) {
			statement.execute(sql);
		}
		catch (SQLException ex) {
			throw new IllegalStateException("Could not run '" + sql + "' on " + url + ": " + ex.getMessage(), ex);
		}
	}

	private static synchronized void shutDown() {
		Server server = TaskQueueTestDatabases.server;
		if (server == null) {
			return;
		}
		EmbeddedPostgres embedded = server.embedded();
		if (embedded != null) {
			try {
				embedded.close(); // deletes its temporary data directory, and the databases with it
			}
			catch (IOException ex) {
				// the JVM is exiting
			}
			return;
		}
		for (String name : created) {
			try {
				execute(server.adminUrl(), "DROP DATABASE IF EXISTS " + name + " WITH (FORCE)");
			}
			catch (RuntimeException ex) {
				// Best effort while the JVM exits: a database left behind is empty but for one test's rows.
			}
		}
	}

	/** A test's database: what {@code spring.datasource.*} is set to. */
	record Database(String url, String username, String password) {
	}

	private record Server(String adminUrl, String urlPrefix, String urlParameters, String username, String password,
			@Nullable EmbeddedPostgres embedded) {
	}

}
