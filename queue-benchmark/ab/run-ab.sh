#!/usr/bin/env bash
# Interleaved A/B of two queue-benchmark jars (issue 27: W1 three modes and W6 at >= 0.97x of 0a321ad).
#
#   run-ab.sh BEFORE_JAR AFTER_JAR [ROUNDS]      (ROUNDS defaults to 5)
#
# Each round runs W1 (transactional, grouped, batched + their raw baselines) and W6 (each mode without and with
# 1,000 ordering keys) once per side; odd rounds run BEFORE first, even rounds AFTER first. Every run is a fresh JVM
# against the same PostgreSQL server; the benchmark makes and drops a scratch database per drain. At the end
# ab-report.py prints the medians and ratios. See queue-benchmark/README.md, "Comparing two builds".
#
# Environment (all optional):
#   JDBC_URL      server for both sides      (jdbc:postgresql://127.0.0.1:5432/postgres?user=postgres)
#   W1_TASKS      W1 tasks per transactional drain (50000, the benchmark's default)
#   W1_BATCH_TASKS  W1 tasks per batch drain  (300000, the benchmark's default)
#   W6_TASKS      W6 tasks per drain          (50000, the benchmark's default)
#   WARMUP_TASKS  untimed warm-up per drain   (10000, the benchmark's default)
#   BATCH_WARMUP_TASKS  ... per W1 batch drain (50000, the benchmark's default)
#   TASKS_SCALE   multiplies the five above   (1; e.g. 0.05 for a quick check of the harness)
#   WORKLOADS     which to run                (W1,W6)
#   EXTRA_ARGS    more benchmark options for both sides, e.g. '--taskqueue.worker.concurrency=16'
#   JAVA_OPTS     JVM options for both sides  (none)
#   OUT           where the outputs go        (target/ab in the current directory; earlier files there are moved to OUT.prev-<time>/)
#   CHECKPOINT    1 = psql CHECKPOINT before each run so that no run pays for the previous one's dirty pages (1)
#   RUN_TIMEOUT   seconds before one run is killed (1800)
#   IDLE_MAX      before each run, wait while other processes keep more than this % of all CPUs busy, or another
#                 benchmark has a scratch database on the server (25; 100 = only the latter)
#   IDLE_WAIT     ... but at most this many seconds, then run anyway (600); the figures go to runs.tsv
set -u -o pipefail

usage() { sed -n '2,28p' "$0" | sed 's/^# \{0,1\}//'; exit 2; }
[ $# -ge 2 ] && [ $# -le 3 ] || usage
BEFORE_JAR=$(readlink -f "$1")
AFTER_JAR=$(readlink -f "$2")
ROUNDS=${3:-5}
for jar in "$BEFORE_JAR" "$AFTER_JAR"; do
	[ -f "$jar" ] || { echo "no such jar: $jar" >&2; exit 2; }
done
[[ $ROUNDS =~ ^[1-9][0-9]*$ ]] || { echo "ROUNDS must be a positive integer" >&2; exit 2; }

HERE=$(dirname "$(readlink -f "$0")")
JDBC_URL=${JDBC_URL:-'jdbc:postgresql://127.0.0.1:5432/postgres?user=postgres'}
TASKS_SCALE=${TASKS_SCALE:-1}
scale() { python3 -c "import sys; print(max(1, round(int(sys.argv[1]) * float(sys.argv[2]))))" "$1" "$TASKS_SCALE"; }
W1_TASKS=$(scale "${W1_TASKS:-50000}")
W1_BATCH_TASKS=$(scale "${W1_BATCH_TASKS:-300000}")
W6_TASKS=$(scale "${W6_TASKS:-50000}")
WARMUP_TASKS=$(scale "${WARMUP_TASKS:-10000}")
BATCH_WARMUP_TASKS=$(scale "${BATCH_WARMUP_TASKS:-50000}")
WORKLOADS=${WORKLOADS:-W1,W6}
EXTRA_ARGS=${EXTRA_ARGS:-}
JAVA_OPTS=${JAVA_OPTS:-}
OUT=${OUT:-target/ab}
CHECKPOINT=${CHECKPOINT:-1}
RUN_TIMEOUT=${RUN_TIMEOUT:-1800}
IDLE_MAX=${IDLE_MAX:-25}
IDLE_WAIT=${IDLE_WAIT:-600}

# the quiet-machine gate, PSQL_URL, fresh_out, measured_run
. "$HERE/../lib/machine.sh"

# --batch-tasks and --batch-warmup-tasks exist from issue 30 on: with an older jar on either side (0a321ad, the
# reference of issue 27), both sides drain --tasks in every mode, as that jar did.
knows_batch_tasks() {
	unzip -p "$1" 'BOOT-INF/classes/dev/taskqueue/benchmark/BenchmarkOptionTable.class' 2>/dev/null \
		| grep -a -q 'batch-tasks'
}
if knows_batch_tasks "$BEFORE_JAR" && knows_batch_tasks "$AFTER_JAR"; then
	BATCH_ARGS="--batch-tasks=$W1_BATCH_TASKS --batch-warmup-tasks=$BATCH_WARMUP_TASKS"
else
	BATCH_ARGS=""
	echo "run-ab: a jar predates --batch-tasks; W1 drains --tasks ($W1_TASKS) in every mode on both sides" >&2
fi

# benchmark options per workload: only what the criterion needs (the peers, the raw-batch sweep and the weaker
# reference are left out of W1; the three modes and both baselines stay)
args_for() {
	case $1 in
		W1) echo "--workloads=W1 --tasks=$W1_TASKS $BATCH_ARGS --warmup-tasks=$WARMUP_TASKS" \
			"--w1-others= --raw-batch-sizes=50" ;;
		W6) echo "--workloads=W6 --tasks=$W6_TASKS --warmup-tasks=$WARMUP_TASKS" ;;
		*) echo "unsupported workload $1 (W1 or W6)" >&2; exit 2 ;;
	esac
}
IFS=, read -r -a WL <<<"$WORKLOADS"
for w in "${WL[@]}"; do args_for "$w" >/dev/null || exit 2; done

