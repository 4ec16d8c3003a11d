package dev.taskqueue.autoconfigure;

import java.beans.PropertyDescriptor;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;

import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;

import org.springframework.beans.BeanUtils;
import org.springframework.beans.BeanWrapper;
import org.springframework.beans.PropertyAccessorFactory;
import org.springframework.boot.convert.DurationStyle;
import org.springframework.util.unit.DataSize;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Checks the metadata that spring-boot-configuration-processor generates from {@link TaskQueueProperties}: what
 * IDEs show to users who type {@code taskqueue.} in {@code application.yml}.
 */
class ConfigurationMetadataTests {

	private static final ConfigurationMetadata metadata = ConfigurationMetadata.load();

	private static final Map<String, JsonNode> properties = metadata.properties("taskqueue.");

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
		assertThat(defaultValue("taskqueue.retry.backoff.max-delay")).isEqualTo("1h");
		assertThat(defaultValue("taskqueue.worker.concurrency")).isEqualTo("4");
		assertThat(defaultValue("taskqueue.retry.max-attempts")).isEqualTo("20");
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
			.isEqualTo("java.util.Map<java.lang.String,dev.taskqueue.autoconfigure.QueueProperties>");
		assertThat(properties.get("taskqueue.queues").path("description").asString()).contains("keyed by queue name");
	}

	/**
	 * Every property of {@link TaskQueueProperties}, found by walking its getters as binding does, is described,
	 * and nothing else is: the metadata is complete.
	 */
	@Test
	void describesEveryPropertyOfTheClass() {
		List<String> names = new ArrayList<>();
		collectNames(TaskQueueProperties.class, "taskqueue", names);
		assertThat(properties.keySet()).containsExactlyInAnyOrderElementsOf(names);
	}

	/** A property whose field has a value in a new {@link TaskQueueProperties} shows that value as its default. */
	@Test
	void everyDefaultIsDescribed() {
		BeanWrapper defaults = PropertyAccessorFactory.forBeanPropertyAccess(new TaskQueueProperties());
		properties.forEach((name, property) -> {
			Object value = defaults.getPropertyValue(propertyPath(name));
			if (value == null || value instanceof Map) {
				assertThat(property.has("defaultValue")).as("default of " + name).isFalse();
			}
			else if (value instanceof Duration duration) {
				assertThat(DurationStyle.detectAndParse(defaultValue(name))).as("default of " + name)
					.isEqualTo(duration);
			}
			else if (value instanceof DataSize size) { // written as in a file (1MB), read back as bytes
				assertThat(DataSize.parse(defaultValue(name))).as("default of " + name).isEqualTo(size);
			}
			else if (value instanceof Number number) {
				assertThat(Double.parseDouble(defaultValue(name))).as("default of " + name)
					.isEqualTo(number.doubleValue());
			}
			else if (value instanceof Enum<?> constant) { // the metadata writes a constant as it is written in a file
				assertThat(defaultValue(name)).as("default of " + name)
					.isEqualTo(constant.name().toLowerCase(java.util.Locale.ROOT).replace('_', '-'));
			}
			else {
				assertThat(defaultValue(name)).as("default of " + name).isEqualTo(String.valueOf(value));
			}
		});
	}

	@Test
	void describesTheHealthIndicatorsSwitch() {
		JsonNode health = metadata.properties().get("management.health.taskqueue.enabled");
		assertThat(health).isNotNull();
		assertThat(health.path("type").asString()).isEqualTo("java.lang.Boolean");
		assertThat(health.path("defaultValue").asBoolean(false)).isTrue();
	}

	@Test
	void everyHintIsOnAPropertyAndDescribesItsValues() {
		assertThat(metadata.hints()).isNotEmpty();
		metadata.hints().forEach((name, hint) -> {
			assertThat(properties).as("property of the hint " + name).containsKey(name);
			assertThat(hint.path("values")).as("values of the hint " + name)
				.isNotEmpty()
				.allSatisfy((value) -> assertThat(value.path("description").asString()).endsWith("."));
		});
	}

	private static void collectNames(Class<?> type, String prefix, List<String> names) {
		for (PropertyDescriptor descriptor : BeanUtils.getPropertyDescriptors(type)) {
			if (descriptor.getReadMethod() == null || descriptor.getName().equals("class")) {
				continue;
			}
			String name = prefix + "." + descriptor.getName().replaceAll("([A-Z])", "-$1").toLowerCase(Locale.ROOT);
			if (isGroup(descriptor.getPropertyType())) {
				collectNames(descriptor.getPropertyType(), name, names);
			}
			else {
				names.add(name);
			}
		}
	}

	/** A nested group: a *Properties class next to TaskQueueProperties, or a class inside one. */
	private static boolean isGroup(Class<?> type) {
		Class<?> declaring = type.getDeclaringClass();
		return type.getPackage() == TaskQueueProperties.class.getPackage()
				&& (type.getSimpleName().endsWith("Properties") || (declaring != null && isGroup(declaring)));
	}

	/** {@code taskqueue.worker.poll-interval} as a bean property path: {@code worker.pollInterval}. */
	private static String propertyPath(String name) {
		StringBuilder path = new StringBuilder();
		for (char c : name.substring("taskqueue.".length()).toCharArray()) {
			if (path.length() > 0 && path.charAt(path.length() - 1) == '-') {
				path.setCharAt(path.length() - 1, Character.toUpperCase(c));
			}
			else {
				path.append(c);
			}
		}
		return path.toString();
	}

	private static String type(String name) {
		return properties.get(name).path("type").asString();
	}

	private static String defaultValue(String name) {
		return properties.get(name).path("defaultValue").asString();
	}

}
