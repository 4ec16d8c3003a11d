package dev.taskqueue.autoconfigure;

import java.time.Duration;

/**
 * The health indicator's settings, under {@code taskqueue.health}.
 */
public class HealthProperties {

	/**
	 * How long the health indicator waits for the database before it answers DOWN. It does not wait for the
	 * connection pool's own timeout (spring.datasource.hikari.connection-timeout, 30s), so an outage shows at once.
	 */
	private Duration timeout = Duration.ofSeconds(2);

	public Duration getTimeout() {
		return this.timeout;
	}

	public void setTimeout(Duration timeout) {
		this.timeout = timeout;
	}

}
