package dev.taskqueue.internal.worker;

import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Savepoint;

import javax.sql.DataSource;

import org.jspecify.annotations.Nullable;

import org.springframework.jdbc.datasource.ConnectionHolder;
import org.springframework.transaction.CannotCreateTransactionException;
import org.springframework.transaction.support.TransactionSynchronizationManager;

/**
 * The connection of a group's transaction as one task's handler sees it. The task's savepoint is set when the
 * handler first uses the connection, so a handler that does no database work costs the group no round trip, and
 * what a participating transaction marks rollback-only is this task's work, not the group's.
 */
final class TaskConnectionHolder extends ConnectionHolder {

	private final ConnectionHolder group;

	private @Nullable Savepoint savepoint;

	TaskConnectionHolder(ConnectionHolder group) {
		super(group.getConnection(), true);
		this.group = group;
		setSynchronizedWithTransaction(true);
	}

	@Override
	public Connection getConnection() {
		if (this.savepoint == null) {
			try {
				this.savepoint = this.group.createSavepoint();
			}
			catch (SQLException ex) {
				throw new CannotCreateTransactionException("Could not set the savepoint of a task in a group", ex);
			}
		}
		return super.getConnection();
	}

	/**
	 * Binds a holder of the group's connection, bound to {@code dataSource}, in its place, for a task of the group:
	 * its savepoint is set when its handler first uses the connection.
	 */
	static TaskConnectionHolder bindFor(DataSource dataSource) {
		ConnectionHolder group = (ConnectionHolder) TransactionSynchronizationManager.unbindResource(dataSource);
		TaskConnectionHolder connection = new TaskConnectionHolder(group);
		TransactionSynchronizationManager.bindResource(dataSource, connection);
		return connection;
	}

	/** Binds the group's connection to {@code dataSource} again, in this holder's place, once the task has run. */
	void unbind(DataSource dataSource) {
		TransactionSynchronizationManager.unbindResource(dataSource);
		TransactionSynchronizationManager.bindResource(dataSource, this.group);
	}

	/** Whether a statement of the handler failed and left the transaction unusable until it rolls back. */
	boolean isTransactionFailed() {
		return this.savepoint != null && PostgresConnections.isTransactionFailed(super.getConnection());
	}

	/** Undoes what the handler did on the connection, if anything. */
	void rollBack() throws SQLException {
		if (this.savepoint != null) {
			super.getConnection().rollback(this.savepoint);
		}
	}

}
