package dev.taskqueue.autoconfigure;

import java.util.Arrays;
import java.util.List;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.flywaydb.core.api.configuration.FluentConfiguration;

import org.springframework.boot.flyway.autoconfigure.FlywayConfigurationCustomizer;

/**
 * Lets the application's Flyway, added once TaskQueue's tables exist, start on that schema. Flyway refuses a
 * non-empty schema without its history table unless told to baseline it, and its default baseline, version 1,
 * would silently skip the application's {@code V1__…}. So when TaskQueue's tables are all the schema holds, this
 * baselines it at version 0: every application migration runs. A schema holding anything else is left to
 * Flyway's own message, and so is a baseline the application configured.
 */
class TaskQueueFlywayConfigurationCustomizer implements FlywayConfigurationCustomizer {

	private static final Log logger = LogFactory.getLog(TaskQueueFlywayConfigurationCustomizer.class);

	@Override
	public void customize(FluentConfiguration configuration) {
		if (configuration.isBaselineOnMigrate() || configuration.getDataSource() == null) {
			return;
		}
		SchemaContents contents = new SchemaContents(configuration.getDataSource());
		List<String> schemas = Arrays.asList(configuration.getSchemas());
		String historySchema = (configuration.getDefaultSchema() != null) ? configuration.getDefaultSchema()
				: !schemas.isEmpty() ? schemas.get(0) : contents.currentSchema();
		if (schemas.isEmpty()) {
			schemas = List.of(historySchema);
		}
		if (contents.hasTable(historySchema, configuration.getTable()) || !contents.holdOnlyTaskQueue(schemas)) {
			return;
		}
		logger.info("Schema " + String.join(", ", schemas) + " holds only TaskQueue's tables and no Flyway history: "
				+ "Flyway baselines it at version 0, so that all the application's migrations run");
		configuration.baselineOnMigrate(true).baselineVersion("0");
	}

}
