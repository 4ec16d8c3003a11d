package dev.taskqueue.autoconfigure;

import java.beans.PropertyDescriptor;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;

import org.springframework.beans.BeanUtils;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@code docs/configuration.md} lists every property exactly as the generated metadata describes it (name, type,
 * default, description), so that the page cannot drift from the code. When this fails, the message shows the rows
 * the page should have.
 */
class ConfigurationDocumentationTests {

	private static final Path PAGE = Path.of("..", "docs", "configuration.md");

	private static final String QUEUE_PREFIX = "taskqueue.queues.<name>.";

	private static final String SCHEDULE_PREFIX = "taskqueue.schedules.<name>.";

	private final ConfigurationMetadata metadata = ConfigurationMetadata.load();

	@Test
	void listsEveryPropertyAsTheMetadataDescribesIt() throws IOException {
		List<String> expected = new ArrayList<>();
		this.metadata.properties().forEach((name, property) -> {
			if (name.startsWith("taskqueue.") || name.contains(".taskqueue.")) {
				expected.add(row(name, property));
			}
		});
		List<String> documented = rows().stream()
			.filter((row) -> !row.startsWith("| `" + QUEUE_PREFIX) && !row.startsWith("| `" + SCHEDULE_PREFIX))
			.toList();
		assertThat(documented).containsExactlyInAnyOrderElementsOf(expected);
	}

	/** The metadata cannot describe the settings inside {@code taskqueue.queues}: they are checked on the class. */
	@Test
	void listsEverySettingOfAQueue() throws IOException {
		assertDocumentsEverySetting(QueueProperties.class, QUEUE_PREFIX);
	}

	@Test
	void listsEverySettingOfASchedule() throws IOException {
		assertDocumentsEverySetting(ScheduleProperties.class, SCHEDULE_PREFIX);
	}

	private static void assertDocumentsEverySetting(Class<?> type, String prefix) throws IOException {
		List<String> expected = new ArrayList<>();
		addSettings(type, prefix, expected);
		List<String> documented = rows().stream()
			.filter((row) -> row.startsWith("| `" + prefix))
			.map((row) -> String.join(" | ", cells(row).subList(0, 2)))
			.toList();
		assertThat(documented).containsExactlyInAnyOrderElementsOf(expected);
	}

	/** Adds the rows of {@code type}'s settings; a nested group (a getter of one of our classes) adds its own. */
	private static void addSettings(Class<?> type, String prefix, List<String> rows) {
		for (PropertyDescriptor descriptor : BeanUtils.getPropertyDescriptors(type)) {
			if (descriptor.getWriteMethod() != null) {
				rows.add("`" + prefix + dashed(descriptor.getName()) + "` | `"
						+ descriptor.getPropertyType().getSimpleName() + "`");
			}
			else if (descriptor.getPropertyType().getName().startsWith("dev.taskqueue.")) {
				addSettings(descriptor.getPropertyType(), prefix + dashed(descriptor.getName()) + ".", rows);
			}
		}
	}

	private static String row(String name, JsonNode property) {
		String defaultValue = property.has("defaultValue") ? "`" + property.path("defaultValue").asString() + "`" : "";
		return "| `" + name + "` | `" + simpleType(property.path("type").asString()) + "` | " + defaultValue + " | "
				+ property.path("description").asString() + " |";
	}

	/** A type without its packages and outer classes: {@code Map<String,Queue>}, {@code Duration}. */
	private static String simpleType(String type) {
		return type.replaceAll("(\\w+[.$])+", "");
	}

	private static List<String> rows() throws IOException {
		return Files.readAllLines(PAGE).stream().filter((line) -> line.startsWith("| `")).map(String::strip).toList();
	}

	private static List<String> cells(String row) {
		return List.of(row.substring(2, row.length() - 2).split(" \\| ", -1));
	}

	private static String dashed(String camelCase) {
		return camelCase.replaceAll("([A-Z])", "-$1").toLowerCase(Locale.ROOT);
	}

}
