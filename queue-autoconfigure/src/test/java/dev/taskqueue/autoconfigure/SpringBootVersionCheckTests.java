package dev.taskqueue.autoconfigure;

import dev.taskqueue.internal.support.StartupFailure;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.NullAndEmptySource;
import org.junit.jupiter.params.provider.ValueSource;

import org.springframework.boot.SpringApplication;
import org.springframework.boot.SpringBootVersion;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.diagnostics.FailureAnalyzer;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.context.ApplicationContextInitializer;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.io.support.SpringFactoriesLoader;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

/**
 * A Spring Boot older than TaskQueue's stops the application with one line naming both versions, reported as
 * Spring Boot's failure analysis; a version the check cannot read does not stop it.
 */
@ExtendWith(OutputCaptureExtension.class)
class SpringBootVersionCheckTests {

	@ParameterizedTest
	@ValueSource(strings = { "4.1.0", "4.1.1", "4.1.0-SNAPSHOT", "4.1.0-M2", "4.2.0", "4.10.0", "5.0.0", " 4.1.3 " })
	void supportedVersions(String version) {
		assertThat(SpringBootVersionCheck.isSupported(version)).isTrue();
	}

	@ParameterizedTest
	@ValueSource(strings = { "3.5.7", "3.5.0-SNAPSHOT", "4.0.0", "4.0.3", "2.7.18", "1.5.22.RELEASE" })
	void olderVersions(String version) {
		assertThat(SpringBootVersionCheck.isSupported(version)).isFalse();
	}

	@ParameterizedTest
	@NullAndEmptySource
	@ValueSource(strings = { "unknown", "4", "v3.5.7", "99999999999.1.0" })
	void aVersionThatCannotBeReadDoesNotStopTheApplication(String version) {
		assertThat(SpringBootVersionCheck.isSupported(version)).isTrue();
	}

	@Test
	void theLineNamesBothVersions() {
		assertThat(SpringBootVersionCheck.problem("0.1.0-SNAPSHOT", "3.5.7"))
			.isEqualTo("TaskQueue 0.1.0-SNAPSHOT needs Spring Boot 4.1 or later; found Spring Boot 3.5.7");
		assertThat(SpringBootVersionCheck.problem(null, "3.5.7"))
			.isEqualTo("TaskQueue needs Spring Boot 4.1 or later; found Spring Boot 3.5.7");
	}

	@Test
	void theSpringBootTheTestsRunOnPasses() {
		assertThat(SpringBootVersionCheck.isSupported(SpringBootVersion.getVersion())).isTrue();
	}

	@Test
	void theCheckAndItsAnalyzerAreRegisteredWhereSpringBoot3And4LookForThem() {
		SpringFactoriesLoader factories = SpringFactoriesLoader.forDefaultResourceLocation();
		assertThat(factories.load(ApplicationContextInitializer.class))
			.anySatisfy((initializer) -> assertThat(initializer).isInstanceOf(SpringBootVersionCheck.class));
		// Spring Boot's own analyzers need the context's bean factory: left out here.
		assertThat(factories.load(FailureAnalyzer.class, null, (type, name, failure) -> {
		})).anySatisfy((analyzer) -> assertThat(analyzer.getClass()
			.getName()).isEqualTo("dev.taskqueue.internal.support.StartupFailureAnalyzer"));
	}

	@Test
	void anOlderSpringBootStopsStartupWithTheAnalysisInsteadOfAStackTrace(CapturedOutput output) {
		SpringApplication application = new SpringApplication(Empty.class);
		application.setWebApplicationType(WebApplicationType.NONE);
		application.addInitializers(new SpringBootVersionCheck(() -> "3.5.7"));
		assertThatExceptionOfType(StartupFailure.class).isThrownBy(application::run)
			.withMessageEndingWith(" needs Spring Boot 4.1 or later; found Spring Boot 3.5.7");
		assertThat(output).contains("APPLICATION FAILED TO START")
			.containsPattern("Description:\\R\\RTaskQueue( \\S+)? needs Spring Boot 4.1 or later; found Spring Boot "
					+ "3.5.7\\R")
			.contains("Action:" + System.lineSeparator() + System.lineSeparator() + "Upgrade the application to "
					+ "Spring Boot 4.1 or later (the version of its spring-boot-starter-parent or "
					+ "spring-boot-dependencies).")
			.doesNotContain("\tat org.springframework");
	}

	@Configuration(proxyBeanMethods = false)
	static class Empty {

	}

}
