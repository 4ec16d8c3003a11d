package dev.taskqueue.internal.schedule;

import dev.taskqueue.RecurringTask;
import dev.taskqueue.TaskContext;
import org.junit.jupiter.api.Test;

import org.springframework.aot.generate.ClassNameGenerator;
import org.springframework.aot.generate.DefaultGenerationContext;
import org.springframework.aot.generate.InMemoryGeneratedFiles;
import org.springframework.aot.hint.RuntimeHints;
import org.springframework.aot.hint.predicate.RuntimeHintsPredicates;
import org.springframework.beans.factory.aot.BeanRegistrationAotContribution;
import org.springframework.beans.factory.support.DefaultListableBeanFactory;
import org.springframework.beans.factory.support.RegisteredBean;
import org.springframework.beans.factory.support.RootBeanDefinition;
import org.springframework.javapoet.ClassName;
import org.springframework.util.ReflectionUtils;

import static org.assertj.core.api.Assertions.assertThat;
import static org.mockito.Mockito.mock;

/** The hints a native image needs to call {@code @RecurringTask} methods. */
class RecurringTaskBeanRegistrationAotProcessorTests {

	@Test
	void registersTheMethodAndTheAdapterForInvocation() {
		DefaultGenerationContext generationContext = new DefaultGenerationContext(
				new ClassNameGenerator(ClassName.get(RecurringTaskBeanRegistrationAotProcessorTests.class)),
				new InMemoryGeneratedFiles());
		BeanRegistrationAotContribution contribution = contribution(Nightly.class);
		assertThat(contribution).isNotNull();
		contribution.applyTo(generationContext, mock());
		RuntimeHints hints = generationContext.getRuntimeHints();
		assertThat(RuntimeHintsPredicates.reflection()
			.onMethodInvocation(ReflectionUtils.findMethod(Nightly.class, "run", TaskContext.class))).accepts(hints);
		assertThat(RuntimeHintsPredicates.reflection().onMethodInvocation(RecurringMethod.RUN)).accepts(hints);
	}

	@Test
	void contributesNothingForABeanWithoutRecurringTasks() {
		assertThat(contribution(String.class)).isNull();
	}

	private static BeanRegistrationAotContribution contribution(Class<?> beanClass) {
		DefaultListableBeanFactory beanFactory = new DefaultListableBeanFactory();
		beanFactory.registerBeanDefinition("bean", new RootBeanDefinition(beanClass));
		return new RecurringTaskBeanRegistrationAotProcessor().processAheadOfTime(RegisteredBean.of(beanFactory, "bean"));
	}

	static class Nightly {

		@RecurringTask(cron = "@daily")
		void run(TaskContext context) {
		}

	}

}
