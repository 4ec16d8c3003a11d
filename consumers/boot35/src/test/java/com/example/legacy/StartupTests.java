package com.example.legacy;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import org.springframework.boot.SpringApplication;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

/**
 * TaskQueue on a Spring Boot 3.5 class path: startup stops before anything else goes wrong, with one line that says
 * which Spring Boot TaskQueue needs and which it found.
 */
@ExtendWith(OutputCaptureExtension.class)
class StartupTests {

    @Test
    void startupStopsWithTheSpringBootVersionTaskQueueNeeds(CapturedOutput output) {
        Throwable failure = catchThrowable(() -> SpringApplication.run(LegacyApplication.class,
                "--spring.datasource.url=jdbc:postgresql://localhost:5999/none"));

        assertThat(failure).isNotNull();
        assertThat(output).contains("APPLICATION FAILED TO START")
            .containsPattern("TaskQueue \\S+ needs Spring Boot 4.1 or later; found Spring Boot 3.5.7")
            .doesNotContain("jsonComponentModule");
    }

}
