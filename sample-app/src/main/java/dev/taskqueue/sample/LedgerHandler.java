package dev.taskqueue.sample;

import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;

import dev.taskqueue.TaskHandler;
import dev.taskqueue.sample.LedgerController.LedgerEntry;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import org.springframework.stereotype.Component;

/**
 * Books ledger entries. Entries of one account share an ordering key, so they arrive here one at a time and in the
 * order they were enqueued, whatever the queue's concurrency and the number of instances.
 */
@Component
public class LedgerHandler {

	static final String QUEUE = "ledger";

	private static final Logger logger = LoggerFactory.getLogger(LedgerHandler.class);

	private final Map<String, List<Integer>> booked = new ConcurrentHashMap<>();

	@TaskHandler(queue = QUEUE)
	public void book(LedgerEntry entry) {
		this.booked.computeIfAbsent(entry.account(), (account) -> new CopyOnWriteArrayList<>()).add(entry.number());
		logger.info("Booked entry {} of account {}", entry.number(), entry.account());
	}

	/** The entry numbers booked for {@code account}, in the order they were booked. */
	public List<Integer> booked(String account) {
		return this.booked.getOrDefault(account, List.of());
	}

}
