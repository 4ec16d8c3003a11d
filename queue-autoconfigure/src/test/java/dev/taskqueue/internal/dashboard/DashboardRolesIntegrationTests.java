package dev.taskqueue.internal.dashboard;

import java.net.http.HttpResponse;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import javax.sql.DataSource;

import dev.taskqueue.TaskQueue;
import dev.taskqueue.TaskQueueOperations;
import dev.taskqueue.internal.operations.OperationsBeans;
import dev.taskqueue.test.TestDatabase;
import org.junit.jupiter.api.Test;

import org.springframework.beans.factory.BeanFactory;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.beans.factory.annotation.Value;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.context.SpringBootTest.WebEnvironment;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.http.HttpMethod;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.jdbc.datasource.DataSourceTransactionManager;
import org.springframework.security.authentication.UsernamePasswordAuthenticationToken;
import org.springframework.security.config.Customizer;
import org.springframework.security.config.annotation.web.builders.HttpSecurity;
import org.springframework.security.config.annotation.web.configuration.EnableWebSecurity;
import org.springframework.security.core.authority.AuthorityUtils;
import org.springframework.security.core.context.SecurityContextHolder;
import org.springframework.security.core.userdetails.User;
import org.springframework.security.provisioning.InMemoryUserDetailsManager;
import org.springframework.security.web.SecurityFilterChain;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;
import org.springframework.transaction.support.TransactionTemplate;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The dashboard's roles with Spring Security (docs/dashboard.md, "Roles"): a viewer ({@code TASKQUEUE_VIEW}) sees
 * every page and no button, and its posts are refused with 403 and change nothing; an operator
 * ({@code TASKQUEUE_OPERATE}) acts, and every action, from the dashboard, the actuator endpoint or the application's
 * code, is in the audit log with who did it and how many rows it changed, exactly. Spring Security's CSRF protection
 * is on for the dashboard: every post carries the tokens of its form, as a browser's does.
 */
@SpringBootTest(classes = { DashboardTestApplication.class, DashboardRolesIntegrationTests.Security.class },
		webEnvironment = WebEnvironment.RANDOM_PORT,
		properties = { "taskqueue.dashboard.enabled=true", "taskqueue.dashboard.read-only=false",
				"management.endpoints.web.exposure.include=taskqueue",
				"management.endpoint.taskqueue.access=unrestricted" })
class DashboardRolesIntegrationTests {

	@DynamicPropertySource
	static void database(DynamicPropertyRegistry registry) {
		String url = TestDatabase.createDatabase();
		registry.add("spring.datasource.url", () -> url);
	}

	@LocalServerPort
	private int port;

	@Autowired
	private JdbcTemplate jdbc;

	@Autowired
	private TaskQueue taskQueue;

	@Autowired
	private TaskQueueOperations operations;

	@Autowired
	private BeanFactory beans;

	@Autowired
	private InMemoryUserDetailsManager users;

	@Autowired
	private DataSource dataSource;

	@Test
	void aViewerSeesEveryPageButNoButton() {
		UUID dead = deadLetters("roles-view", 2, "boom").get(0);
		DashboardHttp viewer = http("viewer");
		DashboardHttp operator = http("operator");
		for (String page : List.of("/taskqueue", "/taskqueue/queues/roles-view", "/taskqueue/dead?queue=roles-view",
				"/taskqueue/tasks/" + dead, "/taskqueue/audit")) {
			HttpResponse<String> seen = viewer.get(page);
			assertThat(seen.statusCode()).as(page).isEqualTo(200);
			assertThat(seen.body()).as(page)
				.doesNotContain("method=\"post\"")
				.doesNotContain("_taskqueue_csrf")
				.contains("<span class=\"badge\">view only</span>")
				.contains("href=\"/taskqueue/audit\">Audit log</a>");
		}
		// The same pages have their buttons for an operator: the viewer's lack them for its authority alone.
		assertThat(operator.get("/taskqueue/dead?queue=roles-view").body()).contains("method=\"post\"")
			.contains("Retry all that match")
			.doesNotContain("view only");
		assertThat(operator.get("/taskqueue/tasks/" + dead).body())
			.contains("action=\"/taskqueue/tasks/" + dead + "/retry\"");
	}

