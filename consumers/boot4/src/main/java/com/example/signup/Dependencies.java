package com.example.signup;

import java.util.UUID;

import dev.taskqueue.DependencyFailure;
import dev.taskqueue.TaskHandler;
import dev.taskqueue.TaskQueue;
import dev.taskqueue.TaskRequest;

import org.springframework.stereotype.Component;
import org.springframework.stereotype.Service;
import org.springframework.transaction.annotation.Transactional;

// docs/dependencies.md: DocumentationSnippetsTests checks that the lines are the page's; WorkerTests runs them.

record Extract(String reportId) {}

record Prices(String reportId) {}

record Stock(String reportId) {}

record Render(String reportId) {}

@Service
class Reports {

    private final TaskQueue taskQueue;

    Reports(TaskQueue taskQueue) {
        this.taskQueue = taskQueue;
    }

    @Transactional
    UUID buildReport(String reportId) {
        UUID extract = taskQueue.enqueue(TaskRequest.of("extract", new Extract(reportId)));
        UUID prices = taskQueue.enqueue(TaskRequest.of("prices", new Prices(reportId)).withDependsOn(extract));
        UUID stock = taskQueue.enqueue(TaskRequest.of("stock", new Stock(reportId)).withDependsOn(extract));
        return taskQueue.enqueue(TaskRequest.of("render", new Render(reportId))
            .withDependsOn(prices, stock)                           // runs once both have completed
            .withDependencyFailure(DependencyFailure.DEAD));        // the default: dead, not run, if one of them dies
    }

}

@Component
class ReportSteps {

    private final Mailer mailer;

    ReportSteps(Mailer mailer) {
        this.mailer = mailer;
    }

    @TaskHandler(queue = "extract")
    void extract(Extract step) { mailer.send("reports@example.com", "extract " + step.reportId()); }

    @TaskHandler(queue = "prices")
    void prices(Prices step) { mailer.send("reports@example.com", "prices " + step.reportId()); }

    @TaskHandler(queue = "stock")
    void stock(Stock step) { mailer.send("reports@example.com", "stock " + step.reportId()); }

    @TaskHandler(queue = "render")
    void render(Render step) { mailer.send("reports@example.com", "render " + step.reportId()); }

}
