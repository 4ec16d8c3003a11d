#!/usr/bin/env python3
"""Reads the outputs of run-ab.sh (<round>-<side>-<workload>.txt in one directory) and prints, for each figure:
the median TaskQueue rate before and after, after/before of those medians, the median of the per-round
after/before ratios (the interleaved pairs), and the same-run baseline ratio (library rate / its baseline's rate in
the same JVM run) before and after.

    ab-report.py [OUT_DIR]        (default target/ab; THRESHOLD=0.97 sets the bar that is flagged)
"""
import os
import re
import statistics
import sys
from collections import defaultdict

out = sys.argv[1] if len(sys.argv) > 1 else "target/ab"
threshold = float(os.environ.get("THRESHOLD", "0.97"))

FILE = re.compile(r"^(\d+)-(before|after)-(W\d)\.txt$")
RATE = re.compile(r" rate=([0-9.]+)/s")
BASE = re.compile(r" baseline=([^ (]+)\(([0-9.]+)/s\)")
LOAD = re.compile(r"^# (W\d) run \d+ (starts|ends); load average \(1 min\) ([0-9.]+)")

# figure -> side -> round -> (rate, baseline name, baseline rate)
data = defaultdict(lambda: defaultdict(dict))
loads = defaultdict(list)  # side -> loads read by the benchmark at run start/end
failed = []
rounds = set()


def figure(workload, label):
    """A short name for a RESULT line's label, or None for lines that are not compared."""
    mode = re.search(r"\bmode=(\w+)", label)
    if workload == "W1":
        if mode:
            return f"W1 {mode.group(1)}"
        base = re.search(r"\bbaseline=(\S+)", label)
        return f"W1 baseline {base.group(1)}" if base else None
    if workload == "W6" and mode:
        return f"W6 {mode.group(1)} " + ("keys" if re.search(r"\bkeys=\d+", label) else "no-keys")
    return None


for name in sorted(os.listdir(out)):
    m = FILE.match(name)
    if not m:
        continue
    rnd, side, workload = int(m.group(1)), m.group(2), m.group(3)
    rounds.add(rnd)
    with open(os.path.join(out, name)) as f:
        for line in f:
            line = line.rstrip("\n")
            if line.startswith("FAILED"):
                failed.append(f"{name}: {line}")
            lm = LOAD.match(line)
            if lm:
                loads[side].append(float(lm.group(3)))
            if not line.startswith(f"RESULT {workload} "):
                continue
            rate = RATE.search(line)
            if not rate:
                continue
            body = line[len(f"RESULT {workload} "):]
            fig = figure(workload, body[: rate.start()])
            if fig is None:
                continue
            base = BASE.search(line)
            data[fig][side][rnd] = (float(rate.group(1)), base.group(1) if base else None,
                                    float(base.group(2)) if base else None)


def med(values):
    return statistics.median(values) if values else float("nan")


def fmt(x, pattern="{:.0f}"):
    return "-" if x != x else pattern.format(x)


ORDER = ["W1 transactional", "W1 grouped", "W1 batched", "W6 transactional keys", "W6 grouped keys",
         "W6 batched keys", "W6 transactional no-keys", "W6 grouped no-keys", "W6 batched no-keys",
         "W1 baseline raw-1-per-tx", "W1 baseline raw-batch-50"]
figs = sorted(data, key=lambda f: (ORDER.index(f) if f in ORDER else len(ORDER), f))
criterion = set(ORDER[:6])

print(f"A/B report of {out}: {len(rounds)} round(s); rates in tasks/s; ratio = after / before")
print("  median-ratio: after/before of the medians (the issue's figure);"
      " pair-ratio: median of each round's after/before")
print("  same-run: the benchmark's ratio, library rate / its baseline's rate in the same JVM run"
      " (W1: raw-1-per-tx or raw-batch-50; W6 keys: the same mode without keys)")
print()
head = ("figure", "n", "before", "after", "median-ratio", "pair-ratio", "pair-ratios by round", "same-run b/a",
        "same-run ratio", "")
rows = [head]
for fig in figs:
    before, after = data[fig]["before"], data[fig]["after"]
    b = [v[0] for v in before.values()]
    a = [v[0] for v in after.values()]
    pairs = [after[r][0] / before[r][0] for r in sorted(rounds) if r in before and r in after]
    ratio = med(a) / med(b) if b and a else float("nan")
    pair = med(pairs)
    sb = [v[0] / v[2] for v in before.values() if v[2]]
    sa = [v[0] / v[2] for v in after.values() if v[2]]
    same = f"{fmt(med(sb), '{:.3f}')}/{fmt(med(sa), '{:.3f}')}" if sb or sa else ""
    same_ratio = fmt(med(sa) / med(sb), "{:.3f}") if sb and sa else ""
    flag = ""
    if fig in criterion:
        flag = "ok" if ratio >= threshold else f"BELOW {threshold}"
    rows.append((fig, str(len(pairs)), fmt(med(b)), fmt(med(a)), fmt(ratio, "{:.3f}"), fmt(pair, "{:.3f}"),
                 " ".join(f"{p:.3f}" for p in pairs), same, same_ratio, flag))
widths = [max(len(r[i]) for r in rows) for i in range(len(head))]
for r in rows:
    print("  ".join(c.ljust(w) if i in (0, 6, 9) else c.rjust(w) for i, (c, w) in enumerate(zip(r, widths))).rstrip())
print()
for side in ("before", "after"):
    if loads[side]:
        print(f"load average (1 min) read by the {side} runs: median {med(loads[side]):.2f},"
              f" max {max(loads[side]):.2f}")
runs_tsv = os.path.join(out, "runs.tsv")
if os.path.exists(runs_tsv):
    with open(runs_tsv) as f:
        header = f.readline().rstrip("\n").split("\t")
        runs = [dict(zip(header, line.rstrip("\n").split("\t"))) for line in f if line.strip()]

    def column(side, workload, name):
        return [float(r[name]) for r in runs if r["side"] == side and r["workload"] == workload and r.get(name)]

    total = sum(float(r["wall_s"]) for r in runs) + sum(float(r.get("waited_s") or 0) for r in runs)
    print(f"runs.tsv: {len(runs)} runs, {total / 60:.1f} min of runs and waits")
    for workload in sorted({r["workload"] for r in runs}):
        for side in ("before", "after"):
            line = f"  {workload} {side:6}: wall median {med(column(side, workload, 'wall_s')):.0f}s"
            if "busy_pct_before" in header:
                others = [b - j for b, j in zip(column(side, workload, "cpu_busy_s"),
                                                column(side, workload, "jvm_cpu_s"))]
                line += (f", CPUs busy before the run median {med(column(side, workload, 'busy_pct_before')):.0f}%"
                         f" max {max(column(side, workload, 'busy_pct_before'), default=float('nan')):.0f}%"
                         f", CPU-s outside the benchmark JVM during the run (PostgreSQL and others)"
                         f" median {med(others):.0f}")
            print(line)
missing = [f for f in criterion if f not in data]
if missing:
    print("missing figures: " + ", ".join(sorted(missing)))
for line in failed:
    print(line)
