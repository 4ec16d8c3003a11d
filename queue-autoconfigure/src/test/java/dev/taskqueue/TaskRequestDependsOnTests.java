package dev.taskqueue;

import java.time.Duration;
import java.time.Instant;
import java.util.Arrays;
import java.util.List;
import java.util.UUID;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

/**
 * The prerequisites of a {@link TaskRequest}: checked when they are given, before any SQL, kept by every
 * {@code with…} method, none of which changes the request it is called on, and not combined with a unique or an
 * ordering key.
 */
class TaskRequestDependsOnTests {

	private static final UUID A = UUID.fromString("00000000-0000-7000-8000-00000000000a");

	private static final UUID B = UUID.fromString("00000000-0000-7000-8000-00000000000b");

	private final TaskRequest request = TaskRequest.of("reports", "payload");

	@Test
	void noneByDefaultAndTheFailurePolicyIsDead() {
		assertThat(this.request.dependsOn()).isEmpty();
		assertThat(this.request.dependencyFailure()).isEqualTo(DependencyFailure.DEAD);
		assertThat(this.request.toString()).doesNotContain("dependsOn");
	}

	@Test
	void idsAreKeptInTheOrderGivenWithoutRepeatsFromAnArrayOrACollection() {
		assertThat(this.request.withDependsOn(B, A, B).dependsOn()).containsExactly(B, A);
		assertThat(this.request.withDependsOn(List.of(A, B, A)).dependsOn()).containsExactly(A, B);
		assertThat(this.request.withDependsOn(A).withDependsOn(B).dependsOn()).containsExactly(B);
	}

	@Test
	void nullEmptyOrANullIdIsRejected() {
		assertThatIllegalArgumentException().isThrownBy(() -> this.request.withDependsOn((UUID[]) null))
			.withMessage("dependsOn must not be null (queue 'reports')");
		assertThatIllegalArgumentException().isThrownBy(() -> this.request.withDependsOn())
			.withMessage("dependsOn must name at least one task (queue 'reports')");
		assertThatIllegalArgumentException().isThrownBy(() -> this.request.withDependsOn((List<UUID>) null))
			.withMessage("dependsOn must name at least one task (queue 'reports')");
		assertThatIllegalArgumentException().isThrownBy(() -> this.request.withDependsOn(Arrays.asList(A, null)))
			.withMessage("dependsOn must not hold null (queue 'reports')");
		assertThatIllegalArgumentException().isThrownBy(() -> this.request.withDependencyFailure(null))
			.withMessage("dependency failure must not be null (queue 'reports')");
	}

	@Test
	void prerequisitesAreNotCombinedWithAUniqueOrAnOrderingKey() {
		String message = "a request with prerequisites (dependsOn) cannot have a unique key, an ordering key or a "
				+ "fairness key (queue 'reports')";
		assertThatIllegalArgumentException().isThrownBy(() -> this.request.withUniqueKey("u").withDependsOn(A))
			.withMessage(message);
		assertThatIllegalArgumentException().isThrownBy(() -> this.request.withOrderingKey("o").withDependsOn(A))
			.withMessage(message);
		assertThatIllegalArgumentException().isThrownBy(() -> this.request.withDependsOn(A).withUniqueKey("u"))
			.withMessage(message);
		assertThatIllegalArgumentException()
			.isThrownBy(() -> this.request.withDependsOn(A).withUniqueKey("u", UniqueMode.REPLACE))
			.withMessage(message);
		assertThatIllegalArgumentException().isThrownBy(() -> this.request.withDependsOn(A).withOrderingKey("o"))
			.withMessage(message);
	}

	@Test
	void thePrerequisitesAndThePolicyAreKeptByEveryWithMethodAndTheOriginalIsUnchanged() {
		TaskRequest dependent = this.request.withDependsOn(A, B).withDependencyFailure(DependencyFailure.RUN_ANYWAY);
		TaskRequest changed = dependent.withPriority(3).withDelay(Duration.ofSeconds(1)).withRunAt(Instant.EPOCH);
		assertThat(this.request.dependsOn()).isEmpty();
		assertThat(this.request.dependencyFailure()).isEqualTo(DependencyFailure.DEAD);
		assertThat(changed.dependsOn()).containsExactly(A, B);
		assertThat(changed.dependencyFailure()).isEqualTo(DependencyFailure.RUN_ANYWAY);
		assertThat(changed.withDependsOn(B).dependencyFailure()).isEqualTo(DependencyFailure.RUN_ANYWAY);
		assertThat(dependent.toString()).contains("dependsOn=[" + A + ", " + B + "], dependencyFailure=RUN_ANYWAY");
	}

}
