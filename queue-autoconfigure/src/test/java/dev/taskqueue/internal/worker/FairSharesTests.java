package dev.taskqueue.internal.worker;

import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;

import dev.taskqueue.internal.jdbc.ClaimResult;
import dev.taskqueue.internal.jdbc.ClaimedTask;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/** When the claim loop switches a queue to the fair claim and back (docs/fairness.md). */
class FairSharesTests {

	private static final long SECOND = FairShares.PROBE_INTERVAL.toNanos();

	private final FairShares fairness = new FairShares();

	@Test
	void aQueueProbesOnceASecondWhileItsClaimsArePlain() {
		assertThat(this.fairness.mayProbe(0)).isTrue();
		this.fairness.probed(false, 0);
		assertThat(this.fairness.after()).isNull();
		assertThat(this.fairness.mayProbe(SECOND - 1)).isFalse();
		assertThat(this.fairness.mayProbe(SECOND)).isTrue();
	}

	@Test
	void keyedTasksMakeItsClaimsFairFromTheFirstKey() {
		this.fairness.probed(true, 0);
		assertThat(this.fairness.after()).isEmpty();
		assertThat(this.fairness.mayProbe(10 * SECOND)).as("no probe while fair").isFalse();
		this.fairness.claimed(result(List.of(task()), "tenant-7"), SECOND);
		assertThat(this.fairness.after()).isEqualTo("tenant-7");
	}

	@Test
	void aFairClaimThatFindsNoKeyGoesBackToThePlainClaim() {
		this.fairness.probed(true, 0);
		this.fairness.claimed(result(List.of(), null), SECOND);
		assertThat(this.fairness.after()).as("took nothing: nothing learnt").isEmpty();
		this.fairness.claimed(result(List.of(task()), null), 2 * SECOND);
		assertThat(this.fairness.after()).isNull();
		assertThat(this.fairness.mayProbe(3 * SECOND - 1)).isFalse();
		assertThat(this.fairness.mayProbe(3 * SECOND)).isTrue();
	}

	private static ClaimResult result(List<ClaimedTask> claimed, String nextKey) {
		return new ClaimResult(claimed, Set.of(), List.of(), Map.of(), nextKey);
	}

	private static ClaimedTask task() {
		Instant now = Instant.now();
		return new ClaimedTask(UUID.randomUUID(), "q", "{}", 0, 1, now, now, now, UUID.randomUUID(), null);
	}

}
