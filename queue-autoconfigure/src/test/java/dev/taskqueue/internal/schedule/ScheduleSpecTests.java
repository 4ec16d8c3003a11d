package dev.taskqueue.internal.schedule;

import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.util.ArrayList;
import java.util.List;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

/** The tick computation on a fixed clock: DST changes, fixed rates, and the first tick after missed ones. */
class ScheduleSpecTests {

	private static final ZoneId PARIS = ZoneId.of("Europe/Paris");

	@Test
	void dailyCronSkipsTheNonexistentHourWhenClocksGoForward() {
		// 29 March 2026: at 02:00 CET Paris goes to 03:00 CEST, so 02:30 does not exist that night.
		ScheduleSpec spec = ScheduleSpec.cron("0 30 2 * * *", PARIS);
		List<Instant> ticks = ticks(spec, Instant.parse("2026-03-27T01:30:00Z"), 3);
		assertThat(ticks).containsExactly(Instant.parse("2026-03-28T01:30:00Z"),
				Instant.parse("2026-03-30T00:30:00Z"), Instant.parse("2026-03-31T00:30:00Z"));
	}

	@Test
	void dailyCronFiresOnceInTheRepeatedHourWhenClocksGoBack() {
		// 25 October 2026: at 03:00 CEST Paris goes back to 02:00 CET, so 02:30 happens twice that night.
		ScheduleSpec spec = ScheduleSpec.cron("0 30 2 * * *", PARIS);
		List<Instant> ticks = ticks(spec, Instant.parse("2026-10-23T00:30:00Z"), 3);
		assertThat(ticks).containsExactly(Instant.parse("2026-10-24T00:30:00Z"),
				Instant.parse("2026-10-25T00:30:00Z"), Instant.parse("2026-10-26T01:30:00Z"));
	}

	@Test
	void hourlyCronHasNoTickInTheSkippedHour() {
		ScheduleSpec spec = ScheduleSpec.cron("0 30 * * * *", PARIS);
		List<Instant> ticks = ticks(spec, Instant.parse("2026-03-28T23:30:00Z"), 3);
		// 00:30 CET, then 03:30 CEST: no 02:30.
		assertThat(ticks).containsExactly(Instant.parse("2026-03-29T00:30:00Z"), Instant.parse("2026-03-29T01:30:00Z"),
				Instant.parse("2026-03-29T02:30:00Z"));
	}

	@Test
	void hourlyCronFiresOnceInTheRepeatedHour() {
		ScheduleSpec spec = ScheduleSpec.cron("0 30 * * * *", PARIS);
		List<Instant> ticks = ticks(spec, Instant.parse("2026-10-24T23:30:00Z"), 2);
		// 02:30 CEST, then 03:30 CET: the second 02:30 (CET, 01:30Z) does not fire.
		assertThat(ticks).containsExactly(Instant.parse("2026-10-25T00:30:00Z"), Instant.parse("2026-10-25T02:30:00Z"));
	}

	@Test
	void aScheduleDeclaredInTheSecondPassOfTheRepeatedHourDoesNotFireItAgain() {
		ScheduleSpec spec = ScheduleSpec.cron("0 30 2 * * *", PARIS);
		// 02:15 CET, in the second pass: today's 02:30 fired in the first pass.
		assertThat(spec.first(Instant.parse("2026-10-25T01:15:00Z"))).isEqualTo(Instant.parse("2026-10-26T01:30:00Z"));
	}

	@Test
	void cronInUtcIgnoresParisClockChanges() {
		ScheduleSpec spec = ScheduleSpec.cron("0 30 2 * * *", ZoneId.of("UTC"));
		assertThat(ticks(spec, Instant.parse("2026-03-28T02:30:00Z"), 2)).containsExactly(
				Instant.parse("2026-03-29T02:30:00Z"), Instant.parse("2026-03-30T02:30:00Z"));
	}

	@Test
	void fixedRateFollowsItsLastTick() {
		ScheduleSpec spec = ScheduleSpec.fixedRate(Duration.ofMillis(50));
		Instant due = Instant.parse("2026-01-01T00:00:00Z");
		assertThat(spec.next(due)).isEqualTo(Instant.parse("2026-01-01T00:00:00.050Z"));
		assertThat(spec.first(due)).isEqualTo(due);
	}

	@Test
	void afterMissedTicksTheNextTickIsTheFirstAfterNowAndAFixedRateKeepsItsPhase() {
		Instant due = Instant.parse("2026-01-01T00:00:00Z");
		Instant now = Instant.parse("2026-01-01T00:10:25Z");
		assertThat(ScheduleSpec.fixedRate(Duration.ofMinutes(1)).firstAfter(due, now))
			.isEqualTo(Instant.parse("2026-01-01T00:11:00Z"));
		assertThat(ScheduleSpec.fixedRate(Duration.ofMinutes(1)).firstAfter(due, Instant.parse("2026-01-01T00:11:00Z")))
			.isEqualTo(Instant.parse("2026-01-01T00:12:00Z"));
		assertThat(ScheduleSpec.cron("0 0 * * * *", PARIS).firstAfter(due, now))
			.isEqualTo(Instant.parse("2026-01-01T01:00:00Z"));
	}

	@Test
	void aCronScheduleStartsAtItsFirstTimeAfterTheDeclaration() {
		assertThat(ScheduleSpec.cron("0 0 2 * * *", PARIS).first(Instant.parse("2026-06-01T12:00:00Z")))
			.isEqualTo(Instant.parse("2026-06-02T00:00:00Z"));
	}

	@Test
	void fixedDelayWaitsForTheTask() {
		ScheduleSpec spec = ScheduleSpec.fixedDelay(Duration.ofSeconds(5));
		assertThat(spec.next(Instant.EPOCH)).isNull();
		assertThat(spec.isFixedDelay()).isTrue();
		assertThat(spec.delay()).isEqualTo(Duration.ofSeconds(5));
	}

	@Test
	void describesWhatItRunsOn() {
		assertThat(ScheduleSpec.cron("0 0 2 * * *", PARIS)).hasToString("cron 0 0 2 * * * Europe/Paris");
		assertThat(ScheduleSpec.fixedRate(Duration.ofSeconds(90))).hasToString("fixed-rate PT1M30S");
		assertThat(ScheduleSpec.fixedDelay(Duration.ofMillis(500))).hasToString("fixed-delay PT0.5S");
	}

	@Test
	void refusesCronThatNeverFiresAndEmptyDurations() {
		assertThatIllegalArgumentException().isThrownBy(() -> ScheduleSpec.cron("0 0 0 30 2 *", PARIS))
			.withMessageContaining("never fires");
		assertThatIllegalArgumentException().isThrownBy(() -> ScheduleSpec.fixedRate(Duration.ZERO))
			.withMessageContaining("fixed rate must be at least 1 microsecond");
	}

	private static List<Instant> ticks(ScheduleSpec spec, Instant from, int count) {
		List<Instant> ticks = new ArrayList<>();
		Instant tick = from;
		for (int i = 0; i < count; i++) {
			tick = spec.next(tick);
			ticks.add(tick);
		}
		return ticks;
	}

}
