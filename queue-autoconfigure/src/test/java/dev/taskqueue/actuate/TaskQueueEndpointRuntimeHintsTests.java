package dev.taskqueue.actuate;

import dev.taskqueue.TaskQueueOperations.QueueStats;
import dev.taskqueue.actuate.TaskQueueDescriptors.DeadTaskLine;
import dev.taskqueue.actuate.TaskQueueDescriptors.DeadTaskList;
import dev.taskqueue.autoconfigure.TaskQueueEndpointAutoConfiguration;
import dev.taskqueue.internal.operations.OperationsBeans;
import org.junit.jupiter.api.Test;

import org.springframework.aot.hint.MemberCategory;
import org.springframework.aot.hint.RuntimeHints;
import org.springframework.aot.hint.predicate.RuntimeHintsPredicates;
import org.springframework.aot.generate.ClassNameGenerator;
import org.springframework.aot.generate.DefaultGenerationContext;
import org.springframework.aot.generate.InMemoryGeneratedFiles;
import org.springframework.boot.test.util.TestPropertyValues;
import org.springframework.context.annotation.AnnotationConfigApplicationContext;
import org.springframework.context.aot.ApplicationContextAotGenerator;
import org.springframework.javapoet.ClassName;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The endpoint's bodies, most of them behind {@code WebEndpointResponse<Object>}, are registered for Jackson.
 */
class TaskQueueEndpointRuntimeHintsTests {

	private final RuntimeHints hints = new RuntimeHints();

	TaskQueueEndpointRuntimeHintsTests() {
		new TaskQueueEndpointRuntimeHints().registerHints(this.hints, getClass().getClassLoader());
	}

	@Test
	void registersEveryBody() {
		assertThat(TaskQueueDescriptors.class.getDeclaredClasses()).hasSizeGreaterThanOrEqualTo(6)
			.allSatisfy((body) -> assertThat(RuntimeHintsPredicates.reflection()
				.onType(body)
				.withMemberCategory(MemberCategory.INVOKE_DECLARED_CONSTRUCTORS)).accepts(this.hints));
	}

	@Test
	void registersTheTypesInsideTheBodies() {
		assertThat(RuntimeHintsPredicates.reflection().onMethodInvocation(DeadTaskList.class, "tasks"))
			.accepts(this.hints);
		assertThat(RuntimeHintsPredicates.reflection().onMethodInvocation(DeadTaskLine.class, "error"))
			.accepts(this.hints);
		assertThat(RuntimeHintsPredicates.reflection().onMethodInvocation(QueueStats.class, "oldestReadyAge"))
			.accepts(this.hints);
	}

	@Test
	void areContributedWhenTheEndpointIsAvailable() {
		assertThat(RuntimeHintsPredicates.reflection().onType(DeadTaskList.class))
			.accepts(processAheadOfTime("management.endpoints.web.exposure.include=taskqueue"));
	}

	@Test
	void areNotContributedWithoutTheEndpoint() {
		assertThat(RuntimeHintsPredicates.reflection().onType(DeadTaskList.class))
			.rejects(processAheadOfTime("management.endpoints.web.exposure.include=taskqueue",
					"management.endpoint.taskqueue.access=NONE"));
	}

	private static RuntimeHints processAheadOfTime(String... properties) {
		DefaultGenerationContext generationContext = new DefaultGenerationContext(
				new ClassNameGenerator(ClassName.get(TaskQueueEndpointRuntimeHintsTests.class)),
				new InMemoryGeneratedFiles());
		try (AnnotationConfigApplicationContext context = new AnnotationConfigApplicationContext()) {
			TestPropertyValues.of(properties).applyTo(context);
			context.registerBean("operations", OperationsBeans.operationsType());
			context.register(TaskQueueEndpointAutoConfiguration.class);
			new ApplicationContextAotGenerator().processAheadOfTime(context, generationContext);
		}
		return generationContext.getRuntimeHints();
	}

}
