package dev.taskqueue.autoconfigure;

import java.io.IOException;
import java.io.InputStream;
import java.net.URL;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Checks the metadata that spring-boot-configuration-processor generates from {@link TaskQueueProperties}: what
 * IDEs show to users who type {@code taskqueue.} in {@code application.yml}.
 */
class ConfigurationMetadataTests {

	private static final String LOCATION = "META-INF/spring-configuration-metadata.json";

	private static Map<String, JsonNode> properties;

	@BeforeAll
	static void readMetadata() throws IOException {
		JsonNode ours = null;
		for (URL url : Collections.list(ConfigurationMetadataTests.class.getClassLoader().getResources(LOCATION))) {
			try (InputStream in = url.openStream()) {
				JsonNode metadata = JsonMapper.builder().build().readTree(in);
				for (JsonNode group : metadata.path("groups")) {
					if (TaskQueueProperties.class.getName().equals(group.path("sourceType").asString())) {
						assertThat(ours).as("a second metadata file describing TaskQueueProperties at " + url).isNull();
						ours = metadata;
						break;
					}
				}
			}
		}
		assertThat(ours).as(LOCATION + " describing TaskQueueProperties on the class path").isNotNull();
		properties = new LinkedHashMap<>();
		for (JsonNode property : ours.path("properties")) {
			String name = property.path("name").asString();
			if (name.startsWith("taskqueue.")) {
				properties.put(name, property);
			}
		}
	}

	@Test
	void everyPropertyHasADescription() {
		List<String> undescribed = new ArrayList<>();
		properties.forEach((name, property) -> {
			if (property.path("description").asString("").isBlank()) {
				undescribed.add(name);
			}
		});
		assertThat(undescribed).as("taskqueue properties without a description").isEmpty();
	}

	@Test
	void everyDescriptionIsOneSentence() {
		properties.forEach((name, property) -> assertThat(property.path("description").asString())
			.as("description of " + name)
			.endsWith(".")
			.doesNotContain("{@"));
	}

	@Test
	void describesTheExpectedProperties() {
		assertThat(properties.keySet()).contains("taskqueue.enabled", "taskqueue.schema.migrate",
				"taskqueue.schema.name", "taskqueue.worker.enabled", "taskqueue.worker.concurrency",
				"taskqueue.worker.poll-interval", "taskqueue.worker.heartbeat-interval",
				"taskqueue.worker.session-timeout", "taskqueue.worker.shutdown-timeout", "taskqueue.retry.max-attempts",
				"taskqueue.retry.backoff.initial-delay", "taskqueue.retry.backoff.multiplier",
				"taskqueue.retry.backoff.max-delay", "taskqueue.retry.backoff.jitter", "taskqueue.queues",
				"taskqueue.metrics.refresh-interval", "taskqueue.metrics.count-limit",
				"taskqueue.retention.dead-letters", "taskqueue.retention.history", "taskqueue.retention.prune-interval",
				"taskqueue.history.enabled");
	}

	@Test
	void durationsAreDurationsWithLiteralDefaults() {
		assertThat(type("taskqueue.worker.poll-interval")).isEqualTo("java.time.Duration");
		assertThat(defaultValue("taskqueue.worker.poll-interval")).isEqualTo("500ms");
		assertThat(defaultValue("taskqueue.worker.heartbeat-interval")).isEqualTo("5s");
		assertThat(defaultValue("taskqueue.worker.session-timeout")).isEqualTo("30s");
		assertThat(defaultValue("taskqueue.worker.shutdown-timeout")).isEqualTo("30s");
		assertThat(defaultValue("taskqueue.retry.backoff.initial-delay")).isEqualTo("1s");
		assertThat(defaultValue("taskqueue.retry.backoff.max-delay")).isEqualTo("10m");
		assertThat(defaultValue("taskqueue.worker.concurrency")).isEqualTo("4");
		assertThat(defaultValue("taskqueue.retry.max-attempts")).isEqualTo("5");
		assertThat(defaultValue("taskqueue.enabled")).isEqualTo("true");
		assertThat(defaultValue("taskqueue.metrics.refresh-interval")).isEqualTo("10s");
		assertThat(defaultValue("taskqueue.metrics.count-limit")).isEqualTo("10000");
		assertThat(defaultValue("taskqueue.retention.dead-letters")).isEqualTo("14d");
		assertThat(defaultValue("taskqueue.retention.history")).isEqualTo("7d");
		assertThat(defaultValue("taskqueue.retention.prune-interval")).isEqualTo("1m");
		assertThat(defaultValue("taskqueue.history.enabled")).isEqualTo("false");
	}

	/**
	 * The processor describes a map as one property and cannot describe the fields of its values, so
	 * {@code taskqueue.queues.<name>.concurrency} has no entry of its own; the map's description has to say it.
	 */
	@Test
	void queueSettingsAreDescribedOnTheMapOnly() {
		assertThat(properties.keySet()).noneMatch((name) -> name.startsWith("taskqueue.queues."));
		assertThat(type("taskqueue.queues"))
			.isEqualTo("java.util.Map<java.lang.String,dev.taskqueue.autoconfigure.TaskQueueProperties$Queue>");
		assertThat(properties.get("taskqueue.queues").path("description").asString()).contains("keyed by queue name");
	}

	private static String type(String name) {
		return properties.get(name).path("type").asString();
	}

	private static String defaultValue(String name) {
		return properties.get(name).path("defaultValue").asString();
	}

}
