package dev.taskqueue.benchmark;

import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.SortedMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The statements an instance ran and the shape of each one's plan: with {@code pg_stat_statements}, how often each
 * ran and its mean and longest time on the server; for each text the instance sent ({@link StatementRecorder}), the
 * node types and index names of its generic plan, the plan for any value of the parameters (what
 * {@code EXPLAIN (GENERIC_PLAN)} shows, here with the parameter types pgjdbc sent: {@code PREPARE} with those types,
 * {@code plan_cache_mode = force_generic_plan}, {@code EXPLAIN (VERBOSE) EXECUTE}), matched to
 * {@code pg_stat_statements} by its query identifier. A sequential scan of a task,
 * dead-letter or history table is flagged: it reads the whole table.
 */
final class PlanShapes {

	private static final Pattern NODE = Pattern.compile("^\\s*(?:->\\s+)?([A-Z][^(]*?)\\s+\\(cost=");

	private static final Pattern QUERY_ID = Pattern.compile("^\\s*Query Identifier: (-?\\d+)");

	private static final Pattern WHOLE_TABLE = Pattern
		.compile("Seq Scan on (?:\\w+\\.)?(taskqueue_task|taskqueue_dead_task|taskqueue_history)\\b");

	private static final Set<String> UTILITY = Set.of("SET", "RESET", "SHOW", "BEGIN", "COMMIT", "ROLLBACK", "LISTEN",
			"UNLISTEN", "SAVEPOINT", "RELEASE", "VACUUM", "ANALYZE");

	private final ScratchDatabase database;

	PlanShapes(ScratchDatabase database) {
		this.database = database;
	}

	/** Loads {@code pg_stat_statements} in the database and forgets its figures; false when the server has none. */
	boolean reset() {
		try (Connection connection = this.database.connect(); Statement statement = connection.createStatement()) {
			statement.execute("CREATE EXTENSION IF NOT EXISTS pg_stat_statements");
			statement.execute("SELECT pg_stat_statements_reset()");
			return true;
		}
		catch (SQLException ex) {
			return false; // not in shared_preload_libraries: plans only, without the figures
		}
	}

	/**
	 * Plans each of {@code statements} (texts with their parameters' types) and joins in what
	 * {@code pg_stat_statements} says (when {@code figures}).
	 */
	List<Shape> explain(Map<String, SortedMap<Integer, String>> statements, boolean figures) {
		// The simple query protocol: in the extended one the server takes $1 for a parameter the client must bind.
		String url = this.database.url();
		try (Connection connection = ScratchDatabase
			.connect(url + (url.contains("?") ? "&" : "?") + "preferQueryMode=simple")) {
			Map<String, Figures> byId = figures ? figures(connection) : new HashMap<>();
			try (Statement statement = connection.createStatement()) {
				statement.execute("SET plan_cache_mode = force_generic_plan");
			}
			List<Shape> shapes = new ArrayList<>();
			int number = 0;
			for (Map.Entry<String, SortedMap<Integer, String>> text : statements.entrySet()) {
				shapes.add(explain(connection, "w10_" + number++, text.getKey(), text.getValue(), byId));
			}
			for (Figures left : byId.values()) {
				boolean utility = UTILITY.contains(left.query().strip().split("\\s+", 2)[0].toUpperCase(Locale.ROOT));
				shapes.add(new Shape(left.query(), left, List.of(), utility ? "utility statement: no plan"
						: "not among the texts the instance sent: the benchmark's own", false));
			}
			shapes.sort((a, b) -> Double.compare(b.totalMillis(), a.totalMillis()));
			return shapes;
		}
		catch (SQLException ex) {
			throw new IllegalStateException("Could not read the plans: " + ex.getMessage(), ex);
		}
	}

