package com.example.signup;

import java.util.List;

import dev.taskqueue.BatchInfo;
import dev.taskqueue.BatchResult;
import dev.taskqueue.PublishResult;
import dev.taskqueue.TaskContext;
import dev.taskqueue.TaskHandler;
import dev.taskqueue.TaskQueue;
import dev.taskqueue.TaskRequest;

import org.springframework.jdbc.core.simple.JdbcClient;
import org.springframework.stereotype.Component;
import org.springframework.stereotype.Service;
import org.springframework.transaction.annotation.Transactional;

// docs/topics-and-batches.md: DocumentationSnippetsTests checks that the lines are the page's; DocsExamplesTests
// runs them.

record Order(String id) {}

record Row(int number, String text) {}

record ImportReport(String fileId) {}

@Component
class Billing {

    @TaskHandler(queue = "billing", topics = "order-placed")
    void bill(OrderPlaced event) { /* charge the order */ }
}

@Component
class Shipping {

    @TaskHandler(queue = "shipping", topics = { "order-placed", "order-changed" })
    void ship(OrderPlaced event, TaskContext context) { /* ship it */ }
}

@Component
class ImportRows {

    @TaskHandler(queue = "import-row")
    void importRow(Row row) { /* store the row */ }
}

@Component
class Orders {

    private final JdbcClient jdbc;

    Orders(JdbcClient jdbc) {
        this.jdbc = jdbc;
    }

    void insert(Order order) {
        this.jdbc.sql("INSERT INTO orders (id) VALUES (?)").param(order.id()).update();
    }

}

@Service
class Checkout {

    private final Orders orders;

    private final TaskQueue taskQueue;

    Checkout(Orders orders, TaskQueue taskQueue) {
        this.orders = orders;
        this.taskQueue = taskQueue;
    }

    @Transactional
    void placeOrder(Order order) {
        orders.insert(order);
        PublishResult published = taskQueue.publish("order-placed", new OrderPlaced(order.id()));
        // published.count() == 2, published.tasks() == {billing=…, shipping=…}
    }

}

@Service
class Imports {

    private final TaskQueue taskQueue;

    private final Mailer mailer;

    Imports(TaskQueue taskQueue, Mailer mailer) {
        this.taskQueue = taskQueue;
        this.mailer = mailer;
    }

    @Transactional
    BatchResult importFile(String fileId, List<Row> rows) {
        List<TaskRequest> tasks = rows.stream().map((row) -> TaskRequest.of("import-row", row)).toList();
        return taskQueue.enqueueBatch(tasks, TaskRequest.of("import-report", new ImportReport(fileId)));
    }

    @TaskHandler(queue = "import-report")
    void report(ImportReport report, TaskContext context) {
        BatchInfo batch = context.batch();   // id, total, completed, dead
        mailer.send("ops@example.com", "Import done: " + batch.completed() + " of " + batch.total() + " rows, " + batch.dead() + " failed");
    }

}
