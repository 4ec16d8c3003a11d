package dev.taskqueue.internal.worker;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Which bucket a queue's claims read first (each in turn, from a random one), and that each bucket keeps a position
 * of its own.
 */
class ClaimPositionsTests {

	@Test
	void claimsVisitEveryBucketInTurn() {
		QueueState.ClaimPositions positions = new QueueState.ClaimPositions(16);
		List<Integer> visited = new ArrayList<>();
		for (int i = 0; i < 48; i++) {
			visited.add(positions.nextBucket());
		}
		int first = visited.get(0);
		for (int i = 0; i < visited.size(); i++) {
			assertThat(visited.get(i)).isEqualTo((first + i) % 16);
		}
	}

	@Test
	void claimersStartAtDifferentBuckets() {
		List<Integer> starts = new ArrayList<>();
		for (int i = 0; i < 200; i++) {
			starts.add(new QueueState.ClaimPositions(16).nextBucket());
		}
		assertThat(starts.stream().distinct().count()).as("200 claimers start at random buckets").isGreaterThan(8);
	}

	@Test
	void oneBucketIsAlwaysBucketZero() {
		QueueState.ClaimPositions positions = new QueueState.ClaimPositions(1);
		for (int i = 0; i < 5; i++) {
			assertThat(positions.nextBucket()).isZero();
		}
	}

	@Test
	void eachBucketKeepsItsOwnPositionAndTasksOfOtherBucketsMoveNone() {
		QueueState.ClaimPositions positions = new QueueState.ClaimPositions(16);
		long start = System.nanoTime();
		ClaimedTask ownFirst = task(3);
		ClaimedTask ownLast = task(3);
		ClaimedTask wrapped = task(5); // a task of bucket 5 the claim of bucket 3 wrapped around to
		positions.claimed(3, List.of(ownFirst, ownLast, wrapped), true, start, start + 1_000);
		long later = start + Duration.ofMillis(10).toNanos();
		assertThat(positions.claimFrom(3, later)).isSameAs(ownLast);
		assertThat(positions.claimFrom(5, later)).as("bucket 5 has not been claimed from its head").isNull();
		positions.claimed(5, List.of(task(5)), true, later, later + 1_000);
		positions.claimFromStart();
		assertThat(positions.claimFrom(3, later + 2_000)).as("tasks were released").isNull();
		assertThat(positions.claimFrom(5, later + 2_000)).as("in every bucket").isNull();
		assertThat(positions.claimFrom(3, later + 3_000)).as("once").isSameAs(ownLast);
	}

	@Test
	void aShortClaimGoesOnToTheOtherBucketsAlwaysWithSeveralAndOnceASecondWithOne() {
		QueueState.ClaimPositions sixteen = new QueueState.ClaimPositions(16);
		QueueState.ClaimPositions one = new QueueState.ClaimPositions(1);
		long now = System.nanoTime();
		assertThat(sixteen.wrapAround(now)).isTrue();
		assertThat(sixteen.wrapAround(now + 1)).isTrue();
		assertThat(one.wrapAround(now)).isTrue();
		assertThat(one.wrapAround(now + Duration.ofMillis(999).toNanos())).isFalse();
		assertThat(one.wrapAround(now + Duration.ofMillis(1000).toNanos())).isTrue();
		assertThat(one.wrapAround(now + Duration.ofMillis(1001).toNanos())).isFalse();
	}

	private static ClaimedTask task(int bucket) {
		return new ClaimedTask(UUID.randomUUID(), "q", "{}", 0, 1, Instant.now(), Instant.now(), Instant.now(),
				UUID.randomUUID(), null, "{}", null, bucket);
	}

}
