package dev.taskqueue.internal.worker;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.stream.Collectors;

import dev.taskqueue.internal.support.DatabaseOutage;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;

import org.springframework.transaction.support.TransactionOperations;

/**
 * Writes the deletes of {@code BATCHED} completions that no claim carried: a full batch at once, a partial one once
 * it has waited {@code taskqueue.worker.completion-flush-interval} (see {@link Mailbox#awaitDeletes()}). Deletes that
 * cannot be written (the database is away) go back to the mailbox and are written later.
 */
final class CompletionFlusher implements Runnable {

	private static final Log logger = LogFactory.getLog(CompletionFlusher.class);

	private final Mailbox mailbox;

	private final TransactionOperations transactions;

	private final OutcomeRecorder outcomes;

	/** Writes the deletes, and runs the tasks they give this worker. */
	private final Completer completer;

	/** Where failures to reach the database are said, once per outage for the whole instance. */
	private final DatabaseOutage outage;

	private final long retryMillis;

	/**
	 * @param completer writes the deletes
	 * @param retryMillis how long to wait after a batch could not be written
	 */
	CompletionFlusher(Mailbox mailbox, TransactionOperations transactions, OutcomeRecorder outcomes,
			Completer completer, DatabaseOutage outage, long retryMillis) {
		this.mailbox = mailbox;
		this.transactions = transactions;
		this.outcomes = outcomes;
		this.completer = completer;
		this.outage = outage;
		this.retryMillis = retryMillis;
	}

	/** Writes batches until the mailbox stops and nothing is left, or the thread is interrupted. */
	@Override
	public void run() {
		while (true) {
			List<Outcome.DeletePending> batch;
			try {
				batch = this.mailbox.awaitDeletes();
			}
			catch (InterruptedException ex) {
				Thread.currentThread().interrupt();
				return;
			}
			if (batch == null) {
				return;
			}
			if (!write(batch)) {
				try {
					Thread.sleep(this.retryMillis);
				}
				catch (InterruptedException ex) {
					Thread.currentThread().interrupt();
					return;
				}
			}
		}
	}

	private boolean write(List<Outcome.DeletePending> batch) {
		Set<UUID> deleted = new HashSet<>();
		List<ClaimedTask> given = new ArrayList<>(); // tasks the completions gave this worker to run
		long tried = System.nanoTime();
		try {
			Map<UUID, List<ClaimedTask>> bySession = batch.stream()
				.map(Outcome.DeletePending::task)
				.collect(Collectors.groupingBy(ClaimedTask::claimedBy, Collectors.toList()));
			this.transactions.executeWithoutResult((status) -> {
				deleted.clear(); // a serialization failure runs this again: what a rolled back try did is undone
				given.clear();
				bySession.forEach((session, tasks) -> {
					ClaimResult result = this.completer.completeAll(session, tasks);
					deleted.addAll(result.completed());
					given.addAll(result.handedOff());
				});
			});
		}
		catch (RuntimeException | Error ex) {
			// An Error too: the flusher must go on, or these tasks would stay claimed while this session lives.
			if (ex instanceof Error || !this.outage.failed("write batched completions", ex)) {
				logger.warn("Could not write " + batch.size() + " completions, will try again: "
						+ ErrorText.summary(ex));
			}
			this.mailbox.putBack(batch);
			return false;
		}
		this.outage.succeeded(tried);
		this.completer.run(given);
		this.mailbox.written(batch);
		this.outcomes.deleted(batch, deleted);
		return true;
	}

}
