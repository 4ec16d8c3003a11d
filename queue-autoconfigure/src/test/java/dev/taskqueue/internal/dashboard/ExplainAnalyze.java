package dev.taskqueue.internal.dashboard;

import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import org.springframework.jdbc.core.simple.JdbcClient;

/**
 * What a statement read when PostgreSQL ran it: its plan with {@code EXPLAIN (ANALYZE, BUFFERS)}, the rows all its
 * nodes returned together, and the pages the whole statement touched. A statement that scans a table, or a range of
 * an index wider than it needs, reads thousands of either.
 */
public final class ExplainAnalyze {

	/** Rows a node returned per loop (PostgreSQL 18 writes them with two decimals), and its loops. */
	private static final Pattern ROWS = Pattern.compile("actual rows=([0-9.]+) loops=(\\d+)");

	/** The pages the whole statement touched, from its top node. */
	private static final Pattern BUFFERS = Pattern.compile("Buffers: shared(?: hit=(\\d+))?(?: read=(\\d+))?");

	final String plan;

	private ExplainAnalyze(String plan) {
		this.plan = plan;
	}

	public static ExplainAnalyze run(JdbcClient jdbc, String sql, Map<String, ?> params) {
		return new ExplainAnalyze(String.join("\n",
				jdbc.sql("EXPLAIN (ANALYZE, BUFFERS, TIMING OFF) " + sql).params(params).query(String.class).list()));
	}

	/** The rows every node of the plan returned, all loops together. */
	public double rowsRead() {
		double read = 0;
		Matcher rows = ROWS.matcher(this.plan);
		while (rows.find()) {
			read += Double.parseDouble(rows.group(1)) * Long.parseLong(rows.group(2));
		}
		return read;
	}

	/** The shared buffers the statement hit or read, from its top node. */
	public long pages() {
		Matcher buffers = BUFFERS.matcher(this.plan);
		if (!buffers.find()) {
			throw new IllegalStateException("No buffers in the plan:\n" + this.plan);
		}
		return ((buffers.group(1) != null) ? Long.parseLong(buffers.group(1)) : 0)
				+ ((buffers.group(2) != null) ? Long.parseLong(buffers.group(2)) : 0);
	}

}
