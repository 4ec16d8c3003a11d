package dev.taskqueue.dialect;

import java.util.UUID;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import dev.taskqueue.autoconfigure.TaskQueueSchemaMigrator;
import dev.taskqueue.internal.jdbc.Database;
import dev.taskqueue.internal.jdbc.DatabaseDialect;
import dev.taskqueue.internal.jdbc.TaskTables;
import dev.taskqueue.test.TestDatabase;

import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.jdbc.datasource.DriverManagerDataSource;

/**
 * A PostgreSQL database that behaves, for TaskQueue, like CockroachDB: a role that may not execute
 * {@code pg_notify}, any advisory lock function or {@code pg_terminate_backend} (revoked from PUBLIC in this
 * database only: function privileges live in each database's own catalog), and whose transactions are SERIALIZABLE
 * by default. TaskQueue's tables are migrated by the superuser beforehand (Flyway itself takes an advisory lock on
 * PostgreSQL; on CockroachDB it does not). Applications on {@link #url()} add {@link CockroachDialect}, which
 * replaces detection, so that every dialect code path runs: no NOTIFY, the row migration lock, the give-up that
 * closes the connection, the retries of serialization failures.
 */
public final class RestrictedPostgres implements AutoCloseable {

	private static final Pattern DATABASE = Pattern.compile("jdbc:postgresql://[^/]+/([^?]+).*");

	// Every overload of each, found in the catalog rather than listed by signature.
	private static final String REVOKE = """
			DO $$
			DECLARE f regprocedure;
			BEGIN
			    FOR f IN SELECT oid::regprocedure FROM pg_proc
			        WHERE proname IN ('pg_notify', 'pg_terminate_backend') OR proname LIKE 'pg\\_%advisory%lock%'
			    LOOP
			        EXECUTE 'REVOKE EXECUTE ON FUNCTION ' || f || ' FROM PUBLIC';
			    END LOOP;
			END $$""";

	private final String superuserUrl;

	private final String role = "tq_restricted_" + UUID.randomUUID().toString().substring(0, 8);

	private final String password = UUID.randomUUID().toString();

	private final JdbcTemplate superuser;

	public RestrictedPostgres() {
		this.superuserUrl = TestDatabase.createDatabase();
		this.superuser = new JdbcTemplate(new DriverManagerDataSource(this.superuserUrl));
		new TaskQueueSchemaMigrator(this.superuser.getDataSource(), TaskTables.inSchema(null)).afterPropertiesSet();
		Matcher matcher = DATABASE.matcher(this.superuserUrl);
		if (!matcher.matches()) {
			throw new IllegalStateException("Not a PostgreSQL URL: " + this.superuserUrl);
		}
		this.superuser.execute("CREATE ROLE " + this.role + " LOGIN PASSWORD '" + this.password + "'");
		this.superuser.execute("GRANT USAGE, CREATE ON SCHEMA public TO " + this.role);
		this.superuser.execute("GRANT ALL ON ALL TABLES IN SCHEMA public TO " + this.role);
		this.superuser.execute("GRANT ALL ON ALL SEQUENCES IN SCHEMA public TO " + this.role);
		this.superuser.execute(REVOKE);
		this.superuser.execute("ALTER ROLE " + this.role + " IN DATABASE " + matcher.group(1)
				+ " SET default_transaction_isolation = 'serializable'");
	}

	/** The restricted role's URL. */
	public String url() {
		String[] parts = this.superuserUrl.split("\\?", 2);
		StringBuilder url = new StringBuilder(parts[0]).append("?user=").append(this.role)
			.append("&password=").append(this.password);
		if (parts.length > 1) {
			for (String parameter : parts[1].split("&")) {
				if (!parameter.startsWith("user=") && !parameter.startsWith("password=")) {
					url.append('&').append(parameter);
				}
			}
		}
		return url.toString();
	}

	/** A superuser on the same database, for the test's own reads and for what the test does to the instances. */
	JdbcTemplate superuser() {
		return this.superuser;
	}

	public int count(String sql) {
		Integer count = this.superuser.queryForObject(sql, Integer.class);
		return (count != null) ? count : -1;
	}

	@Override
	public void close() {
		try {
			this.superuser.execute("DROP OWNED BY " + this.role);
			this.superuser.execute("DROP ROLE " + this.role);
		}
		catch (RuntimeException ex) {
			// best effort: a connection of the role may still be closing; the database goes with the JVM
		}
	}

	/** Replaces detection: CockroachDB's capabilities, on PostgreSQL, with the give-up PostgreSQL can do. */
	@Configuration(proxyBeanMethods = false)
	static class CockroachDialect {

		@Bean
		DatabaseDialect restrictedDialect() {
			return new DatabaseDialect(Database.COCKROACHDB, false, false,
					DatabaseDialect.SessionEnd.CLOSE_CONNECTION);
		}

	}

}
