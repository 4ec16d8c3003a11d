package dev.taskqueue.internal.dashboard;

import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicBoolean;

import dev.taskqueue.NonRetryableTaskException;
import dev.taskqueue.TaskContext;
import dev.taskqueue.TaskHandler;

import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.context.annotation.Bean;

/**
 * A web application with the dashboard: {@code dash-ok} completes its tasks, {@code dash-dead} sends each straight
 * to the dead letters with an error that holds the payload (markup included), and any other queue has no handler,
 * so its tasks wait; {@code dash-progress} reports 50% and runs until told, then returns a result with markup.
 */
@SpringBootConfiguration
@EnableAutoConfiguration
class DashboardTestApplication {

	@Bean
	Handlers handlers() {
		return new Handlers();
	}

	static class Handlers {

		final Set<UUID> handled = ConcurrentHashMap.newKeySet();

		/** Whether {@code dash-dead} refuses the tasks whose payload does not start with "ok". */
		final AtomicBoolean refusing = new AtomicBoolean(true);

		@TaskHandler(queue = "dash-ok")
		void ok(String payload, TaskContext context) {
			this.handled.add(context.id());
		}

		/** Whether {@code dash-progress} keeps its task running, after its report of 50%. */
		final AtomicBoolean progressing = new AtomicBoolean(true);

		@TaskHandler(queue = "dash-progress")
		Map<String, String> progress(String payload, TaskContext context) throws InterruptedException {
			context.progress(50, "<b>half</b>");
			while (this.progressing.get()) {
				Thread.sleep(10);
			}
			return Map.of("summary", "<i>done</i>");
		}

		@TaskHandler(queue = "dash-dead")
		void dead(String payload, TaskContext context) {
			if (payload.startsWith("ok") || !this.refusing.get()) {
				this.handled.add(context.id());
				return;
			}
			throw new NonRetryableTaskException("refused " + payload);
		}

	}

}
