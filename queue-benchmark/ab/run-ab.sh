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
#   IDLE_MAX      before each run, wait while other processes keep more than this % of all CPUs busy (25; 100 = never)
#   IDLE_WAIT     ... but at most this many seconds, then run anyway (600); the figures go to runs.tsv
set -u -o pipefail

usage() { sed -n '2,27p' "$0" | sed 's/^# \{0,1\}//'; exit 2; }
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

# busy and total jiffies of all CPUs (idle and iowait count as idle)
cpu_jiffies() { awk '/^cpu /{t=0; for(i=2;i<=NF;i++) t+=$i; print t-$5-$6, t; exit}' /proc/stat; }
# % of all CPUs busy over $1 seconds (nothing of ours runs meanwhile)
busy_pct() {
	local b0 t0 b1 t1
	read -r b0 t0 < <(cpu_jiffies); sleep "$1"; read -r b1 t1 < <(cpu_jiffies)
	echo $(( (b1 - b0) * 100 / (t1 - t0 > 0 ? t1 - t0 : 1) ))
}
# waits until the machine is quiet (IDLE_MAX) or IDLE_WAIT has passed; prints "busy% waited_s"
wait_quiet() {
	local busy waited=0
	busy=$(busy_pct 3)
	while (( busy > IDLE_MAX && waited < IDLE_WAIT )); do
		sleep 7; waited=$((waited + 10)); busy=$(busy_pct 3)
	done
	echo "$busy $waited"
}
HZ=$(getconf CLK_TCK)

# psql URL from the JDBC URL (host, port, database, user; trust auth assumed)
PSQL_URL=$(python3 - "$JDBC_URL" <<'EOF'
import re, sys, urllib.parse
m = re.match(r'jdbc:postgresql://([^/]+)/([^?]*)(?:\?(.*))?$', sys.argv[1])
if not m:
    sys.exit("cannot read JDBC_URL " + sys.argv[1])
q = urllib.parse.parse_qs(m.group(3) or '')
user = q.get('user', ['postgres'])[0]
print(f"postgresql://{user}@{m.group(1)}/{m.group(2) or 'postgres'}")
EOF
) || exit 2
psql "$PSQL_URL" -Atqc 'select 1' >/dev/null || { echo "cannot reach $PSQL_URL" >&2; exit 2; }

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

mkdir -p "$OUT"
if [ -n "$(ls -A "$OUT")" ]; then
	PREV="$OUT.prev-$(date +%Y%m%d-%H%M%S)"
	mkdir -p "$PREV" && mv "$OUT"/* "$PREV"/
	echo "earlier outputs moved to $PREV"
fi

scratch_left() { psql "$PSQL_URL" -Atqc "select count(*) from pg_database where datname like 'taskqueue_bench_%'"; }
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
			[ "$CHECKPOINT" = 1 ] && psql "$PSQL_URL" -Atqc 'CHECKPOINT' >/dev/null
			load0=$(cut -d' ' -f1 /proc/loadavg)
			read -r cb0 _ < <(cpu_jiffies)
			t0=$(date +%s.%N)
			# shellcheck disable=SC2086
			/usr/bin/time -o "$OUT/.time" -f '%U %S' timeout "$RUN_TIMEOUT" java $JAVA_OPTS -jar "$jar" $(args_for "$w") \
				$EXTRA_ARGS --jdbc-url="$JDBC_URL" >"$file" 2>"$OUT/$round-$side-$w.stderr"
			rc=$?
			t1=$(date +%s.%N)
			read -r cb1 _ < <(cpu_jiffies)
			load1=$(cut -d' ' -f1 /proc/loadavg)
			wall=$(python3 -c "print(f'{$t1 - $t0:.1f}')")
			cpubusy=$(python3 -c "print(f'{($cb1 - $cb0) / $HZ:.1f}')")
			jvmcpu=$(tail -1 "$OUT/.time" | awk '{printf "%.1f", $1 + $2}'); rm -f "$OUT/.time"
			[ -s "$OUT/$round-$side-$w.stderr" ] || rm -f "$OUT/$round-$side-$w.stderr"
			printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$round" "$side" "$w" "$(date -d @"${t0%.*}" +%T)" "$wall" "$rc" \
				"$load0" "$load1" "$busy" "$waited" "$cpubusy" "$jvmcpu" >>"$OUT/runs.tsv"
			echo "round $round/$ROUNDS $w $side: ${wall}s exit $rc load $load0 -> $load1; busy before ${busy}%;" \
				"CPU-s: all ${cpubusy}, benchmark JVM ${jvmcpu}"
			if [ "$rc" != 0 ] || grep -q '^FAILED' "$file"; then
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
