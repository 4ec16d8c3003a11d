package dev.taskqueue.internal.worker;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicLong;

import javax.sql.DataSource;

import dev.taskqueue.DeadTask;
import dev.taskqueue.autoconfigure.TaskQueueSchemaMigrator;
import dev.taskqueue.internal.jdbc.DeadTaskRepository;
import dev.taskqueue.internal.jdbc.EnqueueRepository;
import dev.taskqueue.internal.jdbc.EnqueueRepository.NewTask;
import dev.taskqueue.internal.jdbc.GenericPlans;
import dev.taskqueue.internal.jdbc.HotStatements;
import dev.taskqueue.internal.jdbc.TaskTables;
import dev.taskqueue.test.TestDatabase;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.jdbc.datasource.DriverManagerDataSource;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

/**
 * The fair claim (StorageDriver's READY_FAIR) on its own, one statement at a time, so that each claim's share per
 * fairness key can be counted exactly: round-robin across the keys with due tasks, the rest to the keys that have
 * more, tasks without a key as one more key, and the keys after the previous claim's last one first.
 */
class FairClaimsIntegrationTests {

	private static final AtomicLong ids = new AtomicLong();

	private static TaskRepository tasks;

	private static EnqueueRepository enqueue;

	private static SessionRepository sessions;

	private static DeadTaskRepository dead;

	private static JdbcTemplate jdbc;

	private final UUID session = UUID.randomUUID();

	@BeforeAll
	static void migrate() {
		DataSource dataSource = new DriverManagerDataSource(TestDatabase.createDatabase());
		TaskTables tables = TaskTables.inSchema(null);
		new TaskQueueSchemaMigrator(dataSource, tables).afterPropertiesSet();
		tasks = new TaskRepository(dataSource, tables);
		enqueue = new EnqueueRepository(dataSource, tables);
		sessions = new SessionRepository(dataSource, tables);
		dead = new DeadTaskRepository(dataSource, tables);
		jdbc = new JdbcTemplate(dataSource);
	}

	@BeforeEach
	void emptyTables() {
		jdbc.execute("TRUNCATE taskqueue_task, taskqueue_session, taskqueue_dead_task");
		sessions.register(this.session, "test");
	}

	@Test
	void aBigTenantTakesOneShareOfEachClaimWhileSmallOnesHaveTasks() {
		enqueue("fair", "big", 5_000); // enqueued first: the head of the queue's order
		for (int i = 0; i < 10; i++) {
			enqueue("fair", "small-" + i, 50);
		}
		assertThat(hasFairnessKeys("fair")).isTrue();
		Set<UUID> claimed = new HashSet<>();
		String after = "";
		// 11 keys and the turn of the tasks without a key share 12: one each, and the turn nobody used goes to the
		// queue's head, the big tenant. So each of the first 50 claims takes 2 of big and 1 of each small tenant.
		for (int round = 1; round <= 50; round++) {
			ClaimResult result = claimFair("fair", 12, after);
			Map<String, Integer> byTenant = byTenant(result.claimed());
			assertThat(byTenant).as("claim " + round).hasSize(11).containsEntry("big", 2);
			for (int i = 0; i < 10; i++) {
				assertThat(byTenant).as("claim " + round).containsEntry("small-" + i, 1);
			}
			assertThat(byTenant(ahead(result))).as("claim " + round + ": the small tenants' tasks run first")
				.hasSize(10)
				.doesNotContainKey("big");
			result.claimed().forEach((task) -> assertThat(claimed.add(task.id())).isTrue());
			after = result.nextFairnessKey();
			assertThat(after).isNotNull();
			assertThat(result.fairTenants()).as("11 keys, all listed").isEqualTo(new ClaimResult.FairTenants(11, null));
		}
		// Every small task within the first 50 claims of 12 (600 tasks); in the queue's order, the last would be the
		// 5,500th.
		assertThat(jdbc.queryForObject("SELECT count(*) FROM taskqueue_task WHERE fairness_key LIKE 'small-%' "
				+ "AND claimed_by IS NULL", Integer.class)).isZero();
		assertThat(tasks.fairTenants("fair", 0, 12)).isEqualTo(new ClaimResult.FairTenants(1, "big"));
		ClaimResult onlyBig = claimFair("fair", 12, after);
		assertThat(byTenant(onlyBig.claimed())).isEqualTo(Map.of("big", 12));
		assertThat(onlyBig.fairTenants()).as("one tenant: the worker claims in the queue's order")
			.isEqualTo(new ClaimResult.FairTenants(1, "big"));
		onlyBig.claimed().forEach((task) -> assertThat(claimed.add(task.id())).isTrue());
		while (true) {
			ClaimResult result = claimFair("fair", 512, onlyBig.nextFairnessKey());
			if (result.claimed().isEmpty()) {
				break;
			}
			result.claimed().forEach((task) -> assertThat(claimed.add(task.id())).as("claimed once").isTrue());
		}
		assertThat(claimed).hasSize(5_500);
		assertThat(hasFairnessKeys("fair")).isFalse();
		assertThat(tasks.fairTenants("fair", 0, 12)).isEqualTo(new ClaimResult.FairTenants(0, null));
	}

