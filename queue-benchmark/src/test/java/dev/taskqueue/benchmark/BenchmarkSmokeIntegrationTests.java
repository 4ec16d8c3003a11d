package dev.taskqueue.benchmark;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Runs the benchmark with tiny numbers to prove it still works; asserts that it completes, never how fast.
 */
class BenchmarkSmokeIntegrationTests {

	@Test
	void drainAndEnqueueWorkloadsPrintResultsAndSummary() {
		List<String> args = new ArrayList<>(List.of("--workloads=W1,W4,W8", "--tasks=500", "--batch-tasks=700",
				"--warmup-tasks=0", "--w4-single-tasks=100", "--raw-batch-sizes=10",
				"--w1-others=db-scheduler,db-scheduler-defaults,jobrunr,raw-claim-then-delete"));
		String url = System.getenv("TASKQUEUE_TEST_JDBC_URL");
		if (url != null && !url.isBlank()) {
			args.add("--jdbc-url=" + url);
		}
		else {
			// Durable commits are what the benchmark measures, not what this test checks: it only has to be quick.
			args.addAll(List.of("--pg.fsync=off", "--pg.synchronous_commit=off"));
		}
		ByteArrayOutputStream output = new ByteArrayOutputStream();
		int exitCode = BenchmarkMain.run(new PrintStream(output, true, StandardCharsets.UTF_8),
				args.toArray(String[]::new));
		String printed = output.toString(StandardCharsets.UTF_8);
		assertThat(exitCode).as(printed).isZero();
		assertThat(printed).contains("RESULT W1 drain mode=transactional threads=8 config=default tasks=500 ",
				"RESULT W1 drain mode=grouped threads=8 group=20 config=default tasks=700 ",
				"RESULT W1 drain mode=batched threads=8 config=default tasks=700 ",
				"RESULT W1 drain contender=db-scheduler threads=8 pool=12 does=[db-scheduler 16.12, lock-and-fetch",
				"RESULT W1 drain contender=db-scheduler-defaults threads=8 pool=12 does=[db-scheduler 16.12 as it comes",
				"RESULT W1 drain contender=jobrunr threads=8 pool=12 does=[JobRunr 8.7.0 OSS",
				"RESULT W1 drain baseline=raw-delete-returning threads=8 does=[DELETE WHERE id = (SELECT 1 FOR UPDATE "
						+ "SKIP LOCKED) RETURNING",
				"RESULT W1 drain baseline=raw-batch-50 threads=8 does=[UPDATE SET claimed_by FROM (SELECT 50",
				"RESULT W1 drain baseline=raw-batch-10 threads=8", "RESULT W1 drain raw-batch best of sizes=10,50",
				"RESULT W1 drain baseline=raw-claim-then-delete threads=8 does=[weaker reference",
				"RESULT W4 enqueueAll batch=1000", "RESULT W4 insert baseline=raw-multi-row",
				"RESULT W4 enqueue unique-keys batch=1", "RESULT W4 enqueueAll unique-keys batch=1000",
				"RESULT W8 drain mode=transactional", "global-concurrency=8", "rate-limit=1000000/1s", "SUMMARY");
		assertThat(printed).containsPattern("mode=transactional .* jvm-cpu=\\d+us cpu-ratio=\\S+ "
				+ "vs-db-scheduler=\\S+ vs-db-scheduler-defaults=\\S+ vs-jobrunr=\\S+ "
				+ "baseline=raw-delete-returning\\(\\d+/s\\) ratio=");
		assertThat(printed).containsPattern("contender=jobrunr .* jvm-cpu=\\d+us cpu-ratio=\\S+ "
				+ "baseline=raw-delete-returning\\(\\d+/s\\) ratio=");
		assertThat(printed).containsPattern("mode=batched .* baseline=raw-batch-50\\(\\d+/s\\) ratio=");
	}

