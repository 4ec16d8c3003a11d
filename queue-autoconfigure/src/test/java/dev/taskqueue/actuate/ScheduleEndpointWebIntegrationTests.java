package dev.taskqueue.actuate;

import java.time.Duration;

import dev.taskqueue.RecurringTask;
import dev.taskqueue.test.Await;
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
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;
import org.springframework.test.web.servlet.client.RestTestClient;

/** The recurring schedules over the {@code taskqueue} endpoint: list, read, pause, resume, trigger. */
@SpringBootTest(webEnvironment = WebEnvironment.RANDOM_PORT,
		properties = { "management.endpoints.web.exposure.include=taskqueue",
				"management.endpoint.taskqueue.access=unrestricted", "taskqueue.worker.poll-interval=50ms",
				"taskqueue.schedules.web-report.cron=0 0 4 * * *", "taskqueue.schedules.web-report.zone=Europe/Paris",
				"taskqueue.schedules.web-report.queue=web-reports" })
class ScheduleEndpointWebIntegrationTests {

	@DynamicPropertySource
	static void database(DynamicPropertyRegistry registry) {
		String url = TestDatabase.createDatabase();
		registry.add("spring.datasource.url", () -> url);
	}

	@LocalServerPort
	private int port;

	@Autowired
	private JdbcTemplate jdbc;

	private RestTestClient http;

	@BeforeEach
	void connect() {
		this.http = RestTestClient.bindToServer().baseUrl("http://localhost:" + this.port + "/actuator").build();
	}

	@Test
	void listsPausesResumesAndTriggersSchedules() {
		this.http.get()
			.uri("/taskqueue/schedules/*")
			.exchange()
			.expectStatus()
			.isOk()
			.expectBody()
			.jsonPath("$[1].name").isEqualTo("web-report")
			.jsonPath("$[1].spec").isEqualTo("cron 0 0 4 * * * Europe/Paris")
			.jsonPath("$[1].declared").isEqualTo(true);
		post("/taskqueue/schedules/web-report/pause").jsonPath("$.paused").isEqualTo(true);
		this.http.get().uri("/taskqueue/schedules/web-report").exchange().expectBody().jsonPath("$.paused")
			.isEqualTo(true);
		post("/taskqueue/schedules/web-report/resume").jsonPath("$.paused").isEqualTo(false);
		post("/taskqueue/schedules/web-report/trigger").jsonPath("$.schedule").isEqualTo("web-report")
			.jsonPath("$.taskId").isNotEmpty();
		Await.until("the triggered report ran", Duration.ofSeconds(20),
				() -> this.jdbc.queryForObject("SELECT count(*) FROM web_report", Integer.class) == 1);
		this.http.get().uri("/taskqueue/schedules/nope").exchange().expectStatus().isNotFound().expectBody()
			.json("{\"error\": \"No schedule 'nope'\"}");
		this.http.post().uri("/taskqueue/schedules/web-report/explode").exchange().expectStatus().isBadRequest();
	}

	private RestTestClient.BodyContentSpec post(String uri) {
		return this.http.post().uri(uri).exchange().expectStatus().isOk().expectBody();
	}

	@SpringBootConfiguration
	@EnableAutoConfiguration
	static class App {

		@Bean
		Reports reports(JdbcTemplate jdbc) {
			jdbc.execute("CREATE TABLE IF NOT EXISTS web_report (at timestamptz)");
			return new Reports(jdbc);
		}

		@Bean
		Cleanup cleanup() {
			return new Cleanup();
		}

	}

	record Reports(JdbcTemplate jdbc) {

		@dev.taskqueue.TaskHandler(queue = "web-reports")
		public void run(Object payload, dev.taskqueue.TaskContext context) {
			this.jdbc.update("INSERT INTO web_report VALUES (?)",
					java.time.OffsetDateTime.ofInstant(context.scheduledAt(), java.time.ZoneOffset.UTC));
		}

	}

	static class Cleanup {

		@RecurringTask(cron = "@daily")
		void cleanUp() {
		}

	}

}
