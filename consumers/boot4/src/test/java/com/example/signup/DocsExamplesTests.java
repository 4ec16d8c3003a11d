package com.example.signup;

import java.math.BigDecimal;
import java.util.UUID;

import dev.taskqueue.TaskQueue;
import dev.taskqueue.testing.AutoConfigureTaskQueueDatabase;
import dev.taskqueue.testing.TaskQueueTester;
import dev.taskqueue.testing.TaskRuns;
import org.junit.jupiter.api.Test;

import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.transaction.annotation.Transactional;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Runs the snippets of docs/ ({@link DocsExamples}, TopicsAndBatches.java) against the database and checks what
 * they did.
 */
@SpringBootTest(properties = "taskqueue.worker.enabled=false")
@AutoConfigureTaskQueueDatabase
@Transactional
class DocsExamplesTests {

    @Autowired DocsExamples examples;
    @Autowired Checkout checkout;
    @Autowired TaskQueueTester tester;
    @Autowired TaskQueue taskQueue;

    @Test
    void orderedAndUniqueKeys() {
        this.examples.orderedKeys(7, new BigDecimal("12.50"));
        UUID first = this.examples.uniqueKey(42);
        UUID second = this.examples.uniqueKey(42);
        this.examples.debounce(3);
        this.examples.debounce(3);

        this.tester.assertEnqueued("accounts", new ApplyPayment(7, new BigDecimal("12.50")));
        assertThat(second).isEqualTo(first);
        this.tester.assertEnqueuedCount("invoices", 1);
        this.tester.assertEnqueuedCount("search-index", 1);
    }

    @Test
    void deadLettersAndOperations() {
        assertThat(this.examples.deadLetters(UUID.randomUUID())).isZero();
        assertThat(this.examples.operations(UUID.randomUUID())).isEmpty();   // the worker is off: no session
    }

    @Test
    void publishReachesBothSubscribedQueues() {
        this.checkout.placeOrder(new Order("order-7"));

        this.tester.assertEnqueued("billing", new OrderPlaced("order-7"));
        this.tester.assertEnqueued("shipping", new OrderPlaced("order-7"));
        this.tester.runUntilEmpty().assertAllCompleted();
    }

    @Test
    void aDeclinedCardIsNotRetried() {
        this.taskQueue.enqueue("payments", new Charge(1, true));
        this.taskQueue.enqueue("payments", new Charge(2, false));

        TaskRuns runs = this.tester.run("payments");

        assertThat(runs.deadLettered()).isEqualTo(1);      // attempt 1 of 20: the policy said no retry
        assertThat(runs.completed()).isEqualTo(1);
        assertThat(runs.failures()).singleElement()
            .satisfies((run) -> assertThat(run.failure()).isInstanceOf(CardDeclinedException.class));
    }

}
