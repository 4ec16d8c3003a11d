package dev.taskqueue.internal.dashboard;

import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.List;
import java.util.UUID;

import dev.taskqueue.TaskQueue;
import dev.taskqueue.TaskRequest;
import dev.taskqueue.test.Await;
import dev.taskqueue.test.TestDatabase;
import org.junit.jupiter.api.Test;

import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.context.SpringBootTest.WebEnvironment;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * By default the dashboard only shows: it offers no action, refuses every one that is posted anyway, naming the
 * property that allows them, and changes nothing. It also serves under a path of the application's choosing.
 */
@SpringBootTest(classes = DashboardTestApplication.class, webEnvironment = WebEnvironment.RANDOM_PORT,
		properties = { "taskqueue.dashboard.enabled=true",
				"taskqueue.dashboard.path=/admin/queues", "taskqueue.schedules.dash-ro-yearly.cron=0 0 3 1 1 *",
				"taskqueue.schedules.dash-ro-yearly.queue=dash-ok",
				"taskqueue.schedules.dash-ro-yearly.payload=\"dash-ro-yearly\"" })
class DashboardReadOnlyIntegrationTests {

	@DynamicPropertySource
	static void database(DynamicPropertyRegistry registry) {
		String url = TestDatabase.createDatabase();
		registry.add("spring.datasource.url", () -> url);
	}

	@LocalServerPort
	private int port;

	@Autowired
	private TaskQueue taskQueue;

	@Autowired
	private JdbcTemplate jdbc;

	@Test
	void showsEverythingButOffersAndAllowsNoAction() {
		DashboardHttp http = new DashboardHttp(this.port);
		UUID waiting = this.taskQueue.enqueue(TaskRequest.of("dash-ro", "x").withDelay(Duration.ofHours(1)));
		UUID dead = this.taskQueue.enqueue("dash-dead", "y");
		Await.until("the task is dead", Duration.ofSeconds(20), () -> this.jdbc
			.queryForObject("SELECT count(*) FROM taskqueue_dead_task WHERE id = ?", Integer.class, dead) == 1);
		for (String path : List.of("/admin/queues", "/admin/queues/queues/dash-ro", "/admin/queues/dead",
				"/admin/queues/tasks/" + waiting, "/admin/queues/tasks/" + dead)) {
			HttpResponse<String> page = http.get(path);
			assertThat(page.statusCode()).as(path).isEqualTo(200);
			assertThat(page.body()).as(path).contains("read-only").doesNotContain("method=\"post\"");
		}
		assertThat(http.get("/admin/queues").body()).contains("dash-ro-yearly");
		assertThat(http.get("/taskqueue").statusCode()).isEqualTo(404);
		for (String action : List.of("pause", "resume", "trigger")) {
			HttpResponse<String> refused = http.post("/admin/queues/schedules/" + action, "name=dash-ro-yearly&confirm=yes");
			assertThat(refused.statusCode()).as(action).isEqualTo(403);
		}
		assertThat(this.jdbc.queryForObject("SELECT paused OR ticks > 0 FROM taskqueue_schedule WHERE name = ?",
				Boolean.class, "dash-ro-yearly")).isFalse();
		for (String path : List.of("/admin/queues/queues/dash-ro/pause", "/admin/queues/tasks/" + waiting + "/cancel",
				"/admin/queues/tasks/" + dead + "/retry", "/admin/queues/tasks/" + dead + "/delete",
				"/admin/queues/queues/dash-dead/retry-dead", "/admin/queues/queues/dash-dead/delete-dead")) {
			HttpResponse<String> refused = http.post(path, "confirm=yes");
			assertThat(refused.statusCode()).as(path).isEqualTo(403);
			assertThat(refused.body()).contains("taskqueue.dashboard.read-only=false");
		}
		assertThat(this.jdbc.queryForObject("SELECT count(*) FROM taskqueue_queue WHERE paused", Integer.class))
			.isZero();
		assertThat(this.jdbc.queryForObject("SELECT count(*) FROM taskqueue_task WHERE id = ?", Integer.class, waiting))
			.isEqualTo(1);
		assertThat(this.jdbc.queryForObject("SELECT count(*) FROM taskqueue_dead_task WHERE id = ?", Integer.class,
				dead)).isEqualTo(1);
	}

}
