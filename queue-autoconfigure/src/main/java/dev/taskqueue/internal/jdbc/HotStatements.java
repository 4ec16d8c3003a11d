package dev.taskqueue.internal.jdbc;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;

import javax.sql.DataSource;

import org.springframework.dao.DataAccessException;
import org.springframework.jdbc.UncategorizedSQLException;
import org.springframework.jdbc.datasource.DataSourceUtils;
import org.springframework.jdbc.support.JdbcUtils;
import org.springframework.jdbc.support.SQLExceptionTranslator;

/**
 * Runs the statements the worker runs for every task (claims and completions) as plain JDBC, the way
 * {@code JdbcTemplate} runs them, without what {@code JdbcClient} adds to each call: substituting named parameters,
 * a parameter source, a statement creator factory. In a profile of the worker these made a completion cost about
 * four times the driver's execute. The SQL has {@code ?} placeholders bound by position, and rows are read by
 * column index.
 * <p>
 * Like {@code JdbcTemplate}: the statement runs on the connection of the current Spring-managed transaction (or on
 * one of its own, outside one), gets the transaction's remaining time as its query timeout, and a
 * {@link SQLException} becomes the {@link DataAccessException} the given translator (the one {@code JdbcTemplate}
 * would use) makes of it.
 */
public final class HotStatements {

	// The task JdbcTemplate names in the messages of the same failures.
	private static final String TASK = "PreparedStatementCallback";

	/** Binds a statement's parameters by position; the connection is there to create arrays. */
	@FunctionalInterface
	public interface Parameters {

		void bind(PreparedStatement statement, Connection connection) throws SQLException;

	}

	/** Reads all rows of a result. */
	@FunctionalInterface
	public interface Rows<T> {

		T read(ResultSet rows) throws SQLException;

	}

	@FunctionalInterface
	private interface Execution<T> {

		T execute(PreparedStatement statement) throws SQLException;

	}

	private final DataSource dataSource;

	private final SQLExceptionTranslator translator;

	public HotStatements(DataSource dataSource, SQLExceptionTranslator translator) {
		this.dataSource = dataSource;
		this.translator = translator;
	}

	/** Runs a statement that returns no rows, and returns how many rows it changed. */
	public int update(String sql, Parameters parameters) {
		return run(sql, parameters, PreparedStatement::executeUpdate);
	}

	/** Runs SQL of one or more statements, whatever they return, in one round trip. */
	public void execute(String sql, Parameters parameters) {
		run(sql, parameters, PreparedStatement::execute);
	}

	/** Runs SQL of one or more statements in one round trip, and reads the rows of the first. */
	public <T> T queryFirst(String sql, Parameters parameters, Rows<T> rows) {
		return run(sql, parameters, (statement) -> {
			statement.execute();
			try (ResultSet result = statement.getResultSet()) {
				return rows.read(result);
			}
		});
	}

	/** Runs a statement that returns rows. */
	public <T> T query(String sql, Parameters parameters, Rows<T> rows) {
		return run(sql, parameters, (statement) -> {
			try (ResultSet result = statement.executeQuery()) {
				return rows.read(result);
			}
		});
	}

	private <T> T run(String sql, Parameters parameters, Execution<T> execution) {
		Connection connection = DataSourceUtils.getConnection(this.dataSource);
		PreparedStatement statement = null;
		try {
			// The driver keeps the parsed (and, after a few uses, server-prepared) statement per connection and SQL.
			statement = connection.prepareStatement(sql);
			DataSourceUtils.applyTransactionTimeout(statement, this.dataSource);
			parameters.bind(statement, connection);
			return execution.execute(statement);
		}
		catch (SQLException ex) {
			// Connection back first, as JdbcTemplate does: a translator that reads error codes may need one.
			JdbcUtils.closeStatement(statement);
			statement = null;
			DataSourceUtils.releaseConnection(connection, this.dataSource);
			connection = null;
			DataAccessException translated = this.translator.translate(TASK, sql, ex);
			throw (translated != null) ? translated : new UncategorizedSQLException(TASK, sql, ex);
		}
		finally {
			JdbcUtils.closeStatement(statement);
			DataSourceUtils.releaseConnection(connection, this.dataSource);
		}
	}

}
