package dev.taskqueue.internal.worker;

import java.lang.reflect.Type;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Consumer;

import dev.taskqueue.NonRetryableTaskException;
import dev.taskqueue.TaskContext;
import dev.taskqueue.TaskHandlerInterceptor;
import dev.taskqueue.TaskQueueListener;
import dev.taskqueue.internal.handler.TaskHandlerMethod;
import dev.taskqueue.internal.support.PostgresText;
import dev.taskqueue.internal.support.ScheduledAtHeader;
import org.jspecify.annotations.Nullable;
import tools.jackson.core.type.TypeReference;
import tools.jackson.databind.DeserializationFeature;
import tools.jackson.databind.ObjectReader;
import tools.jackson.databind.json.JsonMapper;

/**
 * Calls a task's handler: reads its payload as the handler's type, tells the listeners it starts, and invokes the
 * handler through the application's interceptors, first one outermost. It runs no transaction and records no
 * outcome: its callers do both.
 * <p>
 * Its JSON (the payload, the headers the interceptors get, the result) goes through the application's mapper as its
 * {@link PayloadReader}, nested here, which the worker makes once with the payload settings.
 */
final class TaskInvoker {

	/** What {@code prepare} returns for a task that is not to run. */
	static final Object NOT_RUNNABLE = new Object();

	/** {@code taskqueue.results.max-size}'s default, 64KB. */
	static final long DEFAULT_MAX_RESULT_BYTES = 64 * 1024;

	private final PayloadReader payloads;

	private final TaskQueueListener listener;

	private final List<TaskHandlerInterceptor> interceptors;

	private final Cancellations cancellations;

	/** Where the contexts of running tasks send their progress; {@code null} outside a worker. */
	private volatile @Nullable ProgressWriter progress;

	/** The most bytes of a result's JSON, in UTF-8. */
	private volatile long maxResultBytes = DEFAULT_MAX_RESULT_BYTES;

	/**
	 * @param listener the listeners, which must not throw
	 * @param cancellations the tasks of this worker cancelled while they run, which the handlers' contexts tell
	 */
	TaskInvoker(PayloadReader payloads, TaskQueueListener listener, List<TaskHandlerInterceptor> interceptors,
			Cancellations cancellations) {
		this.cancellations = cancellations;
		this.payloads = payloads;
		this.listener = listener;
		this.interceptors = List.copyOf(interceptors);
	}

	/**
	 * Checks what must hold before {@code task}'s handler runs, and tells the listener it starts.
	 * @return the payload as the handler takes it, or {@link #NOT_RUNNABLE} when the task went to the dead letters
	 */
	Object prepare(ClaimedTask task, TaskHandlerMethod handler, QueueSettings settings, TaskContext context,
			Consumer<Exception> rejected) {
		if (task.attempt() > settings.maxAttempts()) {
			rejected.accept(withoutOwnFrames(new IllegalStateException("Gave up after " + settings.maxAttempts()
					+ " attempts; the last one ended without an outcome because its worker stopped or lost its "
					+ "session" + ((task.lastError() != null) ? ". Error before that:\n" + task.lastError() : ""))));
			return NOT_RUNNABLE;
		}
		Object payload;
		try {
			payload = this.payloads.read(task.payload(), handler.payloadType());
		}
		catch (Throwable ex) {
			if (ex instanceof VirtualMachineError) {
				throw ex; // out of memory, say: not the payload's fault, so the attempt fails but is not dead
			}
			// Errors too: a payload type's constructor may assert, or its class fail to initialise.
			String why = (ex.getMessage() != null) ? ex.getMessage() : ex.getClass().getName();
			rejected.accept(withoutOwnFrames(new IllegalArgumentException("Payload cannot be read as "
					+ handler.payloadType().getTypeName() + " for " + handler.describe() + ": " + why, ex)));
			return NOT_RUNNABLE;
		}
		Duration pickupLatency = Duration.between(task.runAt(), task.claimedAt());
		this.listener.started(context, pickupLatency.isNegative() ? Duration.ZERO : pickupLatency);
		return payload;
	}

