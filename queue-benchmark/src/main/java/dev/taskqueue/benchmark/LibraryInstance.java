package dev.taskqueue.benchmark;

import java.util.LinkedHashMap;
import java.util.Map;

import dev.taskqueue.TaskQueue;
import dev.taskqueue.internal.worker.TaskWorker;

import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.boot.web.server.context.WebServerApplicationContext;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.SmartLifecycle;
import org.springframework.context.support.GenericApplicationContext;

/**
 * One application instance using TaskQueue, as a user's application gets it from the starter: a producer that only
 * enqueues, a worker with the no-op handler of one mode, or a web application that serves the dashboard.
 */
final class LibraryInstance implements AutoCloseable {

	private final ConfigurableApplicationContext context;

	private LibraryInstance(ConfigurableApplicationContext context) {
		this.context = context;
	}

	/** An instance that enqueues and runs no handlers; starting it applies TaskQueue's migrations. */
	static LibraryInstance producer(String url, LibraryProperties properties) {
		return new LibraryInstance(builder(url, properties, Map.of("taskqueue.worker.enabled", "false")).run());
	}

	/** An instance whose worker runs {@code mode}'s handler, reporting to {@code probe}. */
	static LibraryInstance worker(String url, LibraryProperties properties, Mode mode, Probe probe) {
		Map<String, String> worker = Map.of("taskqueue.worker.enabled", "true", LibraryProperties.POOL_SIZE,
				String.valueOf(properties.poolSize(mode)),
				"taskqueue.queues." + mode.queue() + ".group-commit-size", String.valueOf(properties.groupSize(mode)));
		return new LibraryInstance(builder(url, properties, worker).sources(mode.handler())
			.initializers((context) -> {
				GenericApplicationContext registry = (GenericApplicationContext) context;
				registry.registerBean(Probe.class, () -> probe);
				registry.registerBean(WorkerStartMarker.class, () -> new WorkerStartMarker(probe));
			})
			.run());
	}

	/**
	 * A web application on a free port that serves the dashboard and runs no worker, so the rows it shows stay; every
	 * statement it sends goes through {@code recorder}.
	 */
	static LibraryInstance dashboard(String url, LibraryProperties properties, StatementRecorder recorder) {
		Map<String, String> web = Map.of("taskqueue.worker.enabled", "false", "taskqueue.dashboard.enabled", "true",
				"server.port", "0");
		return new LibraryInstance(builder(url, properties, web).web(WebApplicationType.SERVLET)
			.initializers((context) -> context.getBeanFactory().addBeanPostProcessor(recorder))
			.run());
	}

	/** The port a {@link #dashboard} instance serves on. */
	int port() {
		return ((WebServerApplicationContext) this.context).getWebServer().getPort();
	}

	private static SpringApplicationBuilder builder(String url, LibraryProperties properties,
			Map<String, String> overrides) {
		Map<String, Object> all = new LinkedHashMap<>();
		all.put("spring.main.banner-mode", "off");
		all.put("spring.main.log-startup-info", "false");
		all.put("spring.main.register-shutdown-hook", "false");
		all.putAll(properties.asMap());
		all.putAll(overrides);
		all.put("spring.datasource.url", url);
		return new SpringApplicationBuilder(Application.class).web(WebApplicationType.NONE).properties(all);
	}

	TaskQueue taskQueue() {
		return this.context.getBean(TaskQueue.class);
	}

	<T> T bean(Class<T> type) {
		return this.context.getBean(type);
	}

	@Override
	public void close() {
		this.context.close();
	}

	/** The configuration of every instance: what the auto-configuration gives an application. */
	@SpringBootConfiguration(proxyBeanMethods = false)
	@EnableAutoConfiguration
	static class Application {

	}

	/** Notes when the worker starts: it starts just before TaskQueue's worker, after the rest of the instance. */
	static final class WorkerStartMarker implements SmartLifecycle {

		private final Probe probe;

		private volatile boolean running;

		WorkerStartMarker(Probe probe) {
			this.probe = probe;
		}

		@Override
		public int getPhase() {
			return TaskWorker.PHASE - 1;
		}

		@Override
		public void start() {
			this.probe.workerStarting();
			this.running = true;
		}

		@Override
		public void stop() {
			this.running = false;
		}

		@Override
		public boolean isRunning() {
			return this.running;
		}

	}

}
