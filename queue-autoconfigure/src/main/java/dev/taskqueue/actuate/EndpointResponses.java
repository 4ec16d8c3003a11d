package dev.taskqueue.actuate;

import java.util.UUID;
import java.util.function.Supplier;

import dev.taskqueue.DeadTaskPage;
import dev.taskqueue.actuate.TaskQueueDescriptors.ErrorBody;
import org.jspecify.annotations.Nullable;

import org.springframework.boot.actuate.endpoint.web.WebEndpointResponse;

/**
 * The answers of the {@code taskqueue} endpoint: 200 with a body, 404 for a queue or task nobody knows, 400 for bad
 * input; the 4xx carry {@code {"error": "..."}}, which says what was wrong in words a person can act on.
 */
final class EndpointResponses {

	private EndpointResponses() {
	}

	static WebEndpointResponse<Object> ok(Object body) {
		return new WebEndpointResponse<>(body, WebEndpointResponse.STATUS_OK);
	}

	static WebEndpointResponse<Object> notFound(String error) {
		return new WebEndpointResponse<>(new ErrorBody(error), WebEndpointResponse.STATUS_NOT_FOUND);
	}

	static WebEndpointResponse<Object> badRequest(String error) {
		return new WebEndpointResponse<>(new ErrorBody(error), WebEndpointResponse.STATUS_BAD_REQUEST);
	}

	static WebEndpointResponse<Object> unknownQueue(String queue) {
		return notFound("No queue '" + queue + "': it has no handler in this instance, and no tasks, dead tasks "
				+ "or pause in the database");
	}

	/**
	 * Runs {@code operation}, turning the {@link IllegalArgumentException} of the operations API (a bad queue name,
	 * limit or cursor) into a 400 that carries its message.
	 */
	static WebEndpointResponse<Object> valid(Supplier<WebEndpointResponse<Object>> operation) {
		try {
			return operation.get();
		}
		catch (IllegalArgumentException ex) {
			String message = ex.getMessage();
			return badRequest((message != null) ? message : ex.toString());
		}
	}

	/** The task id in {@code text}, or {@code null} when it is none. */
	static @Nullable UUID taskId(String text) {
		try {
			return (text.length() == 36) ? UUID.fromString(text) : null;
		}
		catch (IllegalArgumentException ex) {
			return null;
		}
	}

	static WebEndpointResponse<Object> notATaskId(String text) {
		return badRequest("'" + text + "' is not a task id");
	}

	/**
	 * The page size in {@code text}, {@link DeadTaskPage#DEFAULT_LIMIT} when it is {@code null}.
	 * @throws IllegalArgumentException if it is not a number; the operations API checks its range
	 */
	static int limit(@Nullable String text) {
		if (text == null) {
			return DeadTaskPage.DEFAULT_LIMIT;
		}
		try {
			return Integer.parseInt(text);
		}
		catch (NumberFormatException ex) {
			throw new IllegalArgumentException(
					"limit must be from 1 to " + DeadTaskPage.MAX_LIMIT + " but was '" + text + "'");
		}
	}

}