	@Test
	void aViewersPostIsRefusedWith403AndChangesNothing() {
		List<UUID> dead = deadLetters("roles-demoted", 3, "boom");
		// Alice opens the page as an operator, so it has the forms and their tokens (TaskQueue's and Spring
		// Security's); she is then made a viewer, and posts from that page.
		DashboardHttp alice = http("alice");
		String page = alice.get("/taskqueue/dead?queue=roles-demoted").body();
		String retry = "/taskqueue/tasks/" + dead.get(0) + "/retry";
		this.users.updateUser(User.withUsername("alice").password("{noop}secret").authorities("TASKQUEUE_VIEW").build());
		try {
			for (String action : List.of(retry, "/taskqueue/tasks/" + dead.get(1) + "/delete",
					"/taskqueue/dead/retry", "/taskqueue/dead/delete")) {
				HttpResponse<String> refused = alice.submit(page, action);
				assertThat(refused.statusCode()).as(action).isEqualTo(403);
				assertThat(refused.body()).as(action)
					.contains("Acting on the dashboard needs the authority TASKQUEUE_OPERATE")
					.contains("Nothing was changed");
			}
			assertThat(deadCount("roles-demoted")).isEqualTo(3);
			assertThat(this.operations.isPaused("roles-demoted")).isFalse();
			assertThat(auditRows("%roles-demoted%")).isEmpty();
			assertThat(auditRows("task " + dead.get(0))).isEmpty();
		}
		finally {
			this.users.updateUser(
					User.withUsername("alice").password("{noop}secret").authorities("TASKQUEUE_OPERATE").build());
		}
		// The very same form is let through once she may act again: the refusal was her authority's, not a token's.
		HttpResponse<String> asked = alice.submit(page, retry);
		assertThat(asked.statusCode()).isEqualTo(200);
		assertThat(asked.body()).contains("Retry dead task " + dead.get(0));
	}

	@Test
	void aUserWithNeitherAuthoritySeesNothing() {
		deadLetters("roles-nobody", 1, "secret payload error");
		DashboardHttp user = http("user");
		for (String page : List.of("/taskqueue", "/taskqueue/dead?queue=roles-nobody", "/taskqueue/audit")) {
			HttpResponse<String> refused = user.get(page);
			assertThat(refused.statusCode()).as(page).isEqualTo(403);
			assertThat(refused.body()).as(page)
				.contains("Seeing the dashboard needs the authority TASKQUEUE_VIEW")
				.doesNotContain("roles-nobody")
				.doesNotContain("secret payload error");
		}
		assertThat(new DashboardHttp(this.port).get("/taskqueue").statusCode()).isEqualTo(401);
		// The style sheet holds nothing of the application, so the refusal is styled.
		assertThat(user.get("/taskqueue/dashboard.css").statusCode()).isEqualTo(200);
	}

	@Test
	void anOperatorsActionsAreInTheAuditLogWithTheirExactCounts() {
		deadLetters("roles-bulk", 7, "java.net.SocketTimeoutException: Read timed out");
		deadLetters("roles-bulk", 5, "boom");
		DashboardHttp operator = http("operator");
		String filtered = operator.get("/taskqueue/dead?queue=roles-bulk&error=timed+out").body();
		HttpResponse<String> asked = operator.submit(filtered, "/taskqueue/dead/retry");
		assertThat(asked.body()).contains("Retry the 7 dead tasks that match");
		HttpResponse<String> done = operator.submit(asked.body(), "/taskqueue/dead/retry");
		assertThat(done.statusCode()).isEqualTo(303);
		assertThat(deadCount("roles-bulk")).isEqualTo(5);
		HttpResponse<String> paused = operator.submit(operator.get("/taskqueue/queues/roles-bulk").body(),
				"/taskqueue/queues/roles-bulk/pause");
		assertThat(paused.statusCode()).isEqualTo(303);

		assertThat(auditRows("%roles-bulk%")).containsExactly(
				"operator dashboard pause queue roles-bulk 1",
				"operator dashboard retry-dead queue roles-bulk, error contains \"timed out\" 7");
		// The viewer reads it on the audit page, newest first.
		String audit = http("viewer").get("/taskqueue/audit").body();
		List<List<String>> rows = rows(audit);
		assertThat(rows.get(0)).containsExactly("operator", "dashboard", "pause", "queue roles-bulk", "1");
		assertThat(rows.get(1)).containsExactly("operator", "dashboard", "retry-dead",
				"queue roles-bulk, error contains \"timed out\"", "7");
	}

