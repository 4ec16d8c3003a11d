package dev.taskqueue.autoconfigure;

import java.util.LinkedHashSet;
import java.util.Set;

import org.springframework.boot.actuate.endpoint.Show;
import org.springframework.boot.context.properties.ConfigurationProperties;

/**
 * What the {@code taskqueue} actuator endpoint shows of the tasks, beside Spring Boot's own settings of it
 * ({@code access}, {@code cache}): as Boot's {@code env} endpoint hides values until asked, payloads and results are
 * hidden until the application says who may see them.
 */
@ConfigurationProperties("management.endpoint.taskqueue")
public class TaskQueueEndpointProperties {

	/**
	 * When the taskqueue endpoint shows tasks' payloads and results: never (shown as "(hidden)"), when-authorized
	 * (to an authenticated user with one of the roles), or always. Errors show either way, through the
	 * TaskRedactor.
	 */
	private Show showValues = Show.NEVER;

	/**
	 * Roles that may see payloads and results when show-values is when-authorized; empty lets any authenticated
	 * user see them.
	 */
	private Set<String> roles = new LinkedHashSet<>();

	public Show getShowValues() {
		return this.showValues;
	}

	public void setShowValues(Show showValues) {
		this.showValues = showValues;
	}

	public Set<String> getRoles() {
		return this.roles;
	}

	public void setRoles(Set<String> roles) {
		this.roles = roles;
	}

}
