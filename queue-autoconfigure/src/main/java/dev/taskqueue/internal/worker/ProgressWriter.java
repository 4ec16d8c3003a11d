package dev.taskqueue.internal.worker;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;

import dev.taskqueue.internal.support.DatabaseOutage;
import dev.taskqueue.internal.support.PeriodicThread;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;

/**
 * Writes the progress that running tasks report, on a thread of its own ({@code tq-progress}) and a connection of
 * its own, so that it shows while the handler's transaction is still open. A handler's report only replaces the
 * task's last one in memory: once per interval the writer writes the latest report of every task that reported
 * since, all in one statement, so a task's progress is written at most once per interval however often its handler
 * reports. The progress of an attempt that ended is deleted by the next write.
 * <p>
 * A failed write is not tried again: the next report of the task writes it. Progress is for people watching; it must
 * never hold a task up or fail it.
 */
final class ProgressWriter {

	private static final Log logger = LogFactory.getLog(ProgressWriter.class);

	private final ProgressRepository repository;

	/** The latest report of each task since the last write. */
	private final Map<UUID, ProgressRepository.Report> latest = new ConcurrentHashMap<>();

	/** The tasks whose attempts ended since the last write, after they had reported progress. */
	private final Set<UUID> ended = ConcurrentHashMap.newKeySet();

	private final PeriodicThread thread;

	private volatile DatabaseOutage outage = new DatabaseOutage();

	ProgressWriter(ProgressRepository repository, Duration interval) {
		this.repository = repository;
		this.thread = new PeriodicThread("tq-progress", interval, interval, this::write);
	}

	void reportOutagesTo(DatabaseOutage outage) {
		this.outage = outage;
	}

	void start() {
		this.thread.start();
	}

	/** Stops the thread, then writes what is left, the deletes of the attempts that ended above all. */
	void stop() {
		this.thread.stop();
		write();
	}

	/** Keeps {@code report} as its task's latest, for the next write. */
	void report(ProgressRepository.Report report) {
		this.latest.put(report.id(), report);
	}

	/** The attempt of task {@code id}, which reported progress, ended: its progress is deleted by the next write. */
	void ended(UUID id) {
		this.latest.remove(id);
		this.ended.add(id);
	}

	/** Writes the latest reports, then deletes the progress of the attempts that ended. */
	void write() {
		long tried = System.nanoTime();
		try {
			List<ProgressRepository.Report> reports = new ArrayList<>(this.latest.size());
			for (UUID id : this.latest.keySet()) {
				ProgressRepository.Report report = this.latest.remove(id);
				if (report != null) {
					reports.add(report);
				}
			}
			List<UUID> done = new ArrayList<>(this.ended);
			this.ended.removeAll(done);
			if (reports.isEmpty() && done.isEmpty()) {
				return; // the common case: no statement, and so nothing to say about the database either
			}
			// A task may have ended after its report was taken: its row is written, then deleted right after.
			this.repository.write(reports);
			this.repository.delete(done);
			this.outage.succeeded(tried);
		}
		catch (RuntimeException ex) {
			if (!this.outage.failed("write the progress of running tasks", ex)) {
				logger.warn("Could not write the progress of running tasks: " + ErrorText.summary(ex));
			}
		}
	}

}
