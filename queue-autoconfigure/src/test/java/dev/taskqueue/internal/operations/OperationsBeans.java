package dev.taskqueue.internal.operations;

import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;

import javax.sql.DataSource;

import dev.taskqueue.TaskQueueOperations;
import dev.taskqueue.internal.jdbc.BatchRepository;
import dev.taskqueue.internal.jdbc.DeadTaskRepository;
import dev.taskqueue.internal.jdbc.QueueRepository;
import dev.taskqueue.internal.jdbc.TaskTables;
import tools.jackson.databind.json.JsonMapper;

import org.springframework.beans.factory.BeanFactory;
import org.springframework.transaction.support.TransactionOperations;

/**
 * What the tests of other packages do with the operations' package-private beans: prune or sweep now rather than
 * wait for the background thread, and make the operations by hand on a database.
 */
public final class OperationsBeans {

	/** The name of the retention pruner's bean. */
	public static final String RETENTION_PRUNER = "taskQueueRetentionPruner";

	private OperationsBeans() {
	}

	/** Prunes now; returns how many rows were deleted. */
	public static int prune(BeanFactory beans) {
		return beans.getBean(RetentionPruner.class).prune();
	}

	/** Sweeps batches now; returns the batches finished. */
	public static List<UUID> sweep(BeanFactory beans) {
		return beans.getBean(BatchSweeper.class).sweep();
	}

	/** Releases the tasks whose dependencies are done now; returns how many. */
	public static int releaseDependents(BeanFactory beans) {
		return beans.getBean(BatchSweeper.class).releaseDependents();
	}

	/** The operations' class, for a bean definition that needs no instance. */
	public static Class<? extends TaskQueueOperations> operationsType() {
		return DefaultTaskQueueOperations.class;
	}

	/** The operations on {@code dataSource}, with no handlers, worker, limits or schedules. */
	public static TaskQueueOperations operations(DataSource dataSource, TaskTables tables, QueueRepository queues,
			TransactionOperations transactions) {
		return new DefaultTaskQueueOperations(queues, new DeadTaskRepository(dataSource, tables), transactions,
				100_000, Set::of, (queue, paused) -> {
				}, null, Map.of(), null, new BatchRepository(dataSource, tables, null), dataSource, tables,
				new ProgressQueries(dataSource, tables), new ResultRepository(dataSource, tables), new JsonMapper());
	}

}
