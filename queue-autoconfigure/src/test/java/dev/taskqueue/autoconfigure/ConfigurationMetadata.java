package dev.taskqueue.autoconfigure;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.net.URL;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/**
 * The {@code META-INF/spring-configuration-metadata.json} that spring-boot-configuration-processor generates for
 * TaskQueue (from {@link TaskQueueProperties}, the endpoint and the additional metadata), as the tests read it.
 *
 * @param properties every property it describes, by name, in its order
 * @param hints every hint, by the name of the property it applies to
 */
record ConfigurationMetadata(Map<String, JsonNode> properties, Map<String, JsonNode> hints) {

	static final String LOCATION = "META-INF/spring-configuration-metadata.json";

	/** Reads the one metadata file on the class path that describes {@link TaskQueueProperties}. */
	static ConfigurationMetadata load() {
		List<URL> found = new ArrayList<>();
		JsonNode ours = null;
		try {
			for (URL url : Collections.list(ConfigurationMetadata.class.getClassLoader().getResources(LOCATION))) {
				try (InputStream in = url.openStream()) {
					JsonNode metadata = JsonMapper.builder().build().readTree(in);
					for (JsonNode group : metadata.path("groups")) {
						if (TaskQueueProperties.class.getName().equals(group.path("sourceType").asString())) {
							found.add(url);
							ours = metadata;
							break;
						}
					}
				}
			}
		}
		catch (IOException ex) {
			throw new UncheckedIOException(ex);
		}
		if (found.size() != 1) {
			throw new IllegalStateException("Expected one " + LOCATION + " describing TaskQueueProperties, found "
					+ found);
		}
		return new ConfigurationMetadata(byName(ours.path("properties")), byName(ours.path("hints")));
	}

	private static Map<String, JsonNode> byName(JsonNode entries) {
		Map<String, JsonNode> byName = new LinkedHashMap<>();
		for (JsonNode entry : entries) {
			byName.put(entry.path("name").asString(), entry);
		}
		return byName;
	}

	/** The properties whose names start with {@code prefix}. */
	Map<String, JsonNode> properties(String prefix) {
		Map<String, JsonNode> selected = new LinkedHashMap<>();
		this.properties.forEach((name, property) -> {
			if (name.startsWith(prefix)) {
				selected.put(name, property);
			}
		});
		return selected;
	}

}