	@Test
	void theProbeCountsTheTenantsWithDueTasksUpToTwo() {
		assertThat(tasks.fairTenants("count", 0, 4)).as("empty").isEqualTo(new ClaimResult.FairTenants(0, null));
		enqueue("count", "m", 10);
		assertThat(tasks.fairTenants("count", 0, 4)).isEqualTo(new ClaimResult.FairTenants(1, "m"));
		assertThat(tasks.otherFairnessKey("count", "m", "")).isNull();
		jdbc.update("INSERT INTO taskqueue_task (id, queue, payload, fairness_key, run_at) "
				+ "VALUES (gen_random_uuid(), 'count', '{}', 'later', now() + interval '1 hour'), "
				+ "(gen_random_uuid(), 'count', '{}', 'a-later', now() + interval '1 hour')");
		assertThat(tasks.fairTenants("count", 0, 4)).as("keys not due are no tenants yet")
			.isEqualTo(new ClaimResult.FairTenants(1, "m"));
		assertThat(tasks.otherFairnessKey("count", "m", "")).isNull();
		enqueue("count", null, 3); // behind m's 10: a claim of 4 would not see them, a claim of 11 would
		assertThat(tasks.fairTenants("count", 0, 4)).isEqualTo(new ClaimResult.FairTenants(1, "m"));
		assertThat(tasks.fairTenants("count", 0, 11)).isEqualTo(new ClaimResult.FairTenants(2, null));
		enqueue("count", "z", 1);
		assertThat(tasks.fairTenants("count", 0, 4)).isEqualTo(new ClaimResult.FairTenants(2, null));
		assertThat(tasks.otherFairnessKey("count", "m", "")).as("after m").isEqualTo("z");
		enqueue("count", "a", 1);
		jdbc.update("DELETE FROM taskqueue_task WHERE fairness_key = 'z'");
		assertThat(tasks.otherFairnessKey("count", "m", "")).as("before m").isEqualTo("a");
		assertThat(tasks.otherFairnessKey("count", "a", "")).isEqualTo("m");
		jdbc.update("DELETE FROM taskqueue_task WHERE fairness_key = 'm'");
		assertThat(tasks.otherFairnessKey("count", "a", "")).as("only a, and tasks without a key").isNull();
		assertThat(tasks.fairTenants("count", 0, 4)).isEqualTo(new ClaimResult.FairTenants(2, null));
		assertThat(tasks.fairTenants("other", 0, 4)).as("another queue")
			.isEqualTo(new ClaimResult.FairTenants(0, null));
	}

