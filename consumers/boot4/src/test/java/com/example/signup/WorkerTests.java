package com.example.signup;

import java.time.Duration;
import java.time.Instant;
import java.util.List;

import dev.taskqueue.testing.AutoConfigureTaskQueueDatabase;
import org.junit.jupiter.api.Test;

import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The same sign-up as {@link SignupsTests}, docs/topics-and-batches.md's batch and docs/dependencies.md's
 * diamond, committed and handled by the real worker of the application, as in production.
 */
@SpringBootTest
@AutoConfigureTaskQueueDatabase
class WorkerTests {

    @Autowired Signups signups;
    @Autowired Users users;
    @Autowired Mailer mailer;
    @Autowired Imports imports;
    @Autowired Reports reports;

    @Test
    void theWorkerWelcomesNewUsers() throws InterruptedException {
        this.signups.signUp("grace@example.com");

        Instant deadline = Instant.now().plus(Duration.ofSeconds(30));
        while (!this.mailer.sent().contains("grace@example.com: Welcome!") && Instant.now().isBefore(deadline)) {
            Thread.sleep(20);
        }
        assertThat(this.mailer.sent()).containsOnlyOnce("grace@example.com: Welcome!");
        assertThat(this.users.count()).isOne();
    }

    @Test
    void aBatchReportsOnceItsRowsAreDone() throws InterruptedException {
        String report = "ops@example.com: Import done: 2 of 2 rows, 0 failed";
        this.imports.importFile("file-1", List.of(new Row(1, "a"), new Row(2, "b")));

        Instant deadline = Instant.now().plus(Duration.ofSeconds(60));   // the batch ends at an instance's sweep
        while (!this.mailer.sent().contains(report) && Instant.now().isBefore(deadline)) {
            Thread.sleep(50);
        }
        assertThat(this.mailer.sent()).containsOnlyOnce(report);
    }

    @Test
    void aReportRendersOnceItsStepsAreDone() throws InterruptedException {
        this.reports.buildReport("r-1");

        Instant deadline = Instant.now().plus(Duration.ofSeconds(60));   // each step is released at a sweep
        while (!this.mailer.sent().contains("reports@example.com: render r-1") && Instant.now().isBefore(deadline)) {
            Thread.sleep(50);
        }
        List<String> steps = this.mailer.sent().stream().filter((sent) -> sent.startsWith("reports@")).toList();
        assertThat(steps).hasSize(4).startsWith("reports@example.com: extract r-1")
            .endsWith("reports@example.com: render r-1")
            .contains("reports@example.com: prices r-1", "reports@example.com: stock r-1");
    }

}
