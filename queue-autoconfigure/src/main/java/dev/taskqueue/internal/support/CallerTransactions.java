package dev.taskqueue.internal.support;

import javax.sql.DataSource;

import org.jspecify.annotations.Nullable;

import org.springframework.jdbc.datasource.ConnectionHolder;
import org.springframework.jdbc.datasource.DataSourceTransactionManager;
import org.springframework.transaction.PlatformTransactionManager;
import org.springframework.transaction.TransactionException;
import org.springframework.transaction.support.TransactionCallback;
import org.springframework.transaction.support.TransactionOperations;
import org.springframework.transaction.support.TransactionSynchronizationManager;
import org.springframework.transaction.support.TransactionTemplate;

/**
 * Transactions on TaskQueue's data source for work an application may call inside its own transaction: the work
 * joins the caller's transaction when there is one, and runs in one of its own otherwise.
 * <p>
 * A {@link DataSourceTransactionManager} of its own is not enough to join. Inside a transaction of the application's
 * {@code JpaTransactionManager} (or another manager that exposes its JDBC connection), the connection is bound to
 * the data source but not marked as in a transaction of a {@code DataSourceTransactionManager}; such a manager
 * would then begin, and commit, a transaction on that very connection, committing the caller's work half-way. So
 * when a transaction is active and another manager bound a connection of this data source to it, the work runs
 * through the application's transaction manager, which takes part in its own transaction as it should (a
 * rollback-only mark included). In a {@code DataSourceTransactionManager}'s transaction, whichever bean began it,
 * its own manager joins.
 */
public final class CallerTransactions implements TransactionOperations {

	private final DataSource dataSource;

	private final TransactionTemplate own;

	private final @Nullable TransactionTemplate application;

	/**
	 * @param application the application's transaction manager when it has exactly one, else {@code null}
	 */
	public CallerTransactions(DataSource dataSource, @Nullable PlatformTransactionManager application) {
		this.dataSource = dataSource;
		this.own = new TransactionTemplate(new DataSourceTransactionManager(dataSource));
		// A DataSourceTransactionManager joins its own transactions: only other managers need to be asked.
		this.application = (application != null && !(application instanceof DataSourceTransactionManager))
				? new TransactionTemplate(application) : null;
	}

	@Override
	public <T> @Nullable T execute(TransactionCallback<T> action) throws TransactionException {
		return (this.application != null && boundByAnotherManager()) ? this.application.execute(action)
				: this.own.execute(action);
	}

	/**
	 * Whether a transaction is active with a connection of this data source that a manager other than a
	 * {@code DataSourceTransactionManager} bound: such a manager (JPA's, Hibernate's) does not mark the connection
	 * as synchronized with its transaction, which a {@code DataSourceTransactionManager} does and then joins.
	 */
	private boolean boundByAnotherManager() {
		return TransactionSynchronizationManager.isActualTransactionActive()
				&& TransactionSynchronizationManager.getResource(this.dataSource) instanceof ConnectionHolder holder
				&& !holder.isSynchronizedWithTransaction();
	}

}