	@Test
	void besideTheOneKeyTheOtherKeysAreAskedForInTurnAndClaimedAlone() {
		enqueue("beside", "big", 100);
		enqueue("beside", "small-a", 3);
		enqueue("beside", null, 5);
		enqueue("beside", "small-b", 3);
		enqueue("beside", "a-small", 1); // before big's range
		assertThat(tasks.otherFairnessKey("beside", "big", "")).isEqualTo("a-small");
		assertThat(tasks.otherFairnessKey("beside", "big", "a-small")).as("over big's range").isEqualTo("small-a");
		assertThat(tasks.otherFairnessKey("beside", "big", "small-a")).isEqualTo("small-b");
		assertThat(tasks.otherFairnessKey("beside", "big", "small-b")).as("round").isEqualTo("a-small");
		assertThat(tasks.otherFairnessKey("beside", "big", "big")).isEqualTo("small-a");
		assertThat(tasks.otherFairnessKey("beside", "small-a", "big")).isEqualTo("small-b");
		Set<UUID> claimed = new HashSet<>();
		List<ClaimedTask> first = tasks.claimKey("beside", "small-a", this.session, 2);
		assertThat(byTenant(first)).isEqualTo(Map.of("small-a", 2));
		first.forEach((task) -> assertThat(claimed.add(task.id())).isTrue());
		List<ClaimedTask> rest = tasks.claimKey("beside", "small-a", this.session, 2);
		assertThat(byTenant(rest)).isEqualTo(Map.of("small-a", 1));
		rest.forEach((task) -> assertThat(claimed.add(task.id())).isTrue());
		assertThat(tasks.claimKey("beside", "small-a", this.session, 2)).isEmpty();
		assertThat(tasks.claimKey("beside", "small-b", UUID.randomUUID(), 2)).as("an expired session").isEmpty();
		jdbc.update("DELETE FROM taskqueue_task WHERE fairness_key IN ('a-small', 'small-b')");
		assertThat(tasks.otherFairnessKey("beside", "big", "small-a")).as("none but big").isNull();
		assertThat(jdbc.queryForObject("SELECT count(*) FROM taskqueue_task WHERE claimed_by IS NULL", Integer.class))
			.as("big's and those without a key, for the plain claim").isEqualTo(105);
	}

	@Test
	void theProbeOfAQueueWithoutKeysIsOneProbeThatFindsNothing() {
		enqueue("plain", null, 100);
		enqueue("keyed", "k", 100);
		String probe = TaskRepository.FAIR_TENANTS.formatted("taskqueue_task");
		for (String value : List.of("'plain'", "'plain'", "'plain'", "0", "8")) {
			probe = probe.replaceFirst("\\?", value);
		}
		String plan = String.join("\n", jdbc.queryForList("EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF) " + probe,
				String.class));
		// The first key's probe of the fair index finds nothing; the other branches never run.
		assertThat(plan.split("using taskqueue_task_fair_idx on taskqueue_task[^\\n]*actual rows=0(\\.00)? loops=1",
				-1)).as(plan).hasSize(2);
		assertThat(plan).as(plan).doesNotContain("Seq Scan")
			.doesNotContainPattern("taskqueue_task_ready[^\\n]*actual rows=[0-9.]+ loops=[1-9]");
	}

	@Test
	void keysBeyondOneClaimComeInTheNextClaimsInTurn() {
		for (int i = 0; i < 30; i++) {
			enqueue("many", "k" + (10 + i), 3);
		}
		Map<String, Integer> first = new TreeMap<>();
		String after = "";
		for (int round = 0; round < 3; round++) {
			ClaimResult result = claimFair("many", 10, after);
			assertThat(result.claimed()).hasSize(10);
			byTenant(result.claimed()).forEach((key, count) -> first.merge(key, count, Integer::sum));
			after = result.nextFairnessKey();
		}
		assertThat(first).as("one task of each of the 30 keys in 3 claims of 10").hasSize(30)
			.allSatisfy((key, count) -> assertThat(count).isOne());
		assertThat(after).isEqualTo("k39");
	}

	@Test
	void aClaimOfOneAtTheWrapStaysFair() {
		enqueue("one", "a", 3);
		enqueue("one", "b", 3);
		ClaimResult first = claimFair("one", 1, "b"); // lists only the turn of the tasks without a key (none)
		assertThat(first.claimed()).hasSize(1);
		assertThat(first.nextFairnessKey()).as("keys remain: the next claim starts from the first").isEmpty();
		jdbc.update("DELETE FROM taskqueue_task WHERE fairness_key IS NOT NULL");
		enqueue("one", null, 2);
		assertThat(claimFair("one", 1, "").nextFairnessKey()).as("no key due: back to the plain claim").isNull();
	}

	@Test
	void tasksWithoutAKeyTakeOneTurnOfTheRound() {
		enqueue("mixed", null, 10);
		for (String key : List.of("a", "b", "c")) {
			enqueue("mixed", key, 10);
		}
		ClaimResult result = claimFair("mixed", 8, "");
		assertThat(byTenant(result.claimed())).isEqualTo(Map.of("a", 2, "b", 2, "c", 2, "none", 2));
		assertThat(result.ahead()).as("every tenant took as many: none goes first").isEmpty();
	}

