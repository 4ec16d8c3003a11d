package com.example.signup;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;

import dev.taskqueue.testing.AutoConfigureTaskQueueDatabase;
import org.junit.jupiter.api.Test;

import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.context.SpringBootTest.WebEnvironment;
import org.springframework.boot.test.web.server.LocalServerPort;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The dashboard behind docs/dashboard.md's {@link SecurityConfiguration}: an anonymous request is sent to the login
 * page and sees no task.
 */
@SpringBootTest(webEnvironment = WebEnvironment.RANDOM_PORT,
        properties = { "taskqueue.worker.enabled=false", "taskqueue.dashboard.enabled=true" })
@AutoConfigureTaskQueueDatabase
class DashboardSecurityTests {

    @LocalServerPort int port;

    @Test
    void anAnonymousRequestIsSentToTheLoginPage() throws Exception {
        HttpResponse<String> response = HttpClient.newHttpClient()
            .send(HttpRequest.newBuilder(URI.create("http://localhost:" + this.port + "/taskqueue")).build(),
                    HttpResponse.BodyHandlers.ofString());

        assertThat(response.statusCode()).isEqualTo(302);
        assertThat(response.headers().firstValue("Location")).hasValueSatisfying(
                (location) -> assertThat(location).endsWith("/login"));
    }

}