	/**
	 * The generic plan of {@code text}, prepared with the parameter types pgjdbc sent, so that its query identifier is
	 * the one {@code pg_stat_statements} counted it under (the types are part of it).
	 */
	private Shape explain(Connection connection, String name, String text, SortedMap<Integer, String> types,
			Map<String, Figures> byId) {
		String sql = numbered(text);
		String first = sql.strip().split("\\s+", 2)[0].toUpperCase(Locale.ROOT);
		if (UTILITY.contains(first)) {
			return new Shape(text, null, List.of(), "utility statement: no plan", false);
		}
		int parameters = parameters(text);
		List<String> declared = new ArrayList<>();
		for (int i = 1; i <= parameters; i++) {
			declared.add(types.getOrDefault(i, "unknown"));
		}
		String list = declared.isEmpty() ? "" : "(" + String.join(", ", declared) + ")";
		String nulls = declared.isEmpty() ? "" : "(" + String.join(", ", declared.stream().map((t) -> "NULL").toList())
				+ ")";
		List<String> lines = new ArrayList<>();
		try (Statement statement = connection.createStatement()) {
			statement.execute("PREPARE " + name + list + " AS " + sql);
			try (ResultSet plan = statement.executeQuery("EXPLAIN (VERBOSE) EXECUTE " + name + nulls)) {
				while (plan.next()) {
					lines.add(plan.getString(1));
				}
			}
			statement.execute("DEALLOCATE " + name);
		}
		catch (SQLException ex) {
			return new Shape(text, null, List.of(), "cannot be explained generically: " + ex.getMessage().strip(), false);
		}
		Set<String> nodes = new LinkedHashSet<>();
		String queryId = null;
		boolean wholeTable = false;
		for (String line : lines) {
			Matcher node = NODE.matcher(line);
			if (node.find()) {
				nodes.add(node.group(1).replaceAll(" (on|using) (\\w+)\\.", " $1 "));
				wholeTable |= WHOLE_TABLE.matcher(node.group(1)).find();
			}
			Matcher id = QUERY_ID.matcher(line);
			if (id.find()) {
				queryId = id.group(1);
			}
		}
		Figures figures = (queryId != null) ? byId.remove(queryId) : null;
		return new Shape(text, figures, List.copyOf(nodes), null, wholeTable);
	}

	private static Map<String, Figures> figures(Connection connection) throws SQLException {
		Map<String, Figures> byId = new LinkedHashMap<>();
		try (Statement statement = connection.createStatement();
				ResultSet rows = statement.executeQuery("""
						SELECT queryid::text AS id, query, calls, mean_exec_time, max_exec_time, total_exec_time
						FROM pg_stat_statements
						WHERE dbid = (SELECT oid FROM pg_database WHERE datname = current_database())
						  AND query !~* 'pg_stat_statements|^\\s*(EXPLAIN|CREATE EXTENSION)'
						""")) {
			while (rows.next()) {
				byId.put(rows.getString("id"), new Figures(rows.getString("query"), rows.getLong("calls"),
						rows.getDouble("mean_exec_time"), rows.getDouble("max_exec_time"),
						rows.getDouble("total_exec_time")));
			}
		}
		return byId;
	}

	/** How many parameters {@code text} has: its {@code ?} outside quotes. */
	private static int parameters(String text) {
		return (int) (numbered(text).chars().filter((c) -> c == '$').count()
				- text.chars().filter((c) -> c == '$').count());
	}

	/** {@code text} with pgjdbc's numbered parameters for its {@code ?}, outside quotes. */
	static String numbered(String text) {
		StringBuilder sql = new StringBuilder(text.length() + 16);
		int parameter = 0;
		boolean quoted = false;
		for (int i = 0; i < text.length(); i++) {
			char c = text.charAt(i);
			if (c == '\'') {
				quoted = !quoted;
			}
			if (c == '?' && !quoted) {
				sql.append('$').append(++parameter);
			}
			else {
				sql.append(c);
			}
		}
		return sql.toString();
	}

	/**
	 * What {@code pg_stat_statements} says of one statement.
	 *
	 * @param query its normalized text
	 * @param calls how often it ran
	 * @param meanMillis its mean time
	 * @param maxMillis its longest time
	 * @param totalMillis all its time
	 */
	record Figures(String query, long calls, double meanMillis, double maxMillis, double totalMillis) {
	}

	/**
	 * One statement and its plan's shape.
	 *
	 * @param text the statement
	 * @param figures its figures, or {@code null} when unknown
	 * @param nodes the plan's node types, with their index and table names, each once, in plan order
	 * @param problem why there is no plan, or {@code null}
	 * @param wholeTable whether the plan reads a whole task, dead-letter or history table
	 */
	record Shape(String text, Figures figures, List<String> nodes, String problem, boolean wholeTable) {

		double totalMillis() {
			return (this.figures != null) ? this.figures.totalMillis() : -1;
		}

		/** One line: the figures, a flag for a whole-table read, the shape and the statement's start. */
		String line() {
			String figures = (this.figures != null) ? String.format(Locale.ROOT, "calls=%d mean=%.2fms max=%.2fms",
					this.figures.calls(), this.figures.meanMillis(), this.figures.maxMillis()) : "calls=?";
			String shape = (this.problem != null) ? "plan=(" + this.problem + ")"
					: "plan=[" + String.join(" | ", this.nodes) + "]";
			String statement = this.text.strip().replaceAll("\\s+", " ");
			return figures + (this.wholeTable ? " WHOLE-TABLE-SCAN" : "") + " " + shape + " sql=["
					+ ((statement.length() > 160) ? statement.substring(0, 160) + "…" : statement) + "]";
		}

	}

}