	@Test
	void theRemainderOfAClaimGoesToTheKeysThatHaveMore() {
		enqueue("rest", "big", 100);
		enqueue("rest", "small", 1);
		ClaimResult result = claimFair("rest", 20, "");
		assertThat(byTenant(result.claimed())).isEqualTo(Map.of("big", 19, "small", 1));
		assertThat(byTenant(ahead(result))).as("the tenant with little due work runs first")
			.isEqualTo(Map.of("small", 1));
	}

	@Test
	void aFoldedFairClaimTellsTheTasksToRunFirstToo() {
		enqueue("folded-ahead", null, 1); // first, so that its turn sees it among the claim's first tasks
		enqueue("folded-ahead", "big", 10);
		enqueue("folded-ahead", "small", 1);
		List<ClaimedTask> first = claimFair("folded-ahead", 1, "").claimed();
		ClaimResult result = tasks.claim(new TaskClaims.Request("folded-ahead", this.session, 0,
				TaskClaims.Request.Reach.BUCKET, null, 6, first, List.of(), 0, ""));
		assertThat(byTenant(first)).isEqualTo(Map.of("big", 1));
		assertThat(result.completed()).containsExactly(first.get(0).id());
		// Three tenants share 6: 2 each, and what small and the tasks without a key lack goes to big.
		assertThat(byTenant(result.claimed())).isEqualTo(Map.of("big", 4, "small", 1, "none", 1));
		assertThat(byTenant(ahead(result))).isEqualTo(Map.of("small", 1, "none", 1));
	}

	@Test
	void aFairClaimDeletesTheCompletionsItCarries() {
		enqueue("folded", "a", 3);
		enqueue("folded", "b", 3);
		List<ClaimedTask> first = claimFair("folded", 2, "").claimed();
		ClaimResult result = tasks.claim(new TaskClaims.Request("folded", this.session, 0,
				TaskClaims.Request.Reach.BUCKET, null, 4, first, List.of(), 0, ""));
		assertThat(result.completed())
			.containsExactlyInAnyOrderElementsOf(first.stream().map(ClaimedTask::id).toList());
		assertThat(byTenant(result.claimed())).isEqualTo(Map.of("a", 2, "b", 2));
		assertThat(result.nextFairnessKey()).isNotNull();
		assertThat(jdbc.queryForObject("SELECT count(*) FROM taskqueue_task", Integer.class)).isEqualTo(4);
	}

	@Test
	void anExpiredSessionClaimsAndLocksNothing() {
		enqueue("gone", "a", 3);
		ClaimResult result = tasks.claim(new TaskClaims.Request("gone", UUID.randomUUID(), 0,
				TaskClaims.Request.Reach.BUCKET, null, 4, List.of(), List.of(), 0, ""));
		assertThat(result.claimed()).isEmpty();
		assertThat(claimFair("gone", 4, "").claimed()).hasSize(3);
	}

	@Test
	void aTaskWithAKeyIsInsertedAloneOrWithOthersAndRefusedWhereClaimsCannotBeFair() {
		enqueue.offer(new NewTask(UUID.randomUUID(), "insert", "{}", 0, null, null, "{}", null, false, null, "t1"));
		enqueue.offerAll(List.of(new NewTask(UUID.randomUUID(), "insert", "{}", 0, null, null, "{}", null, false, null,
				"t2"), new NewTask(UUID.randomUUID(), "insert", "{}", 0, null, null)));
		assertThat(jdbc.queryForList("SELECT fairness_key FROM taskqueue_task WHERE queue = 'insert' "
				+ "ORDER BY fairness_key NULLS LAST", String.class)).containsExactly("t1", "t2", null);
		EnqueueRepository refusing = new EnqueueRepository(jdbc.getDataSource(), TaskTables.inSchema(null))
			.refusingFairnessKeys("needs another database");
		NewTask keyed = new NewTask(UUID.randomUUID(), "refused", "{}", 0, null, null, "{}", null, false, null, "t");
		assertThatIllegalArgumentException().isThrownBy(() -> refusing.offer(keyed))
			.withMessage("The task of queue 'refused' has fairness key 't', which needs another database");
		assertThatIllegalArgumentException().isThrownBy(() -> refusing.offerAll(List.of(keyed)));
		assertThat(jdbc.queryForObject("SELECT count(*) FROM taskqueue_task WHERE queue = 'refused'", Integer.class))
			.isZero();
	}

