package dev.taskqueue.internal.schedule;

import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.UUID;

import dev.taskqueue.ScheduleInfo;
import org.springframework.transaction.support.TransactionOperations;

/**
 * What {@code TaskQueueOperations} does to recurring schedules: list, pause, resume and trigger them. Each call
 * joins the caller's transaction when there is one.
 */
public class ScheduleControl {

	private final ScheduleRepository repository;

	private final TickRunner ticks;

	private final TransactionOperations transactions;

	private final Duration sessionTimeout;

	private final Runnable changed;

	/**
	 * @param sessionTimeout how long a schedule stays declared after a running instance last marked it
	 * @param changed tells this instance's scheduler to look at the schedules again
	 */
	ScheduleControl(ScheduleRepository repository, TickRunner ticks, TransactionOperations transactions,
			Duration sessionTimeout, Runnable changed) {
		this.repository = repository;
		this.ticks = ticks;
		this.transactions = transactions;
		this.sessionTimeout = sessionTimeout;
		this.changed = changed;
	}

	public List<ScheduleInfo> list() {
		return this.repository.list(this.sessionTimeout);
	}

	public boolean pause(String name) {
		return this.repository.setPaused(name, true);
	}

	public boolean resume(String name) {
		boolean found = this.repository.setPaused(name, false);
		this.changed.run();
		return found;
	}

	public Optional<UUID> trigger(String name) {
		return this.transactions.execute((status) -> this.repository.triggerSource(name)
			.map((source) -> this.ticks.enqueue(name, source.queue(), source.payload(), source.keyed(), source.now())
				.id()));
	}

}
