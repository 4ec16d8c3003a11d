package dev.taskqueue.internal.dashboard;

import java.net.URLEncoder;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.util.List;

import dev.taskqueue.test.TestDatabase;
import org.junit.jupiter.api.Test;

import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.context.SpringBootTest.WebEnvironment;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.http.HttpMethod;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.security.config.Customizer;
import org.springframework.security.config.annotation.web.builders.HttpSecurity;
import org.springframework.security.config.annotation.web.configuration.EnableWebSecurity;
import org.springframework.security.core.userdetails.User;
import org.springframework.security.core.userdetails.UserDetailsService;
import org.springframework.security.provisioning.InMemoryUserDetailsManager;
import org.springframework.security.web.SecurityFilterChain;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * With Spring Security, the dashboard is protected like any other path of the application (the
 * {@link SecurityFilterChain} of docs/dashboard.md: a user signs in, the dashboard checks the authorities), and its
 * forms carry the CSRF token that Spring Security's CSRF protection asks of every POST. The roles themselves are
 * DashboardRolesIntegrationTests'.
 */
@SpringBootTest(classes = { DashboardTestApplication.class, DashboardSecurityIntegrationTests.Security.class },
		webEnvironment = WebEnvironment.RANDOM_PORT, properties = { "taskqueue.dashboard.enabled=true", "taskqueue.dashboard.read-only=false" })
class DashboardSecurityIntegrationTests {

	@DynamicPropertySource
	static void database(DynamicPropertyRegistry registry) {
		String url = TestDatabase.createDatabase();
		registry.add("spring.datasource.url", () -> url);
	}

	@LocalServerPort
	private int port;

	@Autowired
	private JdbcTemplate jdbc;

	@Test
	void onlyOperatorsSeeTheDashboard() {
		assertThat(new DashboardHttp(this.port).get("/taskqueue").statusCode()).isEqualTo(401);
		assertThat(new DashboardHttp(this.port, "user", "secret").get("/taskqueue").statusCode()).isEqualTo(403);
		assertThat(new DashboardHttp(this.port, "operator", "secret").get("/taskqueue").statusCode()).isEqualTo(200);
	}

	@Test
	void actionsNeedTheCsrfTokenOfTheForm() {
		DashboardHttp http = new DashboardHttp(this.port, "operator", "secret");
		String page = http.get("/taskqueue/queues/dash-csrf").body();
		List<String> tokens = DashboardHttp.all(page, "name=\"_csrf\" value=\"([^\"]+)\"");
		assertThat(tokens).isNotEmpty();
		assertThat(http.post("/taskqueue/queues/dash-csrf/pause", "").statusCode()).isEqualTo(403);
		assertThat(http.post("/taskqueue/queues/dash-csrf/pause", "_csrf=wrong").statusCode()).isEqualTo(403);
		String springToken = "_csrf=" + URLEncoder.encode(tokens.get(0), StandardCharsets.UTF_8);
		// Spring Security's token alone is not enough: TaskQueue checks its own too, so that a filter chain that
		// ignores the dashboard for CSRF (where Spring Security's token is in the request but checked by no one)
		// leaves the actions protected.
		assertThat(http.post("/taskqueue/queues/dash-csrf/pause", "from=queue&" + springToken).statusCode())
			.isEqualTo(403);
		assertThat(paused()).isFalse();
		List<String> own = DashboardHttp.all(page, "name=\"_taskqueue_csrf\" value=\"([^\"]+)\"");
		assertThat(own).isNotEmpty();
		HttpResponse<String> done = http.post("/taskqueue/queues/dash-csrf/pause", "from=queue&" + springToken
				+ "&_taskqueue_csrf=" + URLEncoder.encode(own.get(0), StandardCharsets.UTF_8));
		assertThat(done.statusCode()).isEqualTo(303);
		assertThat(paused()).isTrue();
		assertThat(http.follow(done).body()).contains("Paused queue dash-csrf");
	}

	private boolean paused() {
		return Boolean.TRUE.equals(this.jdbc.queryForObject(
				"SELECT EXISTS (SELECT 1 FROM taskqueue_queue WHERE name = 'dash-csrf' AND paused)", Boolean.class));
	}

	/** The example of docs/dashboard.md, with HTTP basic authentication for the test. */
	@Configuration(proxyBeanMethods = false)
	@EnableWebSecurity
	static class Security {

		@Bean
		SecurityFilterChain securityFilterChain(HttpSecurity http) throws Exception {
			http.authorizeHttpRequests((requests) -> requests
				.requestMatchers(HttpMethod.GET, "/actuator/taskqueue/**")
				.hasAnyAuthority("TASKQUEUE_VIEW", "TASKQUEUE_OPERATE")
				.requestMatchers("/actuator/taskqueue/**")
				.hasAuthority("TASKQUEUE_OPERATE")
				.anyRequest()
				.authenticated()).httpBasic(Customizer.withDefaults());
			return http.build();
		}

		@Bean
		UserDetailsService users() {
			return new InMemoryUserDetailsManager(
					User.withUsername("operator").password("{noop}secret").authorities("TASKQUEUE_OPERATE").build(),
					User.withUsername("user").password("{noop}secret").roles("USER").build());
		}

	}

}
