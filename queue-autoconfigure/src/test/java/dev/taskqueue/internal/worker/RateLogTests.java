package dev.taskqueue.internal.worker;

import java.util.ArrayList;
import java.util.List;
import java.util.Random;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

/**
 * The sliding log on its own: what it counts, what it prunes and joins, how large it gets, and that claims which
 * keep to its count never put more than the limit in any interval of the period's length.
 */
class RateLogTests {

	private static final long PERIOD = 1_000_000;

	@Test
	void countsTheStartsAfterATimeAndNamesTheOldest() {
		RateLog log = RateLog.of(null, null).add(100, 2, PERIOD).add(500_000, 3, PERIOD);
		assertThat(log.startsAfter(99)).isEqualTo(5);
		assertThat(log.startsAfter(100)).as("the time itself is excluded").isEqualTo(3);
		assertThat(log.oldestAfter(100)).isEqualTo(500_000);
		assertThat(log.oldestAfter(500_000)).isNull();
		assertThat(log.latest()).isEqualTo(500_000);
	}

	@Test
	void joinsClaimsOfOneGrainAtTheLaterTimeAndPrunesWhatLeftThePeriod() {
		RateLog log = RateLog.of(null, null).add(10_000, 1, PERIOD).add(19_999, 2, PERIOD);
		assertThat(log.micros()).containsExactly(19_999L);
		assertThat(log.starts()).containsExactly(3L);
		log = log.add(20_000, 1, PERIOD);
		assertThat(log.micros()).as("the next grain").containsExactly(19_999L, 20_000L);
		log = log.add(1_019_999, 4, PERIOD);
		assertThat(log.micros()).as("19,999 is a period before").containsExactly(20_000L, 1_019_999L);
		assertThat(log.starts()).containsExactly(1L, 4L);
	}

	@Test
	void refusesAClaimOlderThanTheLog() {
		RateLog log = RateLog.of(new Long[] { 500L }, new Long[] { 1L });
		assertThatIllegalArgumentException().isThrownBy(() -> log.add(499, 1, PERIOD));
	}

	@Test
	void holdsAtMostAHundredAndOnePairsWhateverTheLimit() {
		RateLog log = RateLog.of(null, null);
		int most = 0;
		for (long t = 0; t < 3 * PERIOD; t += 100) { // a claim of one task every 100 µs: 10,000 per period
			log = log.add(t, 1, PERIOD);
			most = Math.max(most, log.micros().length);
		}
		assertThat(most).isEqualTo(101);
		assertThat(log.startsAfter(3 * PERIOD - 100 - PERIOD)).as("every start of the last period counted")
			.isEqualTo(10_000);
	}

	/**
	 * Claims at random times and of random sizes, each taking what the log allows: every interval
	 * {@code [s, s + period)} beginning at a start holds at most the limit, and the limit is reached.
	 */
	@Test
	void claimsThatKeepToTheCountNeverPutMoreThanTheLimitInAnyInterval() {
		Random random = new Random(29);
		int limit = 10;
		RateLog log = RateLog.of(null, null);
		List<Long> starts = new ArrayList<>();
		long now = 0;
		for (int claim = 0; claim < 20_000; claim++) {
			now += random.nextInt(30_000);
			long allowed = Math.max(0, limit - log.startsAfter(now - PERIOD));
			long wanted = 1 + random.nextInt(4);
			long taken = Math.min(allowed, wanted);
			if (taken > 0) {
				log = log.add(now, taken, PERIOD);
				for (int i = 0; i < taken; i++) {
					starts.add(now);
				}
			}
		}
		int worst = 0;
		for (int first = 0, last = 0; first < starts.size(); first++) {
			while (last < starts.size() && starts.get(last) < starts.get(first) + PERIOD) {
				last++;
			}
			worst = Math.max(worst, last - first);
		}
		assertThat(worst).isEqualTo(limit);
	}

}
