package dev.taskqueue.autoconfigure;

import java.io.IOException;
import java.util.Arrays;
import java.util.List;

import org.junit.jupiter.api.Test;

import org.springframework.aot.hint.MemberCategory;
import org.springframework.aot.hint.RuntimeHints;
import org.springframework.aot.hint.RuntimeHintsRegistrar;
import org.springframework.aot.hint.TypeReference;
import org.springframework.aot.hint.predicate.RuntimeHintsPredicates;
import org.springframework.beans.factory.aot.AotServices;
import org.springframework.core.io.Resource;
import org.springframework.core.io.support.PathMatchingResourcePatternResolver;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * What TaskQueue reads by reflection or from the class path is registered for native images.
 */
class TaskQueueRuntimeHintsTests {

	private final RuntimeHints hints = new RuntimeHints();

	TaskQueueRuntimeHintsTests() {
		new TaskQueueRuntimeHints().registerHints(this.hints, getClass().getClassLoader());
	}

	@Test
	void isRegisteredInAotFactories() {
		assertThat(AotServices.factories().load(RuntimeHintsRegistrar.class))
			.anyMatch(TaskQueueRuntimeHints.class::isInstance);
	}

	@Test
	void registersEveryMigration() throws IOException {
		for (MigrationLocations database : MigrationLocations.values()) {
			for (String location : database.locations()) {
				String path = location.substring("classpath:".length());
				Resource[] migrations = new PathMatchingResourcePatternResolver().getResources(location + "/**/*.sql");
				assertThat(migrations).as(location).isNotEmpty();
				assertThat(Arrays.stream(migrations)).allSatisfy((migration) -> {
					String url = migration.getURL().toString();
					assertThat(RuntimeHintsPredicates.resource().forResource(url.substring(url.indexOf(path + "/"))))
						.accepts(this.hints);
				});
			}
		}
	}

	@Test
	void registersTheRowTypeMappedByReflection() {
		assertThat(RuntimeHintsPredicates.reflection()
			.onType(TypeReference.of(TaskQueueRuntimeHints.SCHEMA_COUNTS))
			.withMemberCategory(MemberCategory.INVOKE_DECLARED_CONSTRUCTORS)).accepts(this.hints);
	}

	@Test
	void registersThePropertiesGroupsForTheUnknownPropertyCheck() {
		assertThat(List.of(TaskQueueProperties.class, WorkerProperties.class, RetryProperties.class,
				RetryProperties.Backoff.class, QueueProperties.class, RateLimitProperties.class,
				SerializationRetryProperties.class, ScheduleProperties.class, DashboardProperties.class,
				HealthProperties.class, BloatProperties.class, TaskQueueProperties.Retention.class))
			.allSatisfy((group) -> assertThat(RuntimeHintsPredicates.reflection()
				.onType(group)
				.withMemberCategory(MemberCategory.INVOKE_PUBLIC_METHODS)).accepts(this.hints));
		assertThat(RuntimeHintsPredicates.reflection().onMethodInvocation(TaskQueueProperties.class, "getWorker"))
			.accepts(this.hints);
	}

}