	@Test
	void aViewerCannotActOnWaitingTasksAndAnOperatorsBulkDeleteIsAuditedWithItsCount() {
		waitingTasks("roles-waiting", 4, "java.net.SocketTimeoutException: Read timed out");
		waitingTasks("roles-waiting", 2, "boom");
		String filtered = "/taskqueue/queues/roles-waiting?error=timed+out";
		// Alice opens the filtered page as an operator, is made a viewer, and posts its buttons: refused.
		DashboardHttp alice = http("alice");
		String page = alice.get(filtered).body();
		assertThat(page).contains(">Retry 4</button>").contains(">Delete 4</button>");
		this.users
			.updateUser(User.withUsername("alice").password("{noop}secret").authorities("TASKQUEUE_VIEW").build());
		try {
			for (String action : List.of("/taskqueue/queues/roles-waiting/retry-waiting",
					"/taskqueue/queues/roles-waiting/delete-waiting")) {
				HttpResponse<String> refused = alice.submit(page, action);
				assertThat(refused.statusCode()).as(action).isEqualTo(403);
				assertThat(refused.body()).as(action)
					.contains("Acting on the dashboard needs the authority TASKQUEUE_OPERATE");
			}
			assertThat(http("viewer").get(filtered).body()).contains("4 waiting tasks match.")
				.doesNotContain("method=\"post\"");
		}
		finally {
			this.users.updateUser(
					User.withUsername("alice").password("{noop}secret").authorities("TASKQUEUE_OPERATE").build());
		}
		assertThat(waitingCount("roles-waiting")).isEqualTo(6);
		assertThat(auditRows("%roles-waiting%")).isEmpty();

		DashboardHttp operator = http("operator");
		HttpResponse<String> asked = operator.submit(operator.get(filtered).body(),
				"/taskqueue/queues/roles-waiting/delete-waiting");
		assertThat(asked.body()).contains("Delete the 4 waiting tasks that match (queue roles-waiting, error "
				+ "contains &quot;timed out&quot;) for good?");
		HttpResponse<String> done = operator.submit(asked.body(), "/taskqueue/queues/roles-waiting/delete-waiting");
		assertThat(done.statusCode()).isEqualTo(303);
		assertThat(waitingCount("roles-waiting")).isEqualTo(2);
		// The endpoint: a viewer is refused, an operator makes the other two due now.
		assertThat(http("viewer").send("POST", "/actuator/taskqueue/roles-waiting/retry-waiting").statusCode())
			.isEqualTo(403);
		assertThat(http("operator").send("POST", "/actuator/taskqueue/roles-waiting/retry-waiting").statusCode())
			.isEqualTo(200);
		assertThat(auditRows("%roles-waiting%")).containsExactly(
				"operator actuator retry-waiting queue roles-waiting 2",
				"operator dashboard delete-waiting queue roles-waiting, error contains \"timed out\" 4");
	}

	/** Inserts {@code count} tasks of {@code queue} waiting to be retried in an hour after {@code error}. */
	private void waitingTasks(String queue, int count, String error) {
		this.jdbc.update("""
				INSERT INTO taskqueue_task (id, queue, payload, run_at, attempt, last_error)
				SELECT gen_random_uuid(), ?, '"payload"', now() + interval '1 hour', 1, ? FROM generate_series(1, ?) i
				""", queue, error, count);
	}

	private int waitingCount(String queue) {
		return this.jdbc.queryForObject("SELECT count(*) FROM taskqueue_task WHERE queue = ?", Integer.class, queue);
	}

