package dev.taskqueue.internal.worker;

import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;

import dev.taskqueue.internal.worker.ClaimResult.FairTenants;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/** When the claim loop switches a queue to the fair claim and back (docs/fairness.md). */
class FairSharesTests {

	private static final long SECOND = FairShares.PROBE_INTERVAL.toNanos();

	private static final long WATCH = FairShares.WATCH_INTERVAL.toNanos();

	private final FairShares fairness = new FairShares();

	@Test
	void aQueueProbesOnceASecondWhileItsClaimsArePlain() {
		assertThat(this.fairness.mayProbe(0)).isTrue();
		this.fairness.probed(new FairTenants(0, null), 0);
		assertThat(this.fairness.after()).isNull();
		assertThat(this.fairness.mayWatch(WATCH)).as("no key to watch").isFalse();
		assertThat(this.fairness.mayProbe(SECOND - 1)).isFalse();
		assertThat(this.fairness.mayProbe(SECOND)).isTrue();
	}

	@Test
	void twoTenantsMakeItsClaimsFairFromTheFirstKey() {
		this.fairness.probed(new FairTenants(2, null), 0);
		assertThat(this.fairness.after()).isEmpty();
		assertThat(this.fairness.mayProbe(SECOND - 1)).isFalse();
		this.fairness.claimed(result(List.of(task()), "tenant-7", 2, null), SECOND / 2);
		assertThat(this.fairness.after()).isEqualTo("tenant-7");
		assertThat(this.fairness.mayProbe(2 * SECOND)).as("no probe while fair").isFalse();
	}

	@Test
	void oneKeyIsClaimedInTheQueuesOrderWatchedForAnother() {
		this.fairness.probed(new FairTenants(1, "big"), 0);
		assertThat(this.fairness.after()).isNull();
		assertThat(this.fairness.soleKey()).isEqualTo("big");
		assertThat(this.fairness.mayWatch(0)).isTrue();
		this.fairness.watched(0);
		assertThat(this.fairness.watchOwedIn(1)).as("nothing owed").isEqualTo(-1);
		assertThat(this.fairness.mayWatch(WATCH - 1)).isFalse();
		assertThat(this.fairness.watchOwedIn(WATCH - 1)).as("the round that skipped it owes it").isOne();
		assertThat(this.fairness.mayWatch(WATCH)).isTrue();
		this.fairness.watched(WATCH);
		assertThat(this.fairness.watchOwedIn(WATCH + 1)).isEqualTo(-1);
		this.fairness.turnTaken("small-1", false, WATCH + 1);
		assertThat(this.fairness.watchOwedIn(WATCH + 1)).as("took nothing: not at once").isEqualTo(-1);
		this.fairness.turnTaken("small-2", true, WATCH + 1);
		assertThat(this.fairness.watchOwedIn(WATCH + 1)).as("took some: the next at once").isZero();
		assertThat(this.fairness.roundStart()).isEqualTo("small-2");
		this.fairness.watched(0);
		this.fairness.turnTaken("small-3", true, WATCH);
		this.fairness.claimed(result(List.of(task()), null, 1, null), WATCH);
		assertThat(this.fairness.after()).as("the claims stay plain").isNull();
		assertThat(this.fairness.soleKey()).isEqualTo("big");
		assertThat(this.fairness.roundStart()).isEqualTo("small-3");
		assertThat(this.fairness.mayProbe(2 * SECOND)).as("no probe with one key").isFalse();
		this.fairness.found(null, SECOND / 2);
		this.fairness.found("small-4", SECOND);
		assertThat(this.fairness.after()).as("an ask found no other key within the second").isNull();
		this.fairness.found("small-4", 3 * SECOND / 2);
		assertThat(this.fairness.after()).as("every ask for a second found one: fair where the round stopped")
			.isEqualTo("small-3");
		assertThat(this.fairness.soleKey()).isNull();
		assertThat(this.fairness.mayWatch(3 * SECOND)).as("not while fair").isFalse();
	}

	@Test
	void aFairClaimThatFindsOneTenantGoesBackToThePlainClaim() {
		this.fairness.probed(new FairTenants(2, null), 0);
		this.fairness.claimed(result(List.of(), null, -1, null), SECOND / 4);
		assertThat(this.fairness.after()).as("took nothing: nothing learnt").isEmpty();
		this.fairness.claimed(result(List.of(task()), "big", 1, "big"), SECOND / 2);
		assertThat(this.fairness.after()).isNull();
		assertThat(this.fairness.soleKey()).isEqualTo("big");
		this.fairness.claimed(result(List.of(task()), null, 1, null), SECOND / 2);
		assertThat(this.fairness.soleKey()).as("not fair: a plain claim changes nothing").isEqualTo("big");
		this.fairness.found("small", 3 * SECOND / 2);
		assertThat(this.fairness.after()).as("another key at every ask for a second").isEqualTo("big");
		this.fairness.claimed(result(List.of(task()), null, 1, null), 2 * SECOND + 1);
		assertThat(this.fairness.after()).as("only tasks without a key").isNull();
		assertThat(this.fairness.soleKey()).isNull();
	}

	@Test
	void theListeningThreadClaimsBesideTheOneKeyOnlyAndItsClaimsCountAsAsksThatFoundAKey() {
		assertThat(this.fairness.claimedInOrder()).as("plain: the claim loop's").isNull();
		this.fairness.probed(new FairTenants(1, "big"), 0);
		assertThat(this.fairness.claimedInOrder()).isEqualTo("big");
		this.fairness.found(null, WATCH);
		this.fairness.notifiedClaimed();
		this.fairness.found(null, SECOND / 2);
		this.fairness.notifiedClaimed();
		this.fairness.found(null, SECOND);
		assertThat(this.fairness.after()).as("the ask at WATCH found none within the second").isNull();
		this.fairness.found(null, SECOND + WATCH);
		assertThat(this.fairness.after()).as("nothing claimed since the last ask").isNull();
		this.fairness.notifiedClaimed();
		this.fairness.found(null, 3 * SECOND / 2);
		this.fairness.found("small-1", 2 * SECOND);
		assertThat(this.fairness.after()).as("still within the second of the last ask that found none").isNull();
		this.fairness.notifiedClaimed();
		this.fairness.found(null, 2 * SECOND + WATCH);
		assertThat(this.fairness.after()).as("every ask for a second found a key or came after such a claim: fair")
			.isEmpty();
		assertThat(this.fairness.claimedInOrder()).as("fair: the claim loop's").isNull();
	}

	private static ClaimResult result(List<ClaimedTask> claimed, String nextKey, int tenants, String soleKey) {
		return new ClaimResult(claimed, Set.of(), List.of(), Map.of(), nextKey,
				(tenants < 0) ? null : new FairTenants(tenants, soleKey), Set.of());
	}

	private static ClaimedTask task() {
		Instant now = Instant.now();
		return new ClaimedTask(UUID.randomUUID(), "q", "{}", 0, 1, now, now, now, UUID.randomUUID(), null);
	}

}
