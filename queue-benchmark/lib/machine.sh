# What run-ab.sh and run-table.sh share, sourced by both: the quiet-machine gate before a run, the psql URL of the
# server, the outputs folder, and one measured run of the benchmark. Uses IDLE_MAX, IDLE_WAIT, RUN_TIMEOUT, JAVA_OPTS
# and JDBC_URL from the sourcing script.

HZ=$(getconf CLK_TCK)

# busy and total jiffies of all CPUs (idle and iowait count as idle)
cpu_jiffies() { awk '/^cpu /{t=0; for(i=2;i<=NF;i++) t+=$i; print t-$5-$6, t; exit}' /proc/stat; }

# % of all CPUs busy over $1 seconds (nothing of ours runs meanwhile)
busy_pct() {
	local b0 t0 b1 t1
	read -r b0 t0 < <(cpu_jiffies); sleep "$1"; read -r b1 t1 < <(cpu_jiffies)
	echo $(( (b1 - b0) * 100 / (t1 - t0 > 0 ? t1 - t0 : 1) ))
}

# how many taskqueue_bench_* databases have connections (leftovers of killed runs have none): before a run of ours,
# any is another benchmark's
scratch_count() {
	psql "$PSQL_URL" -Atqc "select count(distinct datname) from pg_stat_activity where datname like 'taskqueue_bench_%'" \
		2>/dev/null || echo 0
}

# taskqueue_bench_* databases on the server, with connections or not
scratch_left() { psql "$PSQL_URL" -Atqc "select count(*) from pg_database where datname like 'taskqueue_bench_%'"; }

# waits until the machine is quiet (IDLE_MAX) and no other benchmark is draining on the server, or IDLE_WAIT has
# passed; prints "busy% waited_s"
wait_quiet() {
	local busy waited=0
	busy=$(busy_pct 3)
	while (( (busy > IDLE_MAX || $(scratch_count) > 0) && waited < IDLE_WAIT )); do
		sleep 7; waited=$((waited + 10)); busy=$(busy_pct 3)
	done
	echo "$busy $waited"
}

# PSQL_URL from JDBC_URL (host, port, database, user; trust auth assumed); exits when the server cannot be reached
PSQL_URL=$(python3 - "$JDBC_URL" <<'PY'
import re, sys, urllib.parse
m = re.match(r'jdbc:postgresql://([^/]+)/([^?]*)(?:\?(.*))?$', sys.argv[1])
if not m:
    sys.exit("cannot read JDBC_URL " + sys.argv[1])
q = urllib.parse.parse_qs(m.group(3) or '')
print(f"postgresql://{q.get('user', ['postgres'])[0]}@{m.group(1)}/{m.group(2) or 'postgres'}")
PY
) || exit 2
psql "$PSQL_URL" -Atqc 'select 1' >/dev/null || { echo "cannot reach $PSQL_URL" >&2; exit 2; }

# makes $1 and moves what an earlier invocation left there to $1.prev-<time>/
fresh_out() {
	mkdir -p "$1"
	if [ -n "$(ls -A "$1")" ]; then
		local prev
		prev="$1.prev-$(date +%Y%m%d-%H%M%S)"
		mkdir -p "$prev" && mv "$1"/* "$prev"/
		echo "earlier outputs moved to $prev"
	fi
}

# measured_run OUTPUT STDERR JAR ARGS...: one fresh JVM of the benchmark against JDBC_URL, after a CHECKPOINT when
# CHECKPOINT=1; sets RC, LOAD0 and LOAD1 (1-min load before and after), WALL (s), CPUBUSY (CPU-seconds of the whole
# machine) and JVMCPU (CPU-seconds of the benchmark's JVM); an empty STDERR file is removed
measured_run() {
	local output=$1 stderr=$2 jar=$3 t0 t1 cb0 cb1 times
	shift 3
	[ "$CHECKPOINT" = 1 ] && psql "$PSQL_URL" -Atqc 'CHECKPOINT' >/dev/null
	LOAD0=$(cut -d' ' -f1 /proc/loadavg)
	read -r cb0 _ < <(cpu_jiffies)
	t0=$(date +%s.%N)
	times=$(mktemp)
	# shellcheck disable=SC2086
	/usr/bin/time -o "$times" -f '%U %S' timeout "$RUN_TIMEOUT" java $JAVA_OPTS -jar "$jar" "$@" \
		--jdbc-url="$JDBC_URL" >"$output" 2>"$stderr"
	RC=$?
	t1=$(date +%s.%N)
	read -r cb1 _ < <(cpu_jiffies)
	LOAD1=$(cut -d' ' -f1 /proc/loadavg)
	START=$(date -d @"${t0%.*}" +%T)
	WALL=$(python3 -c "print(f'{$t1 - $t0:.1f}')")
	CPUBUSY=$(python3 -c "print(f'{($cb1 - $cb0) / $HZ:.1f}')")
	JVMCPU=$(tail -1 "$times" | awk '{printf "%.1f", $1 + $2}'); rm -f "$times"
	[ -s "$stderr" ] || rm -f "$stderr"
}
