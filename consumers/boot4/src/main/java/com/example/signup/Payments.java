package com.example.signup;

import java.time.Duration;

import dev.taskqueue.RetryPolicy;
import dev.taskqueue.TaskHandler;

import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.stereotype.Component;

// The retry policy snippet of docs/configuration.md; DocsExamplesTests runs it.

record Charge(long orderId, boolean declined) {}

class CardDeclinedException extends RuntimeException {
    CardDeclinedException(long orderId) { super("card declined for order " + orderId); }
}

@Configuration(proxyBeanMethods = false)
class PaymentConfiguration {

    @Bean
    RetryPolicy paymentRetries() {
        return (task, failure) -> {
            if (failure instanceof CardDeclinedException) {
                return null;                                  // no retry: to the dead letters now
            }
            return Duration.ofSeconds(30L * task.attempt());  // 30 s, 60 s, 90 s, ...
        };
    }
}

@Component
class PaymentHandler {

    @TaskHandler(queue = "payments", retryPolicy = "paymentRetries")
    void charge(Charge charge) {
        if (charge.declined()) {
            throw new CardDeclinedException(charge.orderId());
        }
    }
}
