package dev.taskqueue.internal.jdbc;

import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import org.springframework.jdbc.core.ConnectionCallback;
import org.springframework.jdbc.core.JdbcTemplate;

/** The plans PostgreSQL caches for the worker's statements once it uses generic plans, as the worker's do. */
public final class GenericPlans {

	private GenericPlans() {
	}

	/** The generic plan of {@code sql} (JDBC's question marks), its parameters' types inferred by the server. */
	public static String of(JdbcTemplate jdbc, String sql) {
		return jdbc.execute((ConnectionCallback<String>) (connection) -> explain(connection, sql));
	}

	private static String explain(Connection connection, String sql) throws java.sql.SQLException {
		try (Statement statement = connection.createStatement()) {
			statement.execute("SET plan_cache_mode = force_generic_plan");
			statement.execute("PREPARE generic AS " + numbered(sql));
			StringBuilder nulls = new StringBuilder();
			try (ResultSet count = statement.executeQuery(
					"SELECT cardinality(parameter_types) FROM pg_prepared_statements WHERE name = 'generic'")) {
				count.next();
				for (int i = 0; i < count.getInt(1); i++) {
					nulls.append((i == 0) ? "NULL" : ", NULL");
				}
			}
			StringBuilder plan = new StringBuilder();
			try (ResultSet rows = statement.executeQuery("EXPLAIN EXECUTE generic(" + nulls + ")")) {
				while (rows.next()) {
					plan.append(rows.getString(1)).append('\n');
				}
			}
			statement.execute("DEALLOCATE generic");
			statement.execute("RESET plan_cache_mode");
			return plan.toString();
		}
	}

	/** The statement with PostgreSQL's numbered parameters in place of JDBC's question marks. */
	private static String numbered(String sql) {
		Matcher matcher = Pattern.compile("\\?").matcher(sql);
		StringBuilder numbered = new StringBuilder();
		int n = 0;
		while (matcher.find()) {
			matcher.appendReplacement(numbered, "\\$" + (++n));
		}
		return matcher.appendTail(numbered).toString();
	}

}
