package dev.taskqueue.internal.producer;

import java.util.UUID;
import java.util.concurrent.ThreadLocalRandom;

/**
 * Time-ordered task ids: UUID version 7 (RFC 9562), millisecond timestamp first, so ids sort by creation time and
 * new rows land together in the primary key index. Within one millisecond a counter keeps ids of this JVM rising.
 */
public final class TaskIds {

	private static long lastMillis;

	private static long counter;

	private TaskIds() {
	}

	public static UUID next() {
		long millis;
		long sequence;
		synchronized (TaskIds.class) {
			millis = System.currentTimeMillis();
			if (millis > lastMillis) {
				lastMillis = millis;
				counter = ThreadLocalRandom.current().nextLong(1 << 10);
			}
			else if (++counter > 0xFFF) {
				lastMillis++; // borrow from the next millisecond rather than break the order
				counter = 0;
			}
			millis = lastMillis;
			sequence = counter;
		}
		long high = (millis << 16) | 0x7000L | sequence;
		long low = (ThreadLocalRandom.current().nextLong() & 0x3FFFFFFFFFFFFFFFL) | 0x8000000000000000L;
		return new UUID(high, low);
	}

}
