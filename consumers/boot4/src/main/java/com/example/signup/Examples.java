package com.example.signup;

import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.UUID;

import dev.taskqueue.BatchResult;
import dev.taskqueue.PublishResult;
import dev.taskqueue.RecurringTask;
import dev.taskqueue.TaskContext;
import dev.taskqueue.TaskQueue;
import dev.taskqueue.TaskRequest;

import org.springframework.stereotype.Component;

// The README's shorter snippets, each in a method whose parameters name what the snippet leaves to the reader.
// DocumentationSnippetsTests checks that the lines are the README's; ExamplesTests runs them.

record Report(String name) {}

record Reminder(String text) {}

record Account(String id) {}

record LedgerEntry(String accountId, long cents) {}

record OrderPlaced(String orderId) {}

@Component
class Examples {

    private final TaskQueue taskQueue;

    Examples(TaskQueue taskQueue) {
        this.taskQueue = taskQueue;
    }

    List<UUID> moreWaysToEnqueue(Report request, Reminder reminder, Instant tomorrowAtNine, Account account,
            List<TaskRequest> requests) {
        taskQueue.enqueue(TaskRequest.of("reports", request).withPriority(10));              // higher runs first
        taskQueue.enqueue(TaskRequest.of("reminders", reminder).withDelay(Duration.ofHours(1)));
        taskQueue.enqueue(TaskRequest.of("reminders", reminder).withRunAt(tomorrowAtNine));
        taskQueue.enqueue(TaskRequest.of("sync", account).withUniqueKey(account.id()));      // once while one waits or runs
        List<UUID> ids = taskQueue.enqueueAll(requests);                                      // one INSERT for all
        return ids;
    }

    BatchResult whatElseItDoes(LedgerEntry entry, Account account, OrderPlaced event, List<TaskRequest> parts,
            Report summary) {
        taskQueue.enqueue(TaskRequest.of("ledger", entry).withOrderingKey(account.id()));   // one at a time per account, in order
        PublishResult r = taskQueue.publish("order-placed", event);    // one task on every queue subscribed to the topic
        BatchResult b = taskQueue.enqueueBatch(parts, TaskRequest.of("reports", summary)); // "summary" runs once all parts ended
        return b;
    }

}

@Component
class Nightly {

    private final Mailer mailer;

    Nightly(Mailer mailer) {
        this.mailer = mailer;
    }

    @RecurringTask(cron = "0 0 2 * * *", zone = "Europe/Paris")    // one task per tick, whatever the number of instances
    void nightly(TaskContext context) {
        mailer.send("ops@example.com", "Nightly report for " + context.scheduledAt());
    }

}