	@Test
	void theEndpointsWritesAndTheApplicationsCallsAreInTheAuditLog() {
		deadLetters("roles-endpoint", 3, "boom");
		// The endpoint's writes are mapped to the operate authority by the application's filter chain (as
		// docs/dashboard.md shows): a viewer is refused by Spring Security, an operator's delete is recorded.
		assertThat(http("viewer").send("DELETE", "/actuator/taskqueue/roles-endpoint/dead?all=true").statusCode())
			.isEqualTo(403);
		assertThat(deadCount("roles-endpoint")).isEqualTo(3);
		HttpResponse<String> deleted = http("operator").send("DELETE", "/actuator/taskqueue/roles-endpoint/dead?all=true");
		assertThat(deleted.statusCode()).isEqualTo(200);
		assertThat(deadCount("roles-endpoint")).isZero();
		assertThat(auditRows("%roles-endpoint%"))
			.containsExactly("operator actuator delete-dead queue roles-endpoint 3");

		// TaskQueueOperations called by the application's code: by Spring Security's principal, else the application.
		this.taskQueue.enqueue("roles-api", "one");
		this.taskQueue.enqueue("roles-api", "two");
		assertThat(this.operations.cancelAll("roles-api")).isEqualTo(2);
		SecurityContextHolder.getContext().setAuthentication(UsernamePasswordAuthenticationToken
			.authenticated("nightly-job", null, AuthorityUtils.createAuthorityList("TASKQUEUE_OPERATE")));
		try {
			this.operations.pause("roles-api");
		}
		finally {
			SecurityContextHolder.clearContext();
		}
		assertThat(auditRows("%roles-api%")).containsExactly("nightly-job api pause queue roles-api 1",
				"application api cancel-waiting queue roles-api 2");
	}

	@Test
	void anEntryCommitsOrRollsBackWithItsAction() {
		deadLetters("roles-rollback", 2, "boom");
		TransactionTemplate transaction = new TransactionTemplate(new DataSourceTransactionManager(this.dataSource));
		transaction.executeWithoutResult((status) -> {
			assertThat(this.operations.deleteAllDead("roles-rollback")).isEqualTo(2);
			status.setRollbackOnly();
		});
		assertThat(deadCount("roles-rollback")).isEqualTo(2);
		assertThat(auditRows("%roles-rollback%")).isEmpty();
		transaction.executeWithoutResult((status) -> this.operations.deleteAllDead("roles-rollback"));
		assertThat(deadCount("roles-rollback")).isZero();
		assertThat(auditRows("%roles-rollback%")).containsExactly("application api delete-dead queue roles-rollback 2");
	}

	@Test
	void theAuditPageIsPagedNewestFirstAndEscaped() {
		// 120 entries newer than any other test's, the newest with markup in its target.
		this.jdbc.update("""
				INSERT INTO taskqueue_audit (id, acted_at, actor, via, action, target, row_count)
				SELECT gen_random_uuid(), now() + interval '1 day' - i * interval '1 s', 'pager', 'api', 'cancel',
				       CASE WHEN i = 1 THEN '<script>alert(1)</script>' ELSE 'entry ' || i END, i
				FROM generate_series(1, 120) i
				""");
		DashboardHttp viewer = http("viewer");
		String first = viewer.get("/taskqueue/audit").body();
		assertThat(first).contains("&lt;script&gt;alert(1)&lt;/script&gt;").doesNotContain("<script>");
		List<List<String>> rows = rows(first);
		assertThat(rows).hasSize(DashboardPages.PAGE_SIZE);
		assertThat(rows.get(1)).containsExactly("pager", "api", "cancel", "entry 2", "2");
		assertThat(rows.get(49)).containsExactly("pager", "api", "cancel", "entry 50", "50");
		String second = viewer.get(next(first)).body();
		assertThat(rows(second).get(0)).containsExactly("pager", "api", "cancel", "entry 51", "51");
		List<List<String>> third = rows(viewer.get(next(second)).body());
		assertThat(third.get(19)).containsExactly("pager", "api", "cancel", "entry 120", "120");
		assertThat(third.subList(0, 20)).allSatisfy((row) -> assertThat(row.get(0)).isEqualTo("pager"));
		this.jdbc.update("DELETE FROM taskqueue_audit WHERE actor = 'pager'");
	}

	@Test
	void entriesAreKeptAsLongAsTheDeadLetters() {
		// taskqueue.retention.dead-letters is 14 days by default.
		this.jdbc.update("""
				INSERT INTO taskqueue_audit (id, acted_at, actor, via, action, target, row_count)
				SELECT gen_random_uuid(), now() - (13 + 2 * (i % 2)) * interval '1 day', 'pruned', 'api', 'cancel',
				       'entry ' || i, 1
				FROM generate_series(1, 5) i
				""");
		OperationsBeans.prune(this.beans);
		// 2, 4 are 13 days old and kept; 1, 3, 5 are 15 days old and deleted.
		assertThat(this.jdbc.queryForList("SELECT target FROM taskqueue_audit WHERE actor = 'pruned' ORDER BY target",
				String.class)).containsExactly("entry 2", "entry 4");
	}

