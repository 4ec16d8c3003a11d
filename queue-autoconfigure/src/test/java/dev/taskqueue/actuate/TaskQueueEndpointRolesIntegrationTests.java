package dev.taskqueue.actuate;

import java.nio.charset.StandardCharsets;
import java.util.Base64;
import java.util.UUID;

import dev.taskqueue.test.TestDatabase;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.context.SpringBootTest.WebEnvironment;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.context.annotation.Bean;
import org.springframework.http.HttpHeaders;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.security.config.Customizer;
import org.springframework.security.config.annotation.web.builders.HttpSecurity;
import org.springframework.security.config.annotation.web.configuration.EnableWebSecurity;
import org.springframework.security.core.userdetails.User;
import org.springframework.security.provisioning.InMemoryUserDetailsManager;
import org.springframework.security.web.SecurityFilterChain;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;
import org.springframework.test.web.servlet.client.RestTestClient;

/**
 * {@code management.endpoint.taskqueue.show-values=when-authorized} with {@code roles} (docs/operations.md): through
 * Spring Security, a user in one of the roles sees payloads and results as stored, an authenticated user in none sees
 * them hidden, on every read that shows one. Errors show to both, through the redactor.
 */
@SpringBootTest(webEnvironment = WebEnvironment.RANDOM_PORT,
		properties = { "management.endpoints.web.exposure.include=taskqueue",
				"management.endpoint.taskqueue.show-values=when-authorized",
				"management.endpoint.taskqueue.roles=OPS" })
class TaskQueueEndpointRolesIntegrationTests {

	@DynamicPropertySource
	static void database(DynamicPropertyRegistry registry) {
		String url = TestDatabase.createDatabase();
		registry.add("spring.datasource.url", () -> url);
	}

	/** The dead letter's payload and the result as PostgreSQL's {@code jsonb} gives them back. */
	private static final String PAYLOAD = "{\"card\":\"4111 1111 1111 1111\"}";

	private static final String RESULT = "{\"token\":\"s3cr3t\"}";

	@LocalServerPort
	private int port;

	@Autowired
	private JdbcTemplate jdbc;

	private final UUID dead = UUID.randomUUID();

	private final UUID completed = UUID.randomUUID();

	@BeforeEach
	void deadLetterAndResult() {
		this.jdbc.update("INSERT INTO taskqueue_dead_task (id, queue, payload, priority, attempts, enqueued_at, "
				+ "error) VALUES (?, 'roles-dead', '{\"card\": \"4111 1111 1111 1111\"}', 0, 1, now(), "
				+ "'java.lang.IllegalStateException: declined')", this.dead);
		this.jdbc.update("INSERT INTO taskqueue_result (id, queue, result) VALUES (?, 'roles-dead', "
				+ "'{\"token\": \"s3cr3t\"}')", this.completed);
	}

	@Test
	void aUserInOneOfTheRolesSeesPayloadsAndResults() {
		assertSeen("ops", PAYLOAD, RESULT);
	}

	@Test
	void anAuthenticatedUserInNoneOfTheRolesSeesThemHidden() {
		assertSeen("developer", "(hidden)", "(hidden)");
	}

	/** What {@code user} sees of the dead letter, of its queue's list, and of the result: the error always. */
	private void assertSeen(String user, String payload, String result) {
		RestTestClient client = client(user);
		client.get()
			.uri("/taskqueue/tasks/" + this.dead)
			.exchange()
			.expectStatus()
			.isOk()
			.expectBody()
			.jsonPath("$.payload")
			.isEqualTo(payload)
			.jsonPath("$.error")
			.isEqualTo("java.lang.IllegalStateException: declined");
		client.get()
			.uri("/taskqueue/roles-dead/dead")
			.exchange()
			.expectBody()
			.jsonPath("$.tasks[0].payload")
			.isEqualTo(payload);
		client.get()
			.uri("/taskqueue/tasks/" + this.completed + "/result")
			.exchange()
			.expectBody()
			.jsonPath("$.result")
			.isEqualTo(result);
	}

	private RestTestClient client(String user) {
		String credentials = Base64.getEncoder()
			.encodeToString((user + ":secret").getBytes(StandardCharsets.UTF_8));
		return RestTestClient.bindToServer()
			.baseUrl("http://localhost:" + this.port + "/actuator")
			.defaultHeader(HttpHeaders.AUTHORIZATION, "Basic " + credentials)
			.build();
	}

	@SpringBootConfiguration
	@EnableAutoConfiguration
	@EnableWebSecurity
	static class App {

		@Bean
		SecurityFilterChain securityFilterChain(HttpSecurity http) throws Exception {
			http.authorizeHttpRequests((requests) -> requests.anyRequest().authenticated())
				.httpBasic(Customizer.withDefaults());
			return http.build();
		}

		@Bean
		InMemoryUserDetailsManager users() {
			return new InMemoryUserDetailsManager(
					User.withUsername("ops").password("{noop}secret").roles("OPS").build(),
					User.withUsername("developer").password("{noop}secret").roles("DEVELOPER").build());
		}

	}

}