	/**
	 * Invokes the handler through the interceptors.
	 * @throws RuntimeException or Error as the handler or an interceptor threw it; a checked exception wrapped in
	 * a {@link HandlerException}, which {@link #unwrap(Throwable)} takes off
	 */
	void invoke(TaskHandlerMethod handler, Object payload, TaskContext context, ClaimedTask task) {
		Map<String, String> headers = this.payloads.headers(task.headers());
		try {
			proceed(0, handler, payload, context, headers);
		}
		catch (RuntimeException ex) {
			throw ex;
		}
		catch (Exception ex) {
			throw new HandlerException(ex);
		}
	}

	private void proceed(int index, TaskHandlerMethod handler, Object payload, TaskContext context,
			Map<String, String> headers) throws Exception {
		if (index == this.interceptors.size()) {
			handler.invoke(payload, context);
		}
		else {
			this.interceptors.get(index)
				.intercept(context, headers, () -> proceed(index + 1, handler, payload, context, headers));
		}
	}

	/**
	 * A reason of TaskQueue's own for the dead letters: where in TaskQueue it was made helps nobody, its cause's
	 * stack trace (the payload type's constructor, say) is what the stored error keeps.
	 */
	private static <E extends Exception> E withoutOwnFrames(E reason) {
		reason.setStackTrace(new StackTraceElement[0]);
		return reason;
	}

	/** The failure as the handler threw it. */
	static Throwable unwrap(Throwable ex) {
		Throwable cause = (ex instanceof HandlerException) ? ex.getCause() : null;
		return (cause != null) ? cause : ex;
	}

	/** Gives the progress of running tasks to {@code writer}. */
	void reportProgressTo(ProgressWriter writer) {
		this.progress = writer;
	}

	void limitResults(long maxBytes) {
		this.maxResultBytes = maxBytes;
	}

	/**
	 * The context {@code task}'s handler gets: it tells whether the task has been cancelled, and, inside a worker,
	 * writes the progress the handler reports (tasks run by {@code TaskRunner} keep it in the context).
	 * {@link #ended} must be told when the attempt ends.
	 */
	TaskContext handlerContext(ClaimedTask task) {
		return new RunningTaskContext(task, this.cancellations, this.progress);
	}

	/** The attempt of {@code context}, from {@link #handlerContext}, ended. */
	static void ended(TaskContext context) {
		if (context instanceof RunningTaskContext running) {
			running.ended();
		}
	}

	/**
	 * The JSON of the result the handler gave through {@code context}, or {@code null} when it gave none: the common
	 * case, which costs nothing more.
	 * @throws NonRetryableTaskException if the result cannot be written as JSON or is larger than the limit: it would
	 * be every time, so the task goes to the dead letters
	 */
	@Nullable String resultJson(TaskContext context) {
		Object result = context.result();
		if (result == null) {
			return null;
		}
		String json;
		try {
			json = this.payloads.write(result);
		}
		catch (RuntimeException ex) {
			throw new NonRetryableTaskException("The result of task " + context.id() + " (a "
					+ result.getClass().getName() + ") cannot be written as JSON: " + ErrorText.summary(ex), ex);
		}
		long bytes = PostgresText.utf8Length(json, this.maxResultBytes);
		if (bytes > this.maxResultBytes) {
			throw new NonRetryableTaskException("The result of task " + context.id() + " is more than "
					+ this.maxResultBytes + " bytes of JSON, taskqueue.results.max-size; keep large data elsewhere "
					+ "and return a reference to it");
		}
		return json;
	}

	static TaskContext context(ClaimedTask task) {
		return new TaskContext(task.id(), task.queue(), task.attempt(), task.enqueuedAt(),
				ScheduledAtHeader.read(task.headers()), BatchHeaders.batch(task.headers()));
	}

	/** Carries a checked exception of a handler through the transaction template. */
	private static final class HandlerException extends RuntimeException {

		HandlerException(Exception cause) {
			super(cause);
		}

	}

	/**
	 * Reads a task's JSON payload as the type its handler declares, generics included, and its headers.
	 */
	static final class PayloadReader {

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
			// On the reader, not the mapper: the application's mapper serves its web layer too, which keeps its
			// settings.
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

}
