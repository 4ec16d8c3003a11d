package dev.taskqueue.autoconfigure;

import java.util.Set;

import org.springframework.boot.sql.init.dependency.AbstractBeansOfTypeDatabaseInitializerDetector;
import org.springframework.core.Ordered;

/**
 * Tells Spring Boot that {@link TaskQueueSchemaMigrator} initializes the database, so beans that depend on
 * database initialization (JPA, {@code JdbcTemplate} users, the worker) wait for it.
 */
class TaskQueueSchemaMigratorDatabaseInitializerDetector extends AbstractBeansOfTypeDatabaseInitializerDetector {

	@Override
	protected Set<Class<?>> getDatabaseInitializerBeanTypes() {
		return Set.of(TaskQueueSchemaMigrator.class);
	}

	/**
	 * After the application's own initializers (Flyway's runs at order 1): on a new database they must find the
	 * schema empty, while our migration copes with a schema that already has tables.
	 */
	@Override
	public int getOrder() {
		return Ordered.LOWEST_PRECEDENCE;
	}

}
