package dev.taskqueue.sample;

import java.nio.file.Path;

import io.zonky.test.db.postgres.embedded.EmbeddedPostgres;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.jdbc.autoconfigure.JdbcConnectionDetails;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.jdbc.core.simple.JdbcClient;
import org.springframework.jdbc.datasource.DriverManagerDataSource;

import static org.assertj.core.api.Assertions.assertThat;
import static org.mockito.Mockito.mock;

/**
 * When the embedded PostgreSQL starts, and that it keeps its data from one start to the next.
 */
class EmbeddedPostgresAutoConfigurationIntegrationTests {

	private final ApplicationContextRunner runner = new ApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(EmbeddedPostgresAutoConfiguration.class))
		.withPropertyValues("sample.embedded-postgres.port=0");

	@Test
	void keepsItsDataInTheDataDirectory(@TempDir Path dataDir) {
		ApplicationContextRunner runner = this.runner
			.withPropertyValues("sample.embedded-postgres.data-dir=" + dataDir);
		runner.run((context) -> jdbc(context.getBean(JdbcConnectionDetails.class))
			.sql("CREATE TABLE kept AS SELECT 42 AS answer")
			.update());
		runner.run((context) -> assertThat(jdbc(context.getBean(JdbcConnectionDetails.class))
			.sql("SELECT answer FROM kept")
			.query(Integer.class)
			.single()).isEqualTo(42));
	}

	@Test
	void backsOffWhenADatabaseUrlIsSet() {
		this.runner.withPropertyValues("spring.datasource.url=jdbc:postgresql://localhost/app")
			.run((context) -> assertThat(context).doesNotHaveBean(EmbeddedPostgres.class));
	}

	@Test
	void backsOffForAServiceConnection() {
		this.runner.withBean(JdbcConnectionDetails.class, () -> mock(JdbcConnectionDetails.class))
			.run((context) -> assertThat(context).doesNotHaveBean(EmbeddedPostgres.class));
	}

	private static JdbcClient jdbc(JdbcConnectionDetails connection) {
		return JdbcClient.create(new DriverManagerDataSource(connection.getJdbcUrl(), connection.getUsername(),
				connection.getPassword()));
	}

}
