package com.example.signup;

import java.time.Duration;
import java.time.Instant;

import dev.taskqueue.testing.AutoConfigureTaskQueueDatabase;
import org.junit.jupiter.api.Test;

import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The same sign-up as {@link SignupsTests}, committed, and handled by the real worker of the application, as in
 * production.
 */
@SpringBootTest
@AutoConfigureTaskQueueDatabase
class WorkerTests {

    @Autowired Signups signups;
    @Autowired Users users;
    @Autowired Mailer mailer;

    @Test
    void theWorkerWelcomesNewUsers() throws InterruptedException {
        this.signups.signUp("grace@example.com");

        Instant deadline = Instant.now().plus(Duration.ofSeconds(30));
        while (!this.mailer.sent().contains("grace@example.com: Welcome!") && Instant.now().isBefore(deadline)) {
            Thread.sleep(20);
        }
        assertThat(this.mailer.sent()).containsExactly("grace@example.com: Welcome!");
        assertThat(this.users.count()).isOne();
    }

}
