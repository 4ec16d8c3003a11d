package dev.taskqueue.worker;

import java.lang.reflect.Type;

import tools.jackson.databind.JavaType;
import tools.jackson.databind.json.JsonMapper;

/**
 * Reads a task's JSON payload as the type its handler declares, generics included.
 */
public class PayloadReader {

	private final JsonMapper mapper;

	public PayloadReader(JsonMapper mapper) {
		this.mapper = mapper;
	}

	/**
	 * @throws tools.jackson.core.JacksonException if the JSON does not fit {@code type}
	 */
	Object read(String json, Type type) {
		JavaType javaType = this.mapper.getTypeFactory().constructType(type);
		return this.mapper.readValue(json, javaType);
	}

}
