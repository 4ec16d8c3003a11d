package dev.taskqueue.sample;

import java.io.IOException;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;

import org.apache.commons.logging.Log;
import org.jspecify.annotations.Nullable;

import org.springframework.aot.AotDetector;
import org.springframework.boot.EnvironmentPostProcessor;
import org.springframework.boot.SpringApplication;
import org.springframework.boot.logging.DeferredLogFactory;
import org.springframework.core.env.ConfigurableEnvironment;
import org.springframework.core.env.MapPropertySource;
import org.springframework.util.ClassUtils;

/**
 * Turns Spring Boot's Docker Compose support off when it could not run {@code compose.yaml}, so that the sample
 * starts on its embedded PostgreSQL instead of failing: Spring Boot's support fails the startup when Docker is not
 * installed or its engine does not answer. Also off when {@code spring.datasource.url} names a database. An
 * explicit {@code spring.docker.compose.enabled} is left as it is.
 */
class DockerComposeAvailability implements EnvironmentPostProcessor {

	static final String ENABLED = "spring.docker.compose.enabled";

	private static final String DOCKER_COMPOSE =
			"org.springframework.boot.docker.compose.lifecycle.DockerComposeProperties";

	private final Log logger;

	private final Predicate<List<String>> succeeds;

	public DockerComposeAvailability(DeferredLogFactory logFactory) {
		this(logFactory, DockerComposeAvailability::run);
	}

	DockerComposeAvailability(DeferredLogFactory logFactory, Predicate<List<String>> succeeds) {
		this.logger = logFactory.getLog(DockerComposeAvailability.class);
		this.succeeds = succeeds;
	}

	@Override
	public void postProcessEnvironment(ConfigurableEnvironment environment, SpringApplication application) {
		// Not in the jar (the dependency is optional), and never used after AOT processing.
		if (!ClassUtils.isPresent(DOCKER_COMPOSE, application.getClassLoader()) || AotDetector.useGeneratedArtifacts()
				|| environment.containsProperty(ENABLED)) {
			return;
		}
		String reason = environment.getProperty("spring.datasource.url", "").isBlank() ? dockerProblem()
				: "spring.datasource.url is set";
		if (reason != null) {
			this.logger.info("Docker Compose support is off (" + reason + ")");
			environment.getPropertySources()
				.addLast(new MapPropertySource("dockerComposeAvailability", Map.of(ENABLED, false)));
		}
	}

	private @Nullable String dockerProblem() {
		if (!this.succeeds.test(List.of("docker", "info"))) {
			return "no Docker engine answers 'docker info'";
		}
		if (!this.succeeds.test(List.of("docker", "compose", "version"))
				&& !this.succeeds.test(List.of("docker-compose", "version"))) {
			return "neither 'docker compose' nor 'docker-compose' is installed";
		}
		return null;
	}

	private static boolean run(List<String> command) {
		try {
			Process process = new ProcessBuilder(command).redirectErrorStream(true)
				.redirectOutput(ProcessBuilder.Redirect.DISCARD)
				.start();
			if (!process.waitFor(10, TimeUnit.SECONDS)) {
				process.destroyForcibly();
				return false;
			}
			return process.exitValue() == 0;
		}
		catch (IOException ex) {
			return false; // not installed
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			return false;
		}
	}

}
