package dev.taskqueue.sample;

import org.springframework.boot.SpringApplication;

/**
 * Runs the sample on a PostgreSQL container: {@code ./mvnw spring-boot:test-run -pl sample-app} (needs Docker).
 */
public class TestSampleApplication {

	public static void main(String[] args) {
		SpringApplication.from(SampleApplication::main).with(ContainersConfig.class).run(args);
	}

}