fresh_out "$OUT"

left=$(scratch_left)
[ "$left" = 0 ] || echo "warning: $left taskqueue_bench_* database(s) already on the server (another run, or left by a killed one)"

{
	echo "started $(date -Is) on $(hostname), $(nproc) CPUs; $(uptime)"
	echo "before $BEFORE_JAR sha256 $(sha256sum "$BEFORE_JAR" | cut -c1-16)"
	echo "after  $AFTER_JAR sha256 $(sha256sum "$AFTER_JAR" | cut -c1-16)"
	echo "rounds $ROUNDS workloads $WORKLOADS jdbc $JDBC_URL checkpoint $CHECKPOINT idle_max $IDLE_MAX% idle_wait ${IDLE_WAIT}s java_opts '$JAVA_OPTS' extra '$EXTRA_ARGS'"
	for w in "${WL[@]}"; do echo "$w args: $(args_for "$w") $EXTRA_ARGS"; done
	psql "$PSQL_URL" -Atqc "select 'server: ' || version()"
	psql "$PSQL_URL" -AtqF= -c "select name, setting from pg_settings where name in ('fsync','synchronous_commit','full_page_writes','autovacuum','shared_buffers','max_connections') order by name" | tr '\n' ' '; echo
} | tee "$OUT/meta.txt"

printf 'round\tside\tworkload\tstart\twall_s\texit\tload1_before\tload1_after\tbusy_pct_before\twaited_s\tcpu_busy_s\tjvm_cpu_s\n' >"$OUT/runs.tsv"
failures=0
t_all=$(date +%s)
for round in $(seq 1 "$ROUNDS"); do
	if (( round % 2 == 1 )); then order=(before after); else order=(after before); fi
	for w in "${WL[@]}"; do
		for side in "${order[@]}"; do
			jar=$BEFORE_JAR; [ "$side" = after ] && jar=$AFTER_JAR
			file="$OUT/$round-$side-$w.txt"
			read -r busy waited < <(wait_quiet)
			(( busy > IDLE_MAX )) && echo "  note: ${busy}% of the CPUs busy before this run after waiting ${waited}s; running anyway"
			# shellcheck disable=SC2046
			measured_run "$file" "$OUT/$round-$side-$w.stderr" "$jar" $(args_for "$w") $EXTRA_ARGS
			printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$round" "$side" "$w" "$START" "$WALL" "$RC" \
				"$LOAD0" "$LOAD1" "$busy" "$waited" "$CPUBUSY" "$JVMCPU" >>"$OUT/runs.tsv"
			echo "round $round/$ROUNDS $w $side: ${WALL}s exit $RC load $LOAD0 -> $LOAD1; busy before ${busy}%;" \
				"CPU-s: all ${CPUBUSY}, benchmark JVM ${JVMCPU}"
			if [ "$RC" != 0 ] || grep -q '^FAILED' "$file"; then
				failures=$((failures + 1))
				echo "  ^ FAILED: see $file and $OUT/$round-$side-$w.stderr" >&2
			fi
			left=$(scratch_left)
			[ "$left" = 0 ] || echo "  warning: $left taskqueue_bench_* database(s) on the server after this run"
		done
	done
done
echo "total $(( $(date +%s) - t_all ))s; $(uptime)" | tee -a "$OUT/meta.txt"
echo
python3 "$HERE/ab-report.py" "$OUT" | tee "$OUT/report.txt"
[ "$failures" = 0 ] || { echo "$failures run(s) failed" >&2; exit 1; }
