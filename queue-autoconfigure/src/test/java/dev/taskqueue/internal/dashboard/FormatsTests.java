package dev.taskqueue.internal.dashboard;

import java.time.Duration;
import java.time.Instant;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/** Times as people read them, counted from a given now: no clock is read here. */
class FormatsTests {

	private static final Instant NOW = Instant.parse("2026-11-27T12:00:00.400Z");

	@Test
	void relativeTimesUseTheirLargestWholeUnitBeforeAndAfterNow() {
		assertThat(Formats.relative(NOW, NOW)).isEqualTo("just now");
		assertThat(Formats.relative(NOW.minusMillis(900), NOW)).isEqualTo("just now");
		assertThat(Formats.relative(NOW.minusSeconds(45), NOW)).isEqualTo("45 s ago");
		assertThat(Formats.relative(NOW.minus(Duration.ofMinutes(3).plusSeconds(59)), NOW)).isEqualTo("3 min ago");
		assertThat(Formats.relative(NOW.minus(Duration.ofHours(2).plusMinutes(5)), NOW)).isEqualTo("2 h ago");
		assertThat(Formats.relative(NOW.minus(Duration.ofDays(3)), NOW)).isEqualTo("3 d ago");
		assertThat(Formats.relative(NOW.plusSeconds(5), NOW)).isEqualTo("in 5 s");
		assertThat(Formats.relative(NOW.plus(Duration.ofMinutes(10)), NOW)).isEqualTo("in 10 min");
		assertThat(Formats.relative(NOW.plus(Duration.ofHours(30)), NOW)).isEqualTo("in 1 d");
	}

	@Test
	void aTimeElementCarriesTheExactUtcTimeForMachinesAndOnHover() {
		assertThat(Formats.when(NOW.minusSeconds(180), NOW).toString()).isEqualTo(
				"<time datetime=\"2026-11-27T11:57:00Z\" title=\"2026-11-27 11:57:00Z\">3 min ago</time>");
		assertThat(Formats.when(null, NOW)).isSameAs(Html.EMPTY);
	}

	@Test
	void oneTaskIsATask() {
		assertThat(Formats.tasks(1, "dead")).isEqualTo("1 dead task");
		assertThat(Formats.tasks(2500, "waiting")).isEqualTo("2,500 waiting tasks");
		assertThat(Formats.tasks(0, "dead")).isEqualTo("0 dead tasks");
		assertThat(Formats.matching(1, 10_000, "waiting")).isEqualTo("the 1 waiting task that matches");
		assertThat(Formats.matching(12_000, 10_000, "dead")).isEqualTo("the 10,000+ dead tasks that match");
	}

}
