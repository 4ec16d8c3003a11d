package dev.taskqueue.internal.handler;

import dev.taskqueue.TaskContext;
import dev.taskqueue.TaskHandler;
import dev.taskqueue.internal.support.StartupFailure;
import org.junit.jupiter.api.Test;

import org.springframework.beans.factory.BeanCreationException;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.autoconfigure.context.PropertyPlaceholderAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

/**
 * Handlers that stop the application, and the messages that say which bean and method to fix.
 */
class TaskHandlerValidationTests {

	private final ApplicationContextRunner runner = new ApplicationContextRunner()
		.withBean(TaskHandlerAnnotationBeanPostProcessor.class);

	@Test
	void unresolvablePlaceholderFailsNamingBeanAndMethod() {
		this.runner.withConfiguration(AutoConfigurations.of(PropertyPlaceholderAutoConfiguration.class))
			.withBean("placeholder", TaskHandlerAnnotationBeanPostProcessorTests.PlaceholderHandler.class)
			.run((context) -> assertThat(context).getFailure()
				.rootCause()
				.hasMessage("@TaskHandler on bean 'placeholder' method PlaceholderHandler.handle(Map) names queue "
						+ "'${app.queue}', which cannot be resolved: Could not resolve placeholder 'app.queue' "
						+ "in value \"${app.queue}\""));
	}

	@Test
	void twoHandlersOnOneQueueFailNamingBoth() {
		this.runner.withBean("first", EmailHandler.class)
			.withBean("second", OtherEmailHandler.class)
			.run((context) -> assertThat(context).getFailure()
				.rootCause()
				.isInstanceOf(IllegalStateException.class)
				.hasMessage("Queue 'emails' has two @TaskHandler methods: bean 'first' method "
						+ "EmailHandler.send(String) and bean 'second' method OtherEmailHandler.deliver(String); "
						+ "a queue has exactly one handler"));
	}

	@Test
	void aHandlerBeanCreatedAfterStartupIsToldToBeASingleton() {
		this.runner
			.withBean("late", EmailHandler.class, EmailHandler::new, (definition) -> definition.setScope("prototype"))
			.run((context) -> assertThatExceptionOfType(BeanCreationException.class)
				.isThrownBy(() -> context.getBean("late"))
				.havingCause()
				.isInstanceOfSatisfying(StartupFailure.class, (failure) -> assertThat(failure.action())
					.isEqualTo("Make the bean a singleton created at startup: handlers are found only then.")));
	}

	@Test
	void handlerWithoutParametersFails() {
		assertFails(NoParameters.class, "NoParameters.handle() has a bad signature; a handler takes (P payload) or "
				+ "(P payload, TaskContext context)");
	}

	@Test
	void handlerWithThreeParametersFails() {
		assertFails(ThreeParameters.class, "ThreeParameters.handle(String, TaskContext, String) has a bad signature; "
				+ "a handler takes (P payload) or (P payload, TaskContext context)");
	}

	@Test
	void handlerWhoseSecondParameterIsNotTheContextFails() {
		assertFails(SecondNotContext.class, "SecondNotContext.handle(String, String) has a bad signature; a handler "
				+ "takes (P payload) or (P payload, TaskContext context)");
	}

	@Test
	void handlerTakingTheContextFirstFails() {
		assertFails(ContextFirst.class, "ContextFirst.handle(TaskContext) has a bad signature; a handler takes "
				+ "(P payload) or (P payload, TaskContext context)");
	}

	@Test
	void privateHandlerFails() {
		assertFails(PrivateHandler.class,
				"PrivateHandler.handle(String) is private; make it public or package-private");
	}

	@Test
	void staticHandlerFails() {
		assertFails(StaticHandler.class,
				"StaticHandler.handle(String) is static; a handler is an instance method of a bean");
	}

	@Test
	void queueNameWithASpaceFails() {
		assertFails(SpaceInQueue.class, "SpaceInQueue.handle(String) names an invalid queue: 'bad queue'; a queue name "
				+ "is 1 to 100 letters, digits, '.', '_', '-' or ':'");
	}

	@Test
	void queueNameOf101CharactersFails() {
		assertFails(LongQueue.class, "LongQueue.handle(String) names an invalid queue: '" + "q".repeat(101)
				+ "'; a queue name is 1 to 100 letters, digits, '.', '_', '-' or ':'");
	}

	@Test
	void negativeConcurrencyFails() {
		assertFails(NegativeConcurrency.class,
				"NegativeConcurrency.handle(String) sets a negative concurrency or maxAttempts");
	}

	@Test
	void handlerWithAnInvalidTopicFails() {
		assertFails(BadTopic.class, "BadTopic.handle(String) names an invalid topic: 'order placed'; a topic name is "
				+ "1 to 100 letters, digits, '.', '_', '-' or ':'");
	}

	@Test
	void topicsAreResolvedAndKept() {
		this.runner.withConfiguration(AutoConfigurations.of(PropertyPlaceholderAutoConfiguration.class))
			.withPropertyValues("app.topic=order-placed")
			.withBean("topics", Topics.class)
			.run((context) -> assertThat(
					context.getBean(TaskHandlerAnnotationBeanPostProcessor.class).getRegistry().get("billing").topics())
				.containsExactlyInAnyOrder("order-placed", "invoice-due"));
	}

	private void assertFails(Class<?> handlerClass, String method) {
		String beanName = "bad" + handlerClass.getSimpleName();
		this.runner.withBean(beanName, handlerClass)
			.run((context) -> assertThat(context).getFailure()
				.rootCause()
				.isInstanceOf(IllegalArgumentException.class)
				.hasMessage("@TaskHandler on bean '" + beanName + "' method " + method));
	}

	static class EmailHandler {

		@TaskHandler(queue = "emails")
		void send(String payload) {
		}

	}

	static class OtherEmailHandler {

		@TaskHandler(queue = "emails")
		void deliver(String payload) {
		}

	}

	static class NoParameters {

		@TaskHandler(queue = "q")
		void handle() {
		}

	}

	static class ThreeParameters {

		@TaskHandler(queue = "q")
		void handle(String payload, TaskContext context, String extra) {
		}

	}

	static class SecondNotContext {

		@TaskHandler(queue = "q")
		void handle(String payload, String extra) {
		}

	}

	static class ContextFirst {

		@TaskHandler(queue = "q")
		void handle(TaskContext context) {
		}

	}

	static class PrivateHandler {

		@TaskHandler(queue = "q")
		private void handle(String payload) {
		}

	}

	static class StaticHandler {

		@TaskHandler(queue = "q")
		static void handle(String payload) {
		}

	}

	static class SpaceInQueue {

		@TaskHandler(queue = "bad queue")
		void handle(String payload) {
		}

	}

	static class NegativeConcurrency {

		@TaskHandler(queue = "q", concurrency = -1)
		void handle(String payload) {
		}

	}

	static class LongQueue {

		@TaskHandler(queue = "qqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqq"
				+ "qqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqq")
		void handle(String payload) {
		}

	}

	static class BadTopic {

		@TaskHandler(queue = "q", topics = "order placed")
		void handle(String payload) {
		}

	}

	static class Topics {

		@TaskHandler(queue = "billing", topics = { "${app.topic}", "invoice-due" })
		void handle(String payload) {
		}

	}

}
