#!/usr/bin/env python3
"""Reads the outputs of run-table.sh (<run>.txt and runs.tsv in one directory) and prints issue 30's W1 table: each
contender's median rate and JVM CPU per task, then each ratio as the median of the per-run ratios (each run's
library figure over its baseline or peer measured in the same JVM run), with the target it is held to, and the
machine's load around each run.

    table-report.py [OUT_DIR]        (default target/table)
"""
import csv
import os
import re
import statistics
import sys
from collections import defaultdict

out = sys.argv[1] if len(sys.argv) > 1 else "target/table"
FILE = re.compile(r"^(\d+)\.txt$")
NAME = re.compile(r"^RESULT W1 drain (?:baseline|contender|mode)=(\S+)")
TASKS = re.compile(r" tasks=(\d+)")
METRIC = re.compile(r" (rate|jvm-cpu|cpu-ratio|ratio|vs-[\w-]+)=([0-9.]+)")

# contender -> run -> {metric: value}
data = defaultdict(dict)
tasks = {}
failed = []
runs = []
complete = set()
tsv = os.path.join(out, "runs.tsv")
if os.path.exists(tsv):
    with open(tsv) as f:
        complete = {int(row["run"]) for row in csv.DictReader(f, delimiter="\t")}
for name in sorted(os.listdir(out), key=lambda n: (len(n), n)):
    m = FILE.match(name)
    if not m:
        continue
    run = int(m.group(1))
    if complete and run not in complete:
        continue  # still running
    runs.append(run)
    with open(os.path.join(out, name)) as f:
        for line in f:
            if line.startswith("FAILED"):
                failed.append(f"{name}: {line.strip()}")
            n = NAME.match(line)
            if not n:
                continue
            contender = n.group(1)
            tasks[contender] = int(TASKS.search(line).group(1))
            data[contender][run] = {k: float(v) for k, v in METRIC.findall(line)}


def series(contender, metric):
    return [data[contender][r][metric] for r in runs if r in data[contender] and metric in data[contender][r]]


def fmt(values, digits):
    return " / ".join(f"{v:.{digits}f}" for v in values)


print(f"runs: {len(runs)} ({out})")
print()
print("| contender | tasks | tasks/s, median (runs) | JVM CPU µs/task, median (runs) |")
print("|---|---|---|---|")
for contender in data:
    rates, cpus = series(contender, "rate"), series(contender, "jvm-cpu")
    print(f"| {contender} | {tasks[contender]:,} | {statistics.median(rates):,.0f} ({fmt(rates, 0)}) | "
          f"{statistics.median(cpus):.0f} ({fmt(cpus, 0)}) |")
print()

TARGETS = [
    ("transactional", "ratio", "TRANSACTIONAL / raw-delete-returning (one-statement loop)", ">= 1.0"),
    ("transactional", "vs-db-scheduler", "TRANSACTIONAL / db-scheduler tuned (lock-and-fetch 0.5/4.0)", ">= 1.1"),
    ("transactional", "vs-db-scheduler-defaults", "TRANSACTIONAL / db-scheduler as it comes", None),
    ("transactional", "vs-jobrunr", "TRANSACTIONAL / JobRunr", None),
    ("transactional", "cpu-ratio", "TRANSACTIONAL JVM CPU per task / the one-statement loop's", "<= 1.2"),
    ("grouped", "ratio", "group commit of 20 / raw-batch-50", ">= 0.7"),
    ("grouped", "cpu-ratio", "group commit JVM CPU per task / raw-batch-50's", None),
    ("batched", "ratio", "BATCHED / raw-batch-50", ">= 0.9"),
    ("batched", "cpu-ratio", "BATCHED JVM CPU per task / raw-batch-50's", None),
    ("db-scheduler", "ratio", "db-scheduler tuned / raw-delete-returning", None),
    ("db-scheduler-defaults", "ratio", "db-scheduler as it comes / raw-delete-returning", None),
    ("jobrunr", "ratio", "JobRunr / raw-delete-returning", None),
]
print("| ratio | median of the runs' ratios (runs) | target | met |")
print("|---|---|---|---|")
for contender, metric, label, target in TARGETS:
    values = series(contender, metric)
    if not values:
        continue
    median = statistics.median(values)
    met = ""
    if target:
        op, bound = target.split()
        met = "yes" if (median >= float(bound) if op == ">=" else median <= float(bound)) else "**no**"
    print(f"| {label} | {median:.2f} ({fmt(values, 2)}) | {target or ''} | {met} |")
print()

if os.path.exists(tsv):
    print("| run | start | wall s | load (1 min) before → after | CPUs busy before | CPU-s all / benchmark JVM "
          "| another benchmark on the server |")
    print("|---|---|---|---|---|---|---|")
    with open(tsv) as f:
        for row in csv.DictReader(f, delimiter="\t"):
            other = f"{row['other_scratch_pct']} % of the run" if row.get("other_scratch_pct") else "not recorded"
            print(f"| {row['run']} | {row['start']} | {row['wall_s']} | {row['load1_before']} → {row['load1_after']} | "
                  f"{row['busy_pct_before']} % (waited {row['waited_s']} s) | {row['cpu_busy_s']} / {row['jvm_cpu_s']} "
                  f"| {other} |")
if failed:
    print()
    print("FAILED lines:")
    for line in failed:
        print("  " + line)
