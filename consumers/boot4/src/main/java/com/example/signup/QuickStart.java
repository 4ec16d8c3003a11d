package com.example.signup;

import dev.taskqueue.TaskContext;
import dev.taskqueue.TaskHandler;
import dev.taskqueue.TaskQueue;

import org.springframework.stereotype.Component;
import org.springframework.stereotype.Service;
import org.springframework.transaction.annotation.Transactional;

// README.md, "Quick start": DocumentationSnippetsTests checks that the lines below are the README's.

record WelcomeEmail(String address) {}

@Component
class Emails {

    private final Mailer mailer;

    Emails(Mailer mailer) {
        this.mailer = mailer;
    }

    @TaskHandler(queue = "welcome-emails")
    void send(WelcomeEmail email, TaskContext context) {   // or just (WelcomeEmail email)
        mailer.send(email.address(), "Welcome!");          // context: id(), queue(), attempt(), enqueuedAt()
    }
}

@Service
class Signups {

    private final Users users;
    private final TaskQueue taskQueue;

    Signups(Users users, TaskQueue taskQueue) {
        this.users = users;
        this.taskQueue = taskQueue;
    }

    @Transactional
    void signUp(String address) {
        users.insert(address);
        taskQueue.enqueue("welcome-emails", new WelcomeEmail(address));  // commits or rolls back with the user
    }
}