	@Test
	void batchDrainWorkloadComparesABatchWithPlainTasks() {
		List<String> args = new ArrayList<>(List.of("--workloads=W7", "--tasks=300", "--warmup-tasks=0",
				"--modes=transactional,batched"));
		String url = System.getenv("TASKQUEUE_TEST_JDBC_URL");
		if (url != null && !url.isBlank()) {
			args.add("--jdbc-url=" + url);
		}
		else {
			args.addAll(List.of("--pg.fsync=off", "--pg.synchronous_commit=off"));
		}
		ByteArrayOutputStream output = new ByteArrayOutputStream();
		int exitCode = BenchmarkMain.run(new PrintStream(output, true, StandardCharsets.UTF_8),
				args.toArray(String[]::new));
		String printed = output.toString(StandardCharsets.UTF_8);
		assertThat(exitCode).as(printed).isZero();
		assertThat(printed).contains("RESULT W7 drain plain mode=transactional", "RESULT W7 drain plain mode=batched",
				"SUMMARY");
		assertThat(printed).containsPattern("RESULT W7 drain batch mode=transactional .* then-after=\\S+ms "
				+ "baseline=plain\\(\\d+/s\\) ratio=");
	}

	/**
	 * W10 with a few thousand rows: the workload fails unless every page shows what it must (tasks, the next pages,
	 * the searches' finds), so this checks that the rows it loads with COPY are rows the library reads as its own.
	 */
	@Test
	void dashboardScaleWorkloadTimesEveryPageAndPlansItsStatements() {
		List<String> args = new ArrayList<>(List.of("--workloads=W10", "--w10-tasks=4000", "--w10-dead=800",
				"--w10-history=500", "--w10-requests=1", "--w10-warmup-requests=0"));
		String url = System.getenv("TASKQUEUE_TEST_JDBC_URL");
		boolean embedded = url == null || url.isBlank();
		if (!embedded) {
			args.add("--jdbc-url=" + url);
		}
		else {
			args.addAll(List.of("--pg.fsync=off", "--pg.synchronous_commit=off",
					"--pg.shared_preload_libraries=pg_stat_statements"));
		}
		ByteArrayOutputStream output = new ByteArrayOutputStream();
		int exitCode = BenchmarkMain.run(new PrintStream(output, true, StandardCharsets.UTF_8),
				args.toArray(String[]::new));
		String printed = output.toString(StandardCharsets.UTF_8);
		assertThat(exitCode).as(printed).isZero();
		for (String page : List.of("overview", "ready", "ready-next", "ready-page-20", "scheduled", "running", "held",
				"held-next", "dead", "dead-next", "dead-queue", "dead-rare-queue", "dead-queue-window", "task", "dead-task", "search-id",
				"search-history-id", "search-dead-id", "search-unique-key", "search-ordering-key", "search-batch",
				"search-dead-unique-key", "search-history-unique-key", "dead-rare-text")) {
			assertThat(printed).containsPattern("RESULT W10 page=" + page + " p50=\\S+ms p95=\\S+ms max=\\S+ms");
		}
		assertThat(printed).contains("W10 statements whose plan reads a whole task, dead-letter or history table: ");
		// The held view's plan reads the held tasks' partial index, which only the statement's own constant selects.
		assertThat(printed).containsPattern("SAMPLE W10 statement .*plan=\\[[^]]*taskqueue_task_ordering_held_idx");
		if (embedded) {
			assertThat(printed).containsPattern("SAMPLE W10 statement calls=\\d+ mean=\\S+ms max=\\S+ms plan=\\[[^]]*"
					+ "taskqueue_task_ready_bucket_idx");
		}
	}

	@Test
	void badOptionsAreNamedWithTheUsage() {
		ByteArrayOutputStream output = new ByteArrayOutputStream();
		int exitCode = BenchmarkMain.run(new PrintStream(output, true, StandardCharsets.UTF_8), "--workloads=W12");
		assertThat(exitCode).isEqualTo(2);
		assertThat(output.toString(StandardCharsets.UTF_8)).contains("--workloads takes W1 to W11, but got 'W12'",
				"Usage:");
	}

}
