package dev.taskqueue.internal.handler;

import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CopyOnWriteArrayList;

import dev.taskqueue.TaskContext;
import dev.taskqueue.TaskHandler;
import org.junit.jupiter.api.Test;

import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.ApplicationContext;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalStateException;

class TaskHandlerAnnotationBeanPostProcessorTests {

	private static final TaskContext CONTEXT = new TaskContext(new UUID(0, 1), "q", 1, Instant.EPOCH);

	private final ApplicationContextRunner runner = new ApplicationContextRunner()
		.withBean(TaskHandlerAnnotationBeanPostProcessor.class);

	@Test
	void registersHandlersWithTheirQueueSettingsAndSignature() {
		this.runner.withBean("handlers", Handlers.class).run((context) -> {
			TaskHandlerRegistry registry = registry(context);
			assertThat(registry.all()).extracting(TaskHandlerMethod::queue)
				.containsExactlyInAnyOrder("package-private", "public", "with-settings");
			TaskHandlerMethod withSettings = registry.get("with-settings");
			assertThat(withSettings.describe())
				.isEqualTo("bean 'handlers' method Handlers.withSettings(List, TaskContext)");
			assertThat(withSettings.takesContext()).isTrue();
			assertThat(withSettings.payloadType().getTypeName()).isEqualTo("java.util.List<java.lang.Integer>");
			assertThat(withSettings.concurrency()).isEqualTo(3);
			assertThat(withSettings.maxAttempts()).isEqualTo(7);
			assertThat(registry.get("public").takesContext()).isFalse();
			assertThat(registry.get("missing")).isNull();
		});
	}

	@Test
	void packagePrivateAndPublicHandlersAreInvocable() {
		this.runner.withBean("handlers", Handlers.class).run((context) -> {
			Handlers handlers = context.getBean(Handlers.class);
			registry(context).get("package-private").invoke("a", CONTEXT);
			registry(context).get("public").invoke("b", CONTEXT);
			assertThat(handlers.calls).containsExactly("package-private:a:1", "public:b");
		});
	}

	@Test
	void placeholdersInQueueNamesAreResolved() {
		this.runner.withPropertyValues("app.queue=emails")
			.withBean("placeholder", PlaceholderHandler.class)
			.run((context) -> assertThat(registry(context).all()).extracting(TaskHandlerMethod::queue)
				.containsExactly("emails"));
	}

	@Test
	void queueNameOf100CharactersIsFine() {
		this.runner.withBean("longest", LongestQueue.class)
			.run((context) -> assertThat(registry(context).get("q".repeat(100))).isNotNull());
	}

	@Test
	void registryIsReadOnlyAfterStartup() {
		this.runner.withBean("handlers", Handlers.class).run((context) -> {
			TaskHandlerRegistry registry = registry(context);
			TaskHandlerMethod existing = registry.get("public");
			TaskHandlerMethod late = new TaskHandlerMethod("late", "late", existing.bean(), existing.method(),
					String.class, false, 0, 0, false);
			assertThatIllegalStateException().isThrownBy(() -> registry.register(late))
				.withMessage("Cannot register bean 'late' method Handlers.publicHandler(String) after startup");
			assertThat(registry.get("late")).isNull();
			assertThat(registry.all()).hasSize(3);
			assertThat(registry.all()).isUnmodifiable();
		});
	}

	private static TaskHandlerRegistry registry(ApplicationContext context) {
		return context.getBean(TaskHandlerAnnotationBeanPostProcessor.class).getRegistry();
	}

	static class Handlers {

		final List<String> calls = new CopyOnWriteArrayList<>();

		@TaskHandler(queue = "package-private")
		void packagePrivate(String payload, TaskContext context) {
			this.calls.add("package-private:" + payload + ":" + context.attempt());
		}

		@TaskHandler(queue = "public")
		public void publicHandler(String payload) {
			this.calls.add("public:" + payload);
		}

		@TaskHandler(queue = "with-settings", concurrency = 3, maxAttempts = 7)
		void withSettings(List<Integer> payload, TaskContext context) {
		}

		void notAHandler(String payload) {
		}

	}

	static class PlaceholderHandler {

		@TaskHandler(queue = "${app.queue}")
		void handle(Map<String, Object> payload) {
		}

	}

	static class LongestQueue {

		@TaskHandler(queue = "qqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqq"
				+ "qqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqq")
		void handle(String payload) {
		}

	}

}
