package dev.taskqueue.testing;

import java.time.Instant;
import java.util.Map;
import java.util.UUID;

import org.jspecify.annotations.Nullable;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/**
 * A task in the task table, as a test sees it: waiting to run (due now, scheduled, or waiting for a retry), or, while
 * a worker runs it, claimed.
 */
public final class EnqueuedTask {

	private final UUID id;

	private final String queue;

	private final String payloadJson;

	private final int priority;

	private final Instant runAt;

	private final boolean due;

	private final Instant enqueuedAt;

	private final int attempt;

	private final @Nullable String lastError;

	private final Map<String, String> headers;

	private final @Nullable String fairnessKey;

	private final JsonMapper mapper;

	EnqueuedTask(UUID id, String queue, String payloadJson, int priority, Instant runAt, boolean due,
			Instant enqueuedAt, int attempt, @Nullable String lastError, Map<String, String> headers,
			@Nullable String fairnessKey, JsonMapper mapper) {
		this.id = id;
		this.queue = queue;
		this.payloadJson = payloadJson;
		this.priority = priority;
		this.runAt = runAt;
		this.due = due;
		this.enqueuedAt = enqueuedAt;
		this.attempt = attempt;
		this.lastError = lastError;
		this.headers = headers;
		this.fairnessKey = fairnessKey;
		this.mapper = mapper;
	}

	/** The task's id, as {@code TaskQueue.enqueue} returned it. */
	public UUID id() {
		return this.id;
	}

	public String queue() {
		return this.queue;
	}

	/** The payload as the database keeps it: JSON, keys in the database's order. */
	public String payloadJson() {
		return this.payloadJson;
	}

	/** The payload as a JSON tree. */
	public JsonNode payload() {
		return this.mapper.readTree(this.payloadJson);
	}

	/** The payload read as {@code type} with the application's JSON mapper, as a handler would get it. */
	public <T> T payload(Class<T> type) {
		return this.mapper.readValue(this.payloadJson, type);
	}

	public int priority() {
		return this.priority;
	}

	/** The task's fairness key ({@code TaskRequest.withFairnessKey}), or {@code null} when it has none. */
	public @Nullable String fairnessKey() {
		return this.fairnessKey;
	}

	/** When the task is due: at once, after its delay, or at its next attempt. */
	public Instant runAt() {
		return this.runAt;
	}

	/** Whether the task is due now, on the database clock (which stands still inside a transaction). */
	public boolean isDue() {
		return this.due;
	}

	public Instant enqueuedAt() {
		return this.enqueuedAt;
	}

	/** How many times the task has been tried: 0 before its first run. */
	public int attempt() {
		return this.attempt;
	}

	/** The error of its last attempt, stack trace included, or {@code null}. */
	public @Nullable String lastError() {
		return this.lastError;
	}

	/** The headers stored at enqueue, such as a trace context. */
	public Map<String, String> headers() {
		return this.headers;
	}

	@Override
	public String toString() {
		StringBuilder text = new StringBuilder(this.queue).append(' ').append(this.payloadJson);
		if (this.priority != 0) {
			text.append(", priority ").append(this.priority);
		}
		if (this.fairnessKey != null) {
			text.append(", fairness key ").append(this.fairnessKey);
		}
		if (!this.due) {
			text.append(", due at ").append(this.runAt);
		}
		if (this.attempt > 0) {
			text.append(", tried ").append(this.attempt).append(" times");
			if (this.lastError != null) {
				text.append(", last error: ").append(this.lastError.lines().findFirst().orElse(""));
			}
		}
		if (!this.headers.isEmpty()) {
			text.append(", headers ").append(this.headers);
		}
		return text.toString();
	}

}