	@Test
	void aQueueWithoutKeysHasNoneToProbe() {
		enqueue("plain", null, 5);
		assertThat(hasFairnessKeys("plain")).isFalse();
		assertThat(jdbc.queryForObject("SELECT count(*) FROM taskqueue_task WHERE fairness_key IS NOT NULL",
				Integer.class)).isZero();
	}

	/**
	 * A tenant's tasks that died keep its key in the dead letters (V22), and go back with it when retried, one by one,
	 * a queue's all or by a filter: the fair claim gives them their tenant's share again. Without the key they would
	 * be tasks without one, whose turn reads the queue's head, all of it the big tenant's: they would get nothing.
	 */
	@Test
	void retriedDeadLettersKeepTheirKeyAndTheirTenantsShare() {
		enqueue("fair-dead", "small", 4);
		enqueue("fair-dead", null, 1);
		ClaimResult claimed = claimFair("fair-dead", 5, null);
		assertThat(claimed.claimed()).hasSize(5);
		List<UUID> small = new ArrayList<>();
		for (ClaimedTask task : claimed.claimed()) {
			boolean keyed = task.payload().contains("small");
			// The second and third of the tenant's fail with a timeout: a filter's retry takes those two.
			String error = (keyed && (small.size() == 1 || small.size() == 2)) ? "timeout" : "boom";
			if (keyed) {
				small.add(task.id());
			}
			assertThat(tasks.moveToDead(task, error)).isTrue();
		}
		assertThat(jdbc.queryForList("SELECT coalesce(fairness_key, '-') FROM taskqueue_dead_task "
				+ "WHERE queue = 'fair-dead'", String.class))
			.containsExactlyInAnyOrder("small", "small", "small", "small", "-");
		assertThat(dead.find(small.get(0))).get().extracting(DeadTask::fairnessKey).isEqualTo("small");
		assertThat(dead.page("fair-dead", null, null, 10)).extracting(DeadTask::fairnessKey)
			.containsExactlyInAnyOrder("small", "small", "small", "small", null);
		enqueue("fair-dead", "big", 100); // after the dead ones: ahead of the retried ones in the queue's order

		assertThat(dead.retry(small.get(0))).isTrue();
		assertThat(jdbc.queryForObject("SELECT fairness_key FROM taskqueue_task WHERE id = ?", String.class,
				small.get(0))).isEqualTo("small");
		assertThat(dead.retryMatching("fair-dead", "timeout", null, null, 1)).isEqualTo(2);
		assertThat(jdbc.queryForList("SELECT fairness_key FROM taskqueue_task WHERE id IN (?, ?)", String.class,
				small.get(1), small.get(2))).containsExactly("small", "small");
		// A queue's all, the task without a key too: it comes back without one.
		assertThat(dead.retryAll("fair-dead")).isEqualTo(2);
		assertThat(jdbc.queryForObject("SELECT count(*) FROM taskqueue_dead_task", Integer.class)).isZero();
		assertThat(jdbc.queryForList("SELECT coalesce(fairness_key, '-') FROM taskqueue_task "
				+ "WHERE queue = 'fair-dead' AND fairness_key IS DISTINCT FROM 'big'", String.class))
			.containsExactlyInAnyOrder("small", "small", "small", "small", "-");

		// Two keys and the turn of the tasks without a key share 6: two each. The one without a key sorts after
		// the big tenant's 100 in the queue's order, so its turn finds it not among the first 6 it reads and goes
		// to the queue's head: the big tenant.
		ClaimResult result = claimFair("fair-dead", 6, null);
		assertThat(byTenant(result.claimed())).isEqualTo(Map.of("big", 4, "small", 2));
		assertThat(result.fairTenants()).isEqualTo(new ClaimResult.FairTenants(2, null));
	}

