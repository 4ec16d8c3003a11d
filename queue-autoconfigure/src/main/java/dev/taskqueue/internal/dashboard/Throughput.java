package dev.taskqueue.internal.dashboard;

import java.util.HashMap;
import java.util.List;
import java.util.Map;

import dev.taskqueue.internal.jdbc.QueueMinuteRepository.MinuteCount;

/** Each queue's completed and failed attempts per minute over the last {@link #MINUTES} minutes, oldest first. */
final class Throughput {

	static final int MINUTES = 60;

	private static final long[] NONE = new long[MINUTES];

	private final Map<String, long[]> completed = new HashMap<>();

	private final Map<String, long[]> failed = new HashMap<>();

	Throughput(List<MinuteCount> minutes) {
		for (MinuteCount minute : minutes) {
			int index = MINUTES - 1 - minute.minutesAgo();
			if (index >= 0 && index < MINUTES) {
				this.completed.computeIfAbsent(minute.queue(), (queue) -> new long[MINUTES])[index] += minute
					.completed();
				this.failed.computeIfAbsent(minute.queue(), (queue) -> new long[MINUTES])[index] += minute.failed();
			}
		}
	}

	long[] completed(String queue) {
		return this.completed.getOrDefault(queue, NONE);
	}

	long[] failed(String queue) {
		return this.failed.getOrDefault(queue, NONE);
	}

}
