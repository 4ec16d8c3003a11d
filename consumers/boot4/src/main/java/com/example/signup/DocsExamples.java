package com.example.signup;

import java.math.BigDecimal;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import java.util.UUID;

import dev.taskqueue.DeadTask;
import dev.taskqueue.DeadTaskPage;
import dev.taskqueue.RecurringTask;
import dev.taskqueue.TaskContext;
import dev.taskqueue.TaskQueue;
import dev.taskqueue.TaskQueueOperations;
import dev.taskqueue.TaskRequest;
import dev.taskqueue.UniqueMode;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import org.springframework.stereotype.Component;

// The snippets of docs/, each in a method whose parameters name what the snippet leaves to the reader.
// DocumentationSnippetsTests checks that the lines are the pages'; DocsExamplesTests runs them.

record ApplyPayment(long accountId, BigDecimal amount) {}

record SendInvoice(long orderId) {}

record Reindex(long productId) {}

@Component
class DocsExamples {

    private static final Logger log = LoggerFactory.getLogger(DocsExamples.class);

    private final TaskQueue taskQueue;

    private final TaskQueueOperations operations;

    DocsExamples(TaskQueue taskQueue, TaskQueueOperations operations) {
        this.taskQueue = taskQueue;
        this.operations = operations;
    }

    // docs/ordered-keys.md
    void orderedKeys(long accountId, BigDecimal amount) {
        taskQueue.enqueue(TaskRequest.of("accounts", new ApplyPayment(accountId, amount))
                .withOrderingKey("account-" + accountId));
    }

    // docs/fairness.md
    void fairness(Object payload, String customerId) {
        taskQueue.enqueue(TaskRequest.of("reports", payload).withFairnessKey(customerId));
    }

    // docs/operations.md, bulk actions on waiting tasks
    int bulkWaiting() {
        // Every task of "emails" waiting to be retried after a timeout: due now, with the attempts it has left.
        int due = operations.retryWaiting(new TaskQueueOperations.TaskFilter("emails", "timeout", null, null));
        // What failed between 14:00 and 14:05 UTC while a bad deploy ran, in every queue.
        int deleted = operations.deleteWaiting(new TaskQueueOperations.TaskFilter(null, null,
                Instant.parse("2026-11-27T14:00:00Z"), Instant.parse("2026-11-27T14:05:00Z")));
        return due + deleted;
    }

    // docs/unique-tasks.md
    UUID uniqueKey(long orderId) {
        UUID id = taskQueue.enqueue(TaskRequest.of("invoices", new SendInvoice(orderId))
                .withUniqueKey("invoice-" + orderId));
        return id;
    }

    // docs/unique-tasks.md, debounce
    void debounce(long productId) {
        taskQueue.enqueue(TaskRequest.of("search-index", new Reindex(productId))
                .withDelay(Duration.ofSeconds(5))
                .withUniqueKey("product-" + productId, UniqueMode.REPLACE));
    }

    // docs/dead-letters.md
    int deadLetters(UUID id) {
        DeadTaskPage page = operations.deadTasks("emails", 50, null);      // newest first; null queue = every queue
        for (DeadTask task : page.tasks()) {
            log.info("{} {} {}", task.id(), task.failedAt(), task.errorLine()); // errorLine: the exception and message
        }
        DeadTaskPage older = operations.deadTasks("emails", 50, page.next()); // next is null on the last page

        Optional<DeadTask> task = operations.deadTask(id);   // payload (JSON text) and the whole error
        operations.retryDead(id);                            // back to its queue, ready at once, attempts from zero
        operations.deleteDead(id);
        int deleted = operations.cancelAll("emails");        // every waiting task of the queue; running ones stay
        return deleted;
    }

    // docs/operations.md
    List<TaskQueueOperations.WorkerSessionInfo> operations(UUID taskId) {
        operations.pause("reports");                        // this instance at once, the others within a heartbeat
        operations.resume("reports");
        boolean paused = operations.isPaused("reports");
        boolean retried = operations.retryDead(taskId);     // false: no such dead task
        int moved = operations.retryAllDead("reports");
        DeadTaskPage page = operations.deadTasks("reports", 50, null); // newest first; page.next() reads on, null queue = all
        Optional<DeadTask> dead = operations.deadTask(taskId);         // payload and whole error
        int purged = operations.cancelAll("reports");                  // every waiting task, in batches of 10,000
        int deleted = operations.deleteAllDead("reports");  // also deleteDead(taskId)
        boolean cancelled = operations.cancel(taskId);      // waiting or running, on any instance; false once it ended
        List<TaskQueueOperations.QueueStats> queues = operations.queueStats();
        TaskQueueOperations.QueueStats reports = operations.queueStats("reports"); // counts only this queue's tasks
        List<TaskQueueOperations.WorkerSessionInfo> sessions = operations.sessions();
        return sessions;
    }

}

// docs/recurring-tasks.md

@Component
class Housekeeping {

    @RecurringTask(cron = "0 0 2 * * *", zone = "Europe/Paris")      // every night at 02:00, Paris time
    void purgeExpiredCarts() { /* delete the carts nobody touched for a week */ }

    @RecurringTask(name = "refresh-rates", fixedRate = "5m")
    void refreshRates(TaskContext context) {                           // or no parameter at all
        Instant tick = context.scheduledAt();                          // the tick's time, database clock
        /* fetch the exchange rates as of tick */
    }
}
