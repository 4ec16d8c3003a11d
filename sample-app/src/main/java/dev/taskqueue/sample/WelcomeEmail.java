package dev.taskqueue.sample;

import java.util.UUID;

/**
 * The payload of a task on the {@code welcome-emails} queue.
 *
 * @param signupId the signup to welcome
 * @param address where to send the email
 */
public record WelcomeEmail(UUID signupId, String address) {
}
