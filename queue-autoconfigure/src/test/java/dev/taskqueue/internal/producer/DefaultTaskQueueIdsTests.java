package dev.taskqueue.internal.producer;

import java.util.ArrayList;
import java.util.List;
import java.util.UUID;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

class DefaultTaskQueueIdsTests {

	@Test
	void idsAreVersion7AndRiseInCreationOrder() {
		List<UUID> ids = new ArrayList<>();
		for (int i = 0; i < 20_000; i++) {
			ids.add(DefaultTaskQueue.nextId());
		}
		assertThat(ids).allSatisfy((id) -> {
			assertThat(id.version()).isEqualTo(7);
			assertThat(id.variant()).isEqualTo(2);
		});
		for (int i = 1; i < ids.size(); i++) {
			assertThat(Long.compareUnsigned(ids.get(i - 1).getMostSignificantBits(), ids.get(i).getMostSignificantBits()))
				.as("id %d sorts before id %d", i - 1, i).isNegative();
		}
	}

	@Test
	void timestampIsTheCurrentMillisecond() {
		long before = System.currentTimeMillis();
		UUID id = DefaultTaskQueue.nextId();
		long millis = id.getMostSignificantBits() >>> 16;
		assertThat(millis).isBetween(before, System.currentTimeMillis() + 5);
	}

}