	private DashboardHttp http(String user) {
		return new DashboardHttp(this.port, user, "secret");
	}

	/** Inserts {@code count} dead letters of {@code queue} with {@code error}; returns their ids. */
	private List<UUID> deadLetters(String queue, int count, String error) {
		return this.jdbc.queryForList("""
				INSERT INTO taskqueue_dead_task (id, queue, payload, priority, attempts, enqueued_at, failed_at, error)
				SELECT gen_random_uuid(), ?, '"payload"', 0, 3, now() - interval '1 day', now() - i * interval '1 s', ?
				FROM generate_series(1, ?) i
				RETURNING id
				""", UUID.class, queue, error, count);
	}

	private int deadCount(String queue) {
		return this.jdbc.queryForObject("SELECT count(*) FROM taskqueue_dead_task WHERE queue = ?", Integer.class,
				queue);
	}

	/** The audit entries whose target is like {@code target}, newest first, as "actor via action target rows". */
	private List<String> auditRows(String target) {
		return this.jdbc.queryForList("""
				SELECT actor || ' ' || via || ' ' || action || ' ' || target || ' ' || row_count FROM taskqueue_audit
				WHERE target LIKE ? ORDER BY acted_at DESC, id DESC
				""", String.class, target);
	}

	/** The cells of the audit page's rows but the first (the time), as text. */
	private static List<List<String>> rows(String page) {
		List<List<String>> rows = new ArrayList<>();
		Matcher row = Pattern.compile("<tr>(.*?)</tr>", Pattern.DOTALL).matcher(page);
		while (row.find()) {
			List<String> cells = DashboardHttp.all(row.group(1), "<td[^>]*>(.*?)</td>");
			if (!cells.isEmpty()) {
				rows.add(cells.subList(1, cells.size()).stream().map(DashboardRolesIntegrationTests::text).toList());
			}
		}
		return rows;
	}

	private static String text(String html) {
		return html.replaceAll("<[^>]+>", "").replace("&quot;", "\"").replace("&#39;", "'").replace("&lt;", "<")
			.replace("&gt;", ">").replace("&amp;", "&");
	}

	private static String next(String page) {
		List<String> links = DashboardHttp.all(page, "<a href=\"([^\"]+)\" rel=\"next\"");
		assertThat(links).hasSize(1);
		return links.get(0).replace("&amp;", "&");
	}

	/**
	 * docs/dashboard.md's filter chain with HTTP basic authentication for the test (and Spring Security's login page
	 * as well for the browser's, {@code roles.form-login}), and Spring Security's CSRF protection off for the actuator
	 * endpoint, whose callers are scripts.
	 */
	@Configuration(proxyBeanMethods = false)
	@EnableWebSecurity
	static class Security {

		@Bean
		SecurityFilterChain securityFilterChain(HttpSecurity http,
				@Value("${roles.form-login:false}") boolean formLogin) throws Exception {
			if (formLogin) {
				http.formLogin(Customizer.withDefaults());
			}
			http.authorizeHttpRequests((requests) -> requests
				.requestMatchers(HttpMethod.GET, "/actuator/taskqueue/**")
				.hasAnyAuthority("TASKQUEUE_VIEW", "TASKQUEUE_OPERATE")
				.requestMatchers("/actuator/taskqueue/**")
				.hasAuthority("TASKQUEUE_OPERATE")
				.anyRequest()
				.authenticated())
				.httpBasic(Customizer.withDefaults())
				.csrf((csrf) -> csrf.ignoringRequestMatchers("/actuator/**"));
			return http.build();
		}

		@Bean
		InMemoryUserDetailsManager users() {
			return new InMemoryUserDetailsManager(
					User.withUsername("viewer").password("{noop}secret").authorities("TASKQUEUE_VIEW").build(),
					User.withUsername("operator").password("{noop}secret").authorities("TASKQUEUE_OPERATE").build(),
					User.withUsername("alice").password("{noop}secret").authorities("TASKQUEUE_OPERATE").build(),
					User.withUsername("ops-script").password("{noop}secret").authorities("TASKQUEUE_OPERATE").build(),
					User.withUsername("user").password("{noop}secret").roles("USER").build());
		}

	}

}