	/** A completed task keeps its key in the history (V22), completed alone or with others. */
	@Test
	void completedTasksKeepTheirKeyInTheHistory() {
		TaskRepository withHistory = new TaskRepository(jdbc.getDataSource(), TaskTables.inSchema(null), true);
		enqueue("fair-history", "a", 2);
		enqueue("fair-history", null, 1);
		List<ClaimedTask> claimed = withHistory.claim(new TaskClaims.Request("fair-history", this.session, 0,
				TaskClaims.Request.Reach.BUCKET, null, 3, List.of(), List.of(), 0, "")).claimed();
		assertThat(claimed).hasSize(3);
		// A task with the key alone, the other with the key and the one without together.
		ClaimedTask alone = claimed.stream().filter((task) -> task.payload().contains("\"a\"")).findFirst().orElseThrow();
		assertThat(withHistory.complete(alone)).isTrue();
		assertThat(withHistory.completeAll(this.session, claimed.stream().filter((task) -> task != alone).toList()))
			.hasSize(2);
		assertThat(jdbc.queryForList("SELECT id::text || ' ' || coalesce(fairness_key, '-') FROM taskqueue_history "
				+ "WHERE queue = 'fair-history'", String.class))
			.containsExactlyInAnyOrderElementsOf(claimed.stream()
				.map((task) -> task.id() + " " + (task.payload().contains("\"a\"") ? "a" : "-"))
				.toList());
		assertThat(jdbc.queryForObject("SELECT count(*) FROM taskqueue_history WHERE queue = 'fair-history' "
				+ "AND fairness_key = 'a'", Integer.class)).isEqualTo(2);
	}

	@Test
	void theFairClaimReadsTheKeysFromTheirPartialIndexNeverTheWholeTable() {
		jdbc.update("INSERT INTO taskqueue_task (id, queue, payload, priority, fairness_key) "
				+ "SELECT gen_random_uuid(), 'p' || (i % 5), '{}', i % 3, CASE WHEN i % 4 = 0 THEN NULL "
				+ "ELSE 'k' || (i % 50) END FROM generate_series(1, 20000) i");
		jdbc.execute("ANALYZE taskqueue_task");
		TaskClaims claims = new TaskClaims(new HotStatements(jdbc.getDataSource(),
				new JdbcTemplate().getExceptionTranslator()), TaskTables.inSchema(null), false);
		for (String statement : List.of(claims.claimFair, claims.completeAndClaimFair)) {
			String plan = GenericPlans.of(jdbc, statement);
			assertThat(plan).as(plan).contains("taskqueue_task_fair_idx")
				.contains("taskqueue_task_ready_bucket_idx")
				.doesNotContain("Seq Scan on taskqueue_task");
		}
	}

	private ClaimResult claimFair(String queue, int limit, @Nullable String after) {
		return tasks.claim(new TaskClaims.Request(queue, this.session, 0, TaskClaims.Request.Reach.BUCKET, null, limit,
				List.of(), List.of(), 0, (after != null) ? after : ""));
	}

	private static void enqueue(String queue, @Nullable String key, int count) {
		List<NewTask> batch = new ArrayList<>();
		for (int i = 0; i < count; i++) {
			// Ids in enqueue order, as UUID v7 are: the queue's order among tasks due at the same time.
			batch.add(new NewTask(new UUID(0x7000L, ids.incrementAndGet()), queue,
					"{\"tenant\": \"" + ((key != null) ? key : "none") + "\"}", 0, null, null, "{}", null, false, null,
					key));
		}
		enqueue.insertAll(batch);
	}

	/** The tasks of {@code result} that run before those claimed ahead of the threads. */
	private static List<ClaimedTask> ahead(ClaimResult result) {
		return result.claimed().stream().filter((task) -> result.ahead().contains(task.id())).toList();
	}

	private static Map<String, Integer> byTenant(List<ClaimedTask> claimed) {
		Map<String, Integer> counts = new TreeMap<>();
		for (ClaimedTask task : claimed) {
			String tenant = task.payload().replaceAll(".*\"tenant\": \"([^\"]*)\".*", "$1");
			counts.merge(tenant, 1, Integer::sum);
		}
		return counts;
	}

	/** Whether unclaimed tasks with a fairness key wait in {@code queue}, due or not. */
	private static boolean hasFairnessKeys(String queue) {
		return jdbc.queryForObject("SELECT EXISTS (SELECT 1 FROM taskqueue_task WHERE queue = ? "
				+ "AND fairness_key IS NOT NULL AND claimed_by IS NULL)", Boolean.class, queue);
	}

}
