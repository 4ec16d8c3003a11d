package dev.taskqueue.benchmark;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import io.zonky.test.db.postgres.embedded.EmbeddedPostgres;

/**
 * The PostgreSQL server of a benchmark run, embedded unless {@code --jdbc-url} names one, which hands out a scratch
 * database for each measurement so that no measurement sees another's rows or dead tuples.
 */
final class BenchmarkDatabase implements AutoCloseable {

	private static final Pattern URL = Pattern.compile("(jdbc:postgresql://[^/]+/)([^?]*)(\\?.*)?");

	/**
	 * Settings of the embedded server: zonky turns synchronous_commit off, and a benchmark wants PostgreSQL's
	 * defaults, under which every commit waits for its WAL to reach the disk; fsync and full_page_writes are named
	 * too, so that no default of the embedded server's can turn them off.
	 */
	private static final Map<String, String> EMBEDDED_SETTINGS = Map.of("synchronous_commit", "on", "fsync", "on",
			"full_page_writes", "on");

	private final String serverUrl;

	private final EmbeddedPostgres embedded;

	private final Set<String> scratch = ConcurrentHashMap.newKeySet();

	private BenchmarkDatabase(String serverUrl, EmbeddedPostgres embedded) {
		this.serverUrl = serverUrl;
		this.embedded = embedded;
		if (!URL.matcher(serverUrl).matches()) {
			throw new IllegalArgumentException("--jdbc-url must look like jdbc:postgresql://host:port/database?user=..."
					+ " but was " + serverUrl);
		}
	}

	/** The server at {@code jdbcUrl}, or an embedded one with {@code settings} when it is empty. */
	static BenchmarkDatabase start(String jdbcUrl, Map<String, String> settings) {
		if (!jdbcUrl.isEmpty()) {
			return new BenchmarkDatabase(jdbcUrl, null);
		}
		Map<String, String> all = new LinkedHashMap<>(EMBEDDED_SETTINGS);
		all.putAll(settings);
		EmbeddedPostgres.Builder builder = EmbeddedPostgres.builder();
		all.forEach(builder::setServerConfig);
		try {
			EmbeddedPostgres postgres = builder.start();
			return new BenchmarkDatabase(postgres.getJdbcUrl("postgres", "postgres"), postgres);
		}
		catch (IOException ex) {
			throw new UncheckedIOException("Could not start embedded PostgreSQL", ex);
		}
	}

	/** Creates an empty database; closing it drops it. */
	ScratchDatabase createScratch() {
		String name = "taskqueue_bench_" + UUID.randomUUID().toString().replace("-", "").substring(0, 12);
		execute("CREATE DATABASE " + name);
		this.scratch.add(name);
		Matcher matcher = URL.matcher(this.serverUrl);
		matcher.matches();
		String url = matcher.group(1) + name + ((matcher.group(3) != null) ? matcher.group(3) : "");
		return new ScratchDatabase(url, () -> {
			execute("DROP DATABASE IF EXISTS " + name + " WITH (FORCE)");
			this.scratch.remove(name);
		});
	}

	/** The server's version and the settings that matter most to these figures. */
	String describe() {
		StringBuilder description = new StringBuilder((this.embedded != null) ? "embedded " : "");
		try (Connection connection = DriverManager.getConnection(this.serverUrl);
				Statement statement = connection.createStatement();
				ResultSet settings = statement.executeQuery("""
						SELECT name, current_setting(name) AS setting FROM pg_settings
						WHERE name IN ('server_version', 'synchronous_commit', 'fsync', 'full_page_writes',
						               'wal_sync_method', 'shared_buffers', 'max_connections', 'autovacuum')
						ORDER BY name = 'server_version' DESC, name""")) {
			while (settings.next()) {
				String name = settings.getString("name");
				description.append(name.equals("server_version") ? "PostgreSQL " : " " + name + "=")
					.append(settings.getString("setting"));
			}
		}
		catch (SQLException ex) {
			throw new IllegalStateException("Could not read the settings of " + this.serverUrl + ": " + ex.getMessage(),
					ex);
		}
		return description.toString();
	}

	@Override
	public void close() {
		for (String name : Set.copyOf(this.scratch)) {
			execute("DROP DATABASE IF EXISTS " + name + " WITH (FORCE)");
		}
		if (this.embedded != null) {
			try {
				this.embedded.close();
			}
			catch (IOException ex) {
				// its data directory is temporary anyway
			}
		}
	}

	private void execute(String sql) {
		try (Connection connection = DriverManager.getConnection(this.serverUrl);
				Statement statement = connection.createStatement()) {
			statement.execute(sql);
		}
		catch (SQLException ex) {
			throw new IllegalStateException("Could not run '" + sql + "' on " + this.serverUrl + ": " + ex.getMessage(),
					ex);
		}
	}

}
