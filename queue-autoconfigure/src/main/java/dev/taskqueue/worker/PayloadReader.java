package dev.taskqueue.worker;

import java.lang.reflect.Type;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

import tools.jackson.core.type.TypeReference;
import tools.jackson.databind.ObjectReader;
import tools.jackson.databind.json.JsonMapper;

/**
 * Reads a task's JSON payload as the type its handler declares, generics included, and its headers.
 */
public class PayloadReader {

	private static final TypeReference<Map<String, String>> HEADERS = new TypeReference<>() {
	};

	private final JsonMapper mapper;

	/** A reader per payload type: resolving the type and its deserializer for every task showed in profiles. */
	private final Map<Type, ObjectReader> readers = new ConcurrentHashMap<>();

	public PayloadReader(JsonMapper mapper) {
		this.mapper = mapper;
	}

	/**
	 * @throws tools.jackson.core.JacksonException if the JSON does not fit {@code type}
	 */
	Object read(String json, Type type) {
		return this.readers
			.computeIfAbsent(type, (key) -> this.mapper.readerFor(this.mapper.getTypeFactory().constructType(key)))
			.readValue(json);
	}

	/**
	 * The headers stored with a task. Headers that cannot be read count as none: they carry context such as a
	 * trace, and losing it must not keep the task from running.
	 */
	Map<String, String> headers(String json) {
		if (json == null || json.equals("{}")) {
			return Map.of();
		}
		try {
			return Map.copyOf(this.mapper.readValue(json, HEADERS));
		}
		catch (RuntimeException ex) {
			return Map.of();
		}
	}

}
