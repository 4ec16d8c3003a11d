package dev.taskqueue.internal.dashboard;

import java.util.ArrayList;
import java.util.List;

import dev.taskqueue.internal.dashboard.QueueMinuteRepository.MinuteCount;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The rule that calls a queue falling behind, and how the bars of a span are named.
 */
class TrendsTests {

	@Test
	void aQueueFallsBehindWhenItHasMoreReadyAndAnOlderOldestThanTenMinutesBefore() {
		assertThat(hour(sample(12, 10, 30), sample(0, 11, 90)).fallingBehind()).isTrue();
		// More ready, but the oldest has waited less than a minute: a burst, not a backlog.
		assertThat(hour(sample(12, 10, 5), sample(0, 11, 59)).fallingBehind()).isFalse();
		// Fewer ready: it drains, even if its oldest waits longer.
		assertThat(hour(sample(12, 10, 30), sample(0, 9, 600)).fallingBehind()).isFalse();
		// As many ready: it keeps up with a steady backlog.
		assertThat(hour(sample(12, 10, 30), sample(0, 10, 600)).fallingBehind()).isFalse();
		// The oldest waits less long: new tasks, the old ones done.
		assertThat(hour(sample(12, 10, 300), sample(0, 20, 90)).fallingBehind()).isFalse();
	}

	@Test
	void itTakesTheLatestSampleOfTheLastThreeMinutesAndOneAtLeastTenMinutesBeforeIt() {
		// The latest sample may be two minutes old (the current minute not sampled yet) ...
		assertThat(hour(sample(12, 10, 30), sample(2, 11, 90)).fallingBehind()).isTrue();
		// ... but not three: then there is no recent figure to judge by.
		assertThat(hour(sample(13, 10, 30), sample(3, 11, 90)).fallingBehind()).isFalse();
		// Nine minutes apart is not enough; the sample before it, twelve minutes back, is taken instead.
		assertThat(hour(sample(9, 10, 30), sample(0, 11, 90)).fallingBehind()).isFalse();
		assertThat(hour(sample(12, 20, 30), sample(9, 10, 30), sample(0, 11, 90)).fallingBehind()).isFalse();
		assertThat(hour(sample(12, 10, 30), sample(9, 20, 30), sample(0, 11, 90)).fallingBehind()).isTrue();
		// No sample at all, or only one.
		assertThat(hour().fallingBehind()).isFalse();
		assertThat(hour(sample(0, 11, 90)).fallingBehind()).isFalse();
		// Counts without samples are no samples.
		assertThat(hour(new MinuteCount("q", 12, 5, 0), sample(0, 11, 90)).fallingBehind()).isFalse();
	}

	@Test
	void aDaySumsAttemptsPerQuarterHourAndKeepsTheHighestSample() {
		List<MinuteCount> minutes = new ArrayList<>();
		for (int ago = 0; ago < 30; ago++) {
			minutes.add(new MinuteCount("q", ago, 2, 1, (long) ago, 100L - ago));
		}
		Trends.Series day = Trends.of(Trends.DAY, minutes);
		assertThat(day.completed).hasSize(96).endsWith(30, 30);
		assertThat(day.failed[95]).isEqualTo(15);
		assertThat(day.ready).endsWith(29, 14);
		assertThat(day.oldestSeconds).endsWith(85, 100);
		assertThat(day.ready[93]).isEqualTo(-1);
		assertThat(day.completed[93]).isZero();
	}

	@Test
	void barsAreNamedByTheMinutesTheyStandFor() {
		assertThat(Sparkline.when(0, 1)).isEqualTo("this minute");
		assertThat(Sparkline.when(7, 1)).isEqualTo("7 min ago");
		assertThat(Sparkline.when(0, 15)).isEqualTo("the last 15 min");
		assertThat(Sparkline.when(2, 15)).isEqualTo("45 min to 30 min ago");
		assertThat(Sparkline.when(95, 15)).isEqualTo("24h to 23h 45m ago");
	}

	private static Trends.Series hour(MinuteCount... minutes) {
		return Trends.of(Trends.HOUR, List.of(minutes));
	}

	private static MinuteCount sample(int minutesAgo, long ready, long oldestSeconds) {
		return new MinuteCount("q", minutesAgo, 0, 0, ready, oldestSeconds);
	}

}
