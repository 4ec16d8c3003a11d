#!/usr/bin/env bash
# Issue 30's whole W1 table in one command: TaskQueue in each mode against the strongest raw loops and its peers.
#
#   run-table.sh [RUNS]      (RUNS defaults to 5)
#
# Each run is a fresh JVM running W1 once: the one-statement exactly-once loop, db-scheduler tuned (lock-and-fetch
# 0.5/4.0) and as it comes, JobRunr, TRANSACTIONAL (TASKS each), then the batch loop of 50, group commit of 20 and
# BATCHED (BATCH_TASKS each), every contender after an untimed warm-up in the same JVM. Before each run the script
# waits until other processes leave the CPUs idle (IDLE_MAX / IDLE_WAIT) and records the machine's load in runs.tsv,
# and how often, during the run, the server held another benchmark's scratch database (a run makes one at a time).
# At the end table-report.py prints the medians and each ratio's median over the runs (Python 3).
#
# Environment (all optional):
#   JAR                 the benchmark              (queue-benchmark/target/queue-benchmark.jar in the current directory)
#   JDBC_URL            the server                 (jdbc:postgresql://127.0.0.1:5432/postgres?user=postgres)
#   TASKS               one-per-transaction drains (50000)
#   BATCH_TASKS         batch drains               (300000)
#   WARMUP_TASKS        their untimed warm-ups     (10000)
#   BATCH_WARMUP_TASKS  ...                        (50000)
#   TASKS_SCALE         multiplies the four above  (1; e.g. 0.02 for a quick check of the harness)
#   OTHERS              --w1-others                (db-scheduler,db-scheduler-defaults,jobrunr)
#   EXTRA_ARGS          more benchmark options, e.g. '--modes=transactional'
#   JAVA_OPTS           JVM options                (none)
#   OUT                 where the outputs go       (target/table; earlier files there are moved to OUT.prev-<time>/)
#   CHECKPOINT          1 = psql CHECKPOINT before each run (1)
#   RUN_TIMEOUT         seconds before one run is killed (1800)
#   IDLE_MAX            before each run, wait while other processes keep more than this % of all CPUs busy, or
#                       another benchmark has a scratch database on the server (25)
#   IDLE_WAIT           ... but at most this many seconds, then run anyway (600); the figures go to runs.tsv
set -u -o pipefail

usage() { sed -n '2,30p' "$0" | sed 's/^# \{0,1\}//'; exit 2; }
[ $# -le 1 ] || usage
RUNS=${1:-5}
[[ $RUNS =~ ^[1-9][0-9]*$ ]] || usage
HERE=$(dirname "$(readlink -f "$0")")
JAR=$(readlink -f "${JAR:-queue-benchmark/target/queue-benchmark.jar}")
[ -f "$JAR" ] || { echo "no such jar: $JAR (build it: ./mvnw -B -q -pl queue-benchmark -am package -DskipTests)" >&2; exit 2; }
JDBC_URL=${JDBC_URL:-'jdbc:postgresql://127.0.0.1:5432/postgres?user=postgres'}
TASKS_SCALE=${TASKS_SCALE:-1}
scale() { python3 -c "import sys; print(max(1, round(int(sys.argv[1]) * float(sys.argv[2]))))" "$1" "$TASKS_SCALE"; }
TASKS=$(scale "${TASKS:-50000}")
BATCH_TASKS=$(scale "${BATCH_TASKS:-300000}")
WARMUP_TASKS=$(scale "${WARMUP_TASKS:-10000}")
BATCH_WARMUP_TASKS=$(scale "${BATCH_WARMUP_TASKS:-50000}")
OTHERS=${OTHERS-db-scheduler,db-scheduler-defaults,jobrunr}
EXTRA_ARGS=${EXTRA_ARGS:-}
JAVA_OPTS=${JAVA_OPTS:-}
OUT=${OUT:-target/table}
CHECKPOINT=${CHECKPOINT:-1}
RUN_TIMEOUT=${RUN_TIMEOUT:-1800}
IDLE_MAX=${IDLE_MAX:-25}
IDLE_WAIT=${IDLE_WAIT:-600}
ARGS="--workloads=W1 --runs=1 --tasks=$TASKS --batch-tasks=$BATCH_TASKS --warmup-tasks=$WARMUP_TASKS"
ARGS="$ARGS --batch-warmup-tasks=$BATCH_WARMUP_TASKS --raw-batch-sizes=50 --w1-others=$OTHERS $EXTRA_ARGS"

# the quiet-machine gate, PSQL_URL, fresh_out, measured_run
. "$HERE/../lib/machine.sh"

fresh_out "$OUT"
{
	echo "started $(date -Is) on $(hostname), $(nproc) CPUs; $(uptime)"
	echo "jar $JAR sha256 $(sha256sum "$JAR" | cut -c1-16)"
	echo "runs $RUNS jdbc $JDBC_URL checkpoint $CHECKPOINT idle_max $IDLE_MAX% idle_wait ${IDLE_WAIT}s java_opts '$JAVA_OPTS'"
	echo "args $ARGS"
	psql "$PSQL_URL" -Atqc "select 'server: ' || version()"
	psql "$PSQL_URL" -AtqF= -c "select name, setting from pg_settings where name in ('fsync','synchronous_commit','full_page_writes','autovacuum','shared_buffers','max_connections','shared_preload_libraries') order by name" | tr '\n' ' '; echo
} | tee "$OUT/meta.txt"

# every 2 s during a run: this run makes one scratch database at a time, so more is another benchmark's
watch_scratch() { while true; do scratch_count; sleep 2; done; }

printf 'run\tstart\twall_s\texit\tload1_before\tload1_after\tbusy_pct_before\twaited_s\tcpu_busy_s\tjvm_cpu_s\tother_scratch_pct\n' >"$OUT/runs.tsv"
failures=0
for run in $(seq 1 "$RUNS"); do
	file="$OUT/$run.txt"
	read -r busy waited < <(wait_quiet)
	(( busy > IDLE_MAX )) && echo "  note: ${busy}% of the CPUs busy before run $run after waiting ${waited}s; running anyway"
	watch_scratch >"$OUT/.scratch" &
	watcher=$!
	# shellcheck disable=SC2086
	measured_run "$file" "$OUT/$run.stderr" "$JAR" $ARGS
	kill "$watcher" 2>/dev/null; wait "$watcher" 2>/dev/null
	other=$(awk '{n++; if ($1 > 1) o++} END {printf "%d", n ? 100 * o / n : 0}' "$OUT/.scratch"); rm -f "$OUT/.scratch"
	printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$run" "$START" "$WALL" "$RC" "$LOAD0" "$LOAD1" \
		"$busy" "$waited" "$CPUBUSY" "$JVMCPU" "$other" >>"$OUT/runs.tsv"
	echo "run $run/$RUNS: ${WALL}s exit $RC load $LOAD0 -> $LOAD1; busy before ${busy}%; CPU-s: all ${CPUBUSY}," \
		"benchmark JVM ${JVMCPU}; another benchmark's scratch database on the server ${other}% of the time"
	if [ "$RC" != 0 ] || grep -q '^FAILED' "$file"; then
		failures=$((failures + 1))
		echo "  ^ FAILED: see $file and $OUT/$run.stderr" >&2
	fi
done
echo "ended $(date -Is); $(uptime)" | tee -a "$OUT/meta.txt"
echo
python3 "$HERE/table-report.py" "$OUT" | tee "$OUT/report.txt"
[ "$failures" = 0 ] || { echo "$failures run(s) failed" >&2; exit 1; }
