package dev.taskqueue.internal.handler;

import java.lang.reflect.Method;
import java.util.List;
import java.util.UUID;

import dev.taskqueue.TaskContext;
import dev.taskqueue.TaskHandler;
import org.junit.jupiter.api.Test;

import org.springframework.aot.generate.ClassNameGenerator;
import org.springframework.aot.generate.DefaultGenerationContext;
import org.springframework.aot.generate.InMemoryGeneratedFiles;
import org.springframework.aot.hint.MemberCategory;
import org.springframework.aot.hint.RuntimeHints;
import org.springframework.aot.hint.predicate.RuntimeHintsPredicates;
import org.springframework.beans.factory.aot.BeanRegistrationAotContribution;
import org.springframework.beans.factory.support.DefaultListableBeanFactory;
import org.springframework.beans.factory.support.RegisteredBean;
import org.springframework.beans.factory.support.RootBeanDefinition;
import org.springframework.context.aot.ApplicationContextAotGenerator;
import org.springframework.context.support.GenericApplicationContext;
import org.springframework.javapoet.ClassName;
import org.springframework.util.ReflectionUtils;

import static org.assertj.core.api.Assertions.assertThat;
import static org.mockito.Mockito.mock;

/**
 * The hints a native image needs to run {@code @TaskHandler} methods: the methods and their payload types.
 */
class TaskHandlerBeanRegistrationAotProcessorTests {

	private final DefaultGenerationContext generationContext = new DefaultGenerationContext(
			new ClassNameGenerator(ClassName.get(TaskHandlerBeanRegistrationAotProcessorTests.class)),
			new InMemoryGeneratedFiles());

	@Test
	void registersThePayloadTypeForJacksonAndTheMethodForInvocation() {
		RuntimeHints hints = process(EmailHandlers.class);
		assertThat(RuntimeHintsPredicates.reflection()
			.onType(WelcomeEmail.class)
			.withMemberCategory(MemberCategory.INVOKE_DECLARED_CONSTRUCTORS)).accepts(hints);
		assertThat(RuntimeHintsPredicates.reflection().onMethodInvocation(WelcomeEmail.class, "address"))
			.accepts(hints);
		assertThat(RuntimeHintsPredicates.reflection().onMethodInvocation(method(EmailHandlers.class, "send")))
			.accepts(hints);
	}

	@Test
	void registersTypesNestedInThePayloadAndItsTypeArguments() {
		RuntimeHints hints = process(EmailHandlers.class);
		assertThat(RuntimeHintsPredicates.reflection().onType(Address.class)).accepts(hints);
		assertThat(RuntimeHintsPredicates.reflection()
			.onType(Recipient.class)
			.withMemberCategory(MemberCategory.INVOKE_DECLARED_CONSTRUCTORS)).accepts(hints);
		assertThat(RuntimeHintsPredicates.reflection().onMethodInvocation(method(EmailHandlers.class, "sendAll")))
			.accepts(hints);
	}

	@Test
	void registersTheInterfaceMethodCalledOnAJdkProxy() {
		RuntimeHints hints = process(ProxiedHandler.class);
		assertThat(RuntimeHintsPredicates.reflection().onMethodInvocation(method(Handles.class, "handle")))
			.accepts(hints);
		assertThat(RuntimeHintsPredicates.reflection().onMethodInvocation(method(ProxiedHandler.class, "handle")))
			.accepts(hints);
	}

	@Test
	void contributesNothingForABeanWithoutHandlers() {
		assertThat(contribution(String.class)).isNull();
	}

	@Test
	void isAppliedByAheadOfTimeProcessing() {
		try (GenericApplicationContext context = new GenericApplicationContext()) {
			context.registerBean("emailHandlers", EmailHandlers.class);
			new ApplicationContextAotGenerator().processAheadOfTime(context, this.generationContext);
		}
		RuntimeHints hints = this.generationContext.getRuntimeHints();
		assertThat(RuntimeHintsPredicates.reflection().onType(WelcomeEmail.class)).accepts(hints);
		assertThat(RuntimeHintsPredicates.reflection().onMethodInvocation(method(EmailHandlers.class, "send")))
			.accepts(hints);
	}

	private RuntimeHints process(Class<?> beanClass) {
		BeanRegistrationAotContribution contribution = contribution(beanClass);
		assertThat(contribution).isNotNull();
		contribution.applyTo(this.generationContext, mock());
		return this.generationContext.getRuntimeHints();
	}

	private static BeanRegistrationAotContribution contribution(Class<?> beanClass) {
		DefaultListableBeanFactory beanFactory = new DefaultListableBeanFactory();
		beanFactory.registerBeanDefinition("bean", new RootBeanDefinition(beanClass));
		return new TaskHandlerBeanRegistrationAotProcessor()
			.processAheadOfTime(RegisteredBean.of(beanFactory, "bean"));
	}

	private static Method method(Class<?> type, String name) {
		return ReflectionUtils.findMethod(type, name, (Class<?>[]) null);
	}

	record Address(String value) {
	}

	record WelcomeEmail(UUID signupId, Address address) {
	}

	record Recipient(String name) {
	}

	static class EmailHandlers {

		@TaskHandler(queue = "welcome")
		void send(WelcomeEmail email, TaskContext context) {
		}

		@TaskHandler(queue = "bulk")
		public void sendAll(List<Recipient> recipients) {
		}

	}

	interface Handles {

		void handle(String payload);

	}

	static class ProxiedHandler implements Handles {

		@Override
		@TaskHandler(queue = "proxied")
		public void handle(String payload) {
		}

	}

}
