package dev.taskqueue.testing;

import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;

import dev.taskqueue.NonRetryableTaskException;
import dev.taskqueue.TaskContext;
import dev.taskqueue.TaskHandler;
import dev.taskqueue.TaskQueue;

import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.context.annotation.Import;
import org.springframework.jdbc.core.simple.JdbcClient;

/**
 * An application with handlers that write what they did to the {@code written} table, configured as an
 * application's tests get it: every auto-configuration on the class path, this module's included.
 */
@SpringBootConfiguration
@EnableAutoConfiguration
@Import(TesterTestApplication.Handlers.class)
class TesterTestApplication {

	record Note(String text) {
	}

	record Chain(int left) {
	}

	record Receipt(int characters) {
	}

	static class Handlers {

		final Map<String, AtomicInteger> calls = new ConcurrentHashMap<>();

		final Map<String, Thread> threads = new ConcurrentHashMap<>();

		private final JdbcClient jdbc;

		private final TaskQueue taskQueue;

		Handlers(JdbcClient jdbc, TaskQueue taskQueue) {
			this.jdbc = jdbc;
			this.taskQueue = taskQueue;
		}

		int calls(String queue) {
			AtomicInteger count = this.calls.get(queue);
			return (count != null) ? count.get() : 0;
		}

		void reset() {
			this.calls.clear();
			this.threads.clear();
		}

		@TaskHandler(queue = "write")
		void write(Note note, TaskContext context) {
			called(context);
			write(context.id(), note.text());
		}

		@TaskHandler(queue = "fail")
		void fail(Note note, TaskContext context) {
			called(context);
			write(context.id(), note.text()); // rolled back with the failure
			throw new IllegalStateException("failed on purpose: " + note.text());
		}

		@TaskHandler(queue = "reject")
		void reject(Note note, TaskContext context) {
			called(context);
			throw new NonRetryableTaskException("rejected: " + note.text());
		}

		@TaskHandler(queue = "chain")
		void chain(Chain chain, TaskContext context) {
			called(context);
			write(context.id(), "chain " + chain.left());
			if (chain.left() > 0) {
				this.taskQueue.enqueue("chain", new Chain(chain.left() - 1));
			}
		}

		@TaskHandler(queue = "receipt")
		Receipt receipt(Note note, TaskContext context) {
			called(context);
			context.progress(50, "half way through " + note.text());
			context.progress(90, "nearly done");
			return new Receipt(note.text().length());
		}

		@TaskHandler(queue = "forever")
		void forever(Note note, TaskContext context) {
			called(context);
			this.taskQueue.enqueue("forever", note);
		}

		private void called(TaskContext context) {
			this.calls.computeIfAbsent(context.queue(), (queue) -> new AtomicInteger()).incrementAndGet();
			this.threads.put(context.queue(), Thread.currentThread());
		}

		private void write(UUID taskId, String text) {
			this.jdbc.sql("INSERT INTO written (task_id, text) VALUES (?, ?)").params(taskId, text).update();
		}

	}

}
