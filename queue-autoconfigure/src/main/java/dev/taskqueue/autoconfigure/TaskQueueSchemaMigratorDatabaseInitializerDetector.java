package dev.taskqueue.autoconfigure;

import java.util.Set;

import org.springframework.boot.sql.init.dependency.AbstractBeansOfTypeDatabaseInitializerDetector;

/**
 * Tells Spring Boot that {@link TaskQueueSchemaMigrator} initializes the database, so beans that depend on
 * database initialization (JPA, {@code JdbcTemplate} users, the worker) wait for it.
 */
class TaskQueueSchemaMigratorDatabaseInitializerDetector extends AbstractBeansOfTypeDatabaseInitializerDetector {

	@Override
	protected Set<Class<?>> getDatabaseInitializerBeanTypes() {
		return Set.of(TaskQueueSchemaMigrator.class);
	}

}
