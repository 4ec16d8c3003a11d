package dev.taskqueue.internal.support;

import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Stopping lets the run under way finish uninterrupted, before the application closes the connection pool under
 * its statement, and runs nothing after it; a run past the grace period is interrupted.
 */
class PeriodicThreadTests {

	@Test
	void stopWaitsForTheRunUnderWayWithoutInterruptingIt() throws Exception {
		CountDownLatch started = new CountDownLatch(1);
		AtomicBoolean interrupted = new AtomicBoolean();
		AtomicBoolean finished = new AtomicBoolean();
		AtomicInteger runs = new AtomicInteger();
		PeriodicThread thread = new PeriodicThread("test-periodic", Duration.ZERO, Duration.ofMillis(10), () -> {
			runs.incrementAndGet();
			started.countDown();
			try {
				Thread.sleep(300);
			}
			catch (InterruptedException ex) {
				interrupted.set(true);
				return;
			}
			finished.set(true);
		});
		thread.start();
		assertThat(started.await(5, TimeUnit.SECONDS)).isTrue();
		thread.stop();
		assertThat(finished).isTrue();
		assertThat(interrupted).isFalse();
		assertThat(thread.isRunning()).isFalse();
		// Usually one run; two when a loaded machine let the first end before stop() was called. None after it.
		int runsAtStop = runs.get();
		Thread.sleep(100);
		assertThat(runs).hasValue(runsAtStop);
	}

	@Test
	void aRunPastTheGraceIsInterrupted() throws Exception {
		CountDownLatch started = new CountDownLatch(1);
		CountDownLatch interrupted = new CountDownLatch(1);
		ExecutorService executor = Executors.newSingleThreadExecutor();
		executor.execute(() -> {
			started.countDown();
			try {
				Thread.sleep(10_000);
			}
			catch (InterruptedException ex) {
				interrupted.countDown();
			}
		});
		assertThat(started.await(5, TimeUnit.SECONDS)).isTrue();
		assertThat(PeriodicThread.stopAfterRunUnderWay(executor, Duration.ofMillis(100))).isFalse();
		assertThat(interrupted.await(5, TimeUnit.SECONDS)).isTrue();
	}

}
