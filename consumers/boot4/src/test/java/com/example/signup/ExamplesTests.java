package com.example.signup;

import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.List;

import dev.taskqueue.BatchResult;
import dev.taskqueue.TaskRequest;
import dev.taskqueue.testing.AutoConfigureTaskQueueDatabase;
import dev.taskqueue.testing.TaskQueueTester;
import org.junit.jupiter.api.Test;

import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.transaction.annotation.Transactional;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Runs the README's shorter snippets ({@link Examples}) against the database and checks what they enqueued.
 */
@SpringBootTest(properties = "taskqueue.worker.enabled=false")
@AutoConfigureTaskQueueDatabase
@Transactional
class ExamplesTests {

    @Autowired Examples examples;
    @Autowired TaskQueueTester tester;

    @Test
    void moreWaysToEnqueue() {
        Account account = new Account("acc-1");
        List<TaskRequest> requests = List.of(TaskRequest.of("sync", new Account("acc-2")),
                TaskRequest.of("sync", new Account("acc-3")));

        assertThat(this.examples.moreWaysToEnqueue(new Report("monthly"), new Reminder("call back"),
                Instant.now().plus(1, ChronoUnit.DAYS), account, requests)).hasSize(2);

        this.tester.assertEnqueuedCount("reports", 1);
        this.tester.assertEnqueuedCount("reminders", 2);
        this.tester.assertEnqueuedCount("sync", 3);
        assertThat(this.tester.enqueued("reports").get(0).priority()).isEqualTo(10);
        assertThat(this.tester.enqueued("reminders")).noneMatch((task) -> task.isDue());
    }

    @Test
    void whatElseItDoes() {
        List<TaskRequest> parts = List.of(TaskRequest.of("import-row", new Report("part 1")),
                TaskRequest.of("import-row", new Report("part 2")));

        BatchResult batch = this.examples.whatElseItDoes(new LedgerEntry("acc-1", 1250), new Account("acc-1"),
                new OrderPlaced("order-1"), parts, new Report("summary"));

        assertThat(batch.taskIds()).hasSize(2);
        this.tester.assertEnqueued("ledger", new LedgerEntry("acc-1", 1250));
        this.tester.assertEnqueuedCount("import-row", 2);
    }

}
