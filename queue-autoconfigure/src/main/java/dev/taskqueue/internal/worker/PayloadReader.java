package dev.taskqueue.internal.worker;

import java.lang.reflect.Type;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

import tools.jackson.core.type.TypeReference;
import tools.jackson.databind.DeserializationFeature;
import tools.jackson.databind.ObjectReader;
import tools.jackson.databind.json.JsonMapper;

/**
 * Reads a task's JSON payload as the type its handler declares, generics included, and its headers.
 */
final class PayloadReader {

	private static final TypeReference<Map<String, String>> HEADERS = new TypeReference<>() {
	};

	private final JsonMapper mapper;

	private final boolean strict;

	/** A reader per payload type: resolving the type and its deserializer for every task showed in profiles. */
	private final Map<Type, ObjectReader> readers = new ConcurrentHashMap<>();

	PayloadReader(JsonMapper mapper) {
		this(mapper, false);
	}

	/**
	 * @param strict whether a payload with a property its type does not have, without one its constructor takes,
	 * or with null for a primitive, fails to be read (and its task goes to the dead letters) instead of being read
	 * as the application's mapper reads it, which in Jackson 3 ignores unknown properties and leaves missing ones
	 * null
	 */
	PayloadReader(JsonMapper mapper, boolean strict) {
		this.mapper = mapper;
		this.strict = strict;
	}

	/**
	 * @throws tools.jackson.core.JacksonException if the JSON does not fit {@code type}
	 */
	Object read(String json, Type type) {
		return this.readers.computeIfAbsent(type, this::reader).readValue(json);
	}

	private ObjectReader reader(Type type) {
		ObjectReader reader = this.mapper.readerFor(this.mapper.getTypeFactory().constructType(type));
		// On the reader, not the mapper: the application's mapper serves its web layer too, which keeps its settings.
		return this.strict ? reader.with(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES,
				DeserializationFeature.FAIL_ON_MISSING_CREATOR_PROPERTIES,
				DeserializationFeature.FAIL_ON_NULL_FOR_PRIMITIVES) : reader;
	}

	/**
	 * {@code value} as JSON, written by the application's mapper as payloads are.
	 * @throws tools.jackson.core.JacksonException if it cannot be written
	 */
	String write(Object value) {
		return this.mapper.writeValueAsString(value);
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
