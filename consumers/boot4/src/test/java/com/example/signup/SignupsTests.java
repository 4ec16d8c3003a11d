package com.example.signup;

import dev.taskqueue.testing.AutoConfigureTaskQueueDatabase;
import dev.taskqueue.testing.TaskQueueTester;
import org.junit.jupiter.api.Test;

import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.transaction.annotation.Transactional;

// README.md, "Testing your application", and docs/testing.md.

@SpringBootTest(properties = "taskqueue.worker.enabled=false")
@AutoConfigureTaskQueueDatabase    // a new database on an embedded PostgreSQL, whatever spring.datasource says
@Transactional
class SignupsTests {

    @Autowired Signups signups;
    @Autowired TaskQueueTester tester;

    @Test
    void welcomesNewUsers() {
        signups.signUp("ada@example.com");
        tester.assertEnqueued("welcome-emails", new WelcomeEmail("ada@example.com"));
        tester.runAll().assertAllCompleted();   // runs the handler here, on this thread
    }
}
