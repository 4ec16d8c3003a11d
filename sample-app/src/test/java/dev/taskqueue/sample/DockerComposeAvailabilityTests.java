package dev.taskqueue.sample;

import java.util.ArrayList;
import java.util.List;
import java.util.Set;

import org.junit.jupiter.api.Test;

import org.springframework.boot.EnvironmentPostProcessor;
import org.springframework.boot.SpringApplication;
import org.springframework.boot.logging.DeferredLogFactory;
import org.springframework.boot.logging.DeferredLogs;
import org.springframework.boot.test.util.TestPropertyValues;
import org.springframework.core.io.support.SpringFactoriesLoader;
import org.springframework.core.io.support.SpringFactoriesLoader.ArgumentResolver;
import org.springframework.mock.env.MockEnvironment;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Docker Compose support is switched off, so that the sample starts on embedded PostgreSQL, exactly when Docker
 * could not run compose.yaml. The commands are answered here, not by this machine's Docker.
 */
class DockerComposeAvailabilityTests {

	private final MockEnvironment environment = new MockEnvironment();

	private final List<String> ran = new ArrayList<>();

	@Test
	void withoutADockerEngineComposeIsOff() {
		postProcess(Set.of());
		assertThat(this.environment.getProperty(DockerComposeAvailability.ENABLED)).isEqualTo("false");
		assertThat(this.ran).containsExactly("docker info");
	}

	@Test
	void withAnEngineButNoComposeCommandComposeIsOff() {
		postProcess(Set.of("docker info"));
		assertThat(this.environment.getProperty(DockerComposeAvailability.ENABLED)).isEqualTo("false");
		assertThat(this.ran).containsExactly("docker info", "docker compose version", "docker-compose version");
	}

	@Test
	void withAnEngineAndComposeComposeIsLeftOn() {
		postProcess(Set.of("docker info", "docker compose version"));
		assertThat(this.environment.getProperty(DockerComposeAvailability.ENABLED)).isNull();
	}

	@Test
	void withTheStandaloneComposeCommandComposeIsLeftOn() {
		postProcess(Set.of("docker info", "docker-compose version"));
		assertThat(this.environment.getProperty(DockerComposeAvailability.ENABLED)).isNull();
	}

	@Test
	void aConfiguredDatabaseTurnsComposeOffWithoutAskingDocker() {
		TestPropertyValues.of("spring.datasource.url=jdbc:postgresql://db/app").applyTo(this.environment);
		postProcess(Set.of("docker info", "docker compose version"));
		assertThat(this.environment.getProperty(DockerComposeAvailability.ENABLED)).isEqualTo("false");
		assertThat(this.ran).isEmpty();
	}

	@Test
	void anExplicitSettingIsLeftAsItIs() {
		TestPropertyValues.of("spring.docker.compose.enabled=true").applyTo(this.environment);
		postProcess(Set.of());
		assertThat(this.environment.getProperty(DockerComposeAvailability.ENABLED)).isEqualTo("true");
		assertThat(this.ran).isEmpty();
	}

	@Test
	void isLoadedAsSpringBootLoadsEnvironmentPostProcessors() {
		assertThat(SpringFactoriesLoader.forDefaultResourceLocation()
			.load(EnvironmentPostProcessor.class, ArgumentResolver.of(DeferredLogFactory.class, new DeferredLogs())))
			.anyMatch(DockerComposeAvailability.class::isInstance);
	}

	private void postProcess(Set<String> succeeding) {
		new DockerComposeAvailability(new DeferredLogs(), (command) -> {
			String line = String.join(" ", command);
			this.ran.add(line);
			return succeeding.contains(line);
		}).postProcessEnvironment(this.environment, new SpringApplication(SampleApplication.class));
	}

}
