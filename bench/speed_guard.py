#!/usr/bin/env python3
"""The speed guard's engine (bench/speed_guard.sh makes the data and calls it): runs each case's measured command
and its baseline commands interleaved, takes medians, and compares each ratio (measured median / baseline median)
with the ratio committed for that case in the baseline file; a ratio over LIMIT_FACTOR x the committed one fails.

Usage: speed_guard.py --baseline FILE [--record] [--reps N] (--cases CASES.json | CASE OPTIONS...)
The cases come from bench/speed_guard_cases.py (built from the options) or, for tests, from a JSON list:
  [{"name": "...", "reps": 5, "measured": [argv...], "ok": [0, 1, 2],
    "baselines": [{"name": "...", "argv": [argv...]}], "env": {"VAR": "value"}}]
A measured command's exit code outside "ok" (default [0]), a signal or a time-out fails the guard; so does a
baseline command that exits non-zero. Exit: 0 pass, 1 fail, 3 could not run (bad options, unreadable files).
"""
import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time

import speed_guard_baseline as baseline_file
import speed_guard_cases

LIMIT_FACTOR = 2.0
COMMAND_TIMEOUT_S = 300


class CommandFailed(Exception):
    pass


def timed_run(argv, env, what):
    """Wall seconds of one run of argv, output discarded; raises CommandFailed on a bad exit, a signal, a time-out."""
    # Output goes to a file, not /dev/null: GNU grep stops at the first match when its output is /dev/null.
    with tempfile.TemporaryFile() as out:
        t0 = time.perf_counter()
        try:
            proc = subprocess.run(argv, stdin=subprocess.DEVNULL, stdout=out, stderr=subprocess.PIPE, env=env,
                                  timeout=COMMAND_TIMEOUT_S)
        except subprocess.TimeoutExpired:
            raise CommandFailed(f"{what}: still running after {COMMAND_TIMEOUT_S} s (killed): {' '.join(argv)}")
        except OSError as e:
            raise CommandFailed(f"{what}: could not start: {e}: {' '.join(argv)}")
        seconds = time.perf_counter() - t0
    return seconds, proc.returncode, proc.stderr.decode(errors="replace")[-600:]


def checked_run(argv, env, ok, what):
    seconds, rc, err = timed_run(argv, env, what)
    if rc not in ok:
        how = f"killed by signal {-rc}" if rc < 0 else f"exit {rc}"
        tail = f"\n  stderr: {err.strip()}" if err.strip() else ""
        raise CommandFailed(f"{what}: {how} (allowed: {', '.join(map(str, ok))}): {' '.join(argv)}{tail}")
    return seconds


def measure(case, reps):
    """Runs the case's commands once unmeasured (page cache, first-run costs), then reps rounds, alternating the
    order within a round so that neither side always runs first. Returns {command name: [seconds...]}."""
    env = dict(os.environ, **case.get("env", {}))
    commands = [("measured", case["measured"], case.get("ok", [0]))]
    commands += [(b["name"], b["argv"], [0]) for b in case["baselines"]]
    times = {name: [] for name, _, _ in commands}
    for round_no in range(reps + 1):
        order = commands if round_no % 2 == 0 else list(reversed(commands))
        for name, argv, ok in order:
            what = f"{case['name']}: " + ("measured command" if name == "measured" else f"baseline '{name}'")
            seconds = checked_run(argv, env, ok, what)
            if round_no > 0:
                times[name].append(seconds)
    return times


def rows_of(case, times):
    measured = statistics.median(times["measured"])
    rows = []
    for b in case["baselines"]:
        base = statistics.median(times[b["name"]])
        per_round = [m / x for m, x in zip(times["measured"], times[b["name"]]) if x > 0]
        rows.append({"case": f"{case['name']} / {b['name']}", "measured_ms": measured * 1e3,
                     "baseline_ms": base * 1e3, "ratio": measured / base if base > 0 else float("inf"),
                     "spread": (min(per_round), max(per_round)) if per_round else (0.0, 0.0)})
    return rows


def judge(row, committed):
    """Adds committed, limit and verdict to a row: FAIL over LIMIT_FACTOR x committed, else PASS or no baseline."""
    row["committed"] = committed.get(row["case"])
    if row["committed"] is None:
        row["limit"], row["verdict"] = None, "no baseline"
    else:
        row["limit"] = LIMIT_FACTOR * row["committed"]
        row["verdict"] = "FAIL" if row["ratio"] > row["limit"] else "PASS"
    return row


def print_table(rows):
    def num(v, width):
        return format("-" if v is None else f"{v:.2f}", f">{width}")
    width = max([len("case")] + [len(r["case"]) for r in rows])
    print(f"{'case':<{width}}  {'measured':>10}  {'baseline':>10}  {'ratio':>7}  {'per round':>11}  "
          f"{'committed':>9}  {'limit':>7}  verdict")
    for r in rows:
        spread = f"{r['spread'][0]:.2f}-{r['spread'][1]:.2f}"
        print(f"{r['case']:<{width}}  {r['measured_ms']:>7.1f} ms  {r['baseline_ms']:>7.1f} ms  {r['ratio']:>7.2f}  "
              f"{spread:>11}  {num(r['committed'], 9)}  {num(r['limit'], 7)}  {r['verdict']}")
    sys.stdout.flush()


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--baseline", required=True, help="the committed ratios (bench/results/speed_guard_baseline.tsv)")
    ap.add_argument("--record", action="store_true", help="write this run's ratios into the baseline file")
    ap.add_argument("--reps", type=int, help="rounds per case instead of each case's own number")
    ap.add_argument("--cases", help="a JSON list of cases instead of the built-in ones")
    speed_guard_cases.add_options(ap)
    args = ap.parse_args()
    try:
        committed = baseline_file.read(args.baseline, missing_ok=args.record)
        cases = json.load(open(args.cases)) if args.cases else speed_guard_cases.build(args)
    except (OSError, ValueError) as e:
        print(f"speed guard: could not run: {e}", file=sys.stderr)
        return 3
    print(f"machine: {os.cpu_count()} cores, load {baseline_file.load_average()}; "
          f"limit {LIMIT_FACTOR:g}x the committed ratio ({args.baseline})")
    rows, t0 = [], time.monotonic()
    for case in cases:
        if case.get("skip"):
            print(f"skipped: {case['name']}: {case['skip']}")
            continue
        try:
            times = measure(case, args.reps or case.get("reps", 5))
        except CommandFailed as e:
            if rows:
                print_table(rows)
            print(f"FAIL: {e}")
            return 1
        rows += [judge(r, committed) for r in rows_of(case, times)]
    print_table(rows)
    failed = [r["case"] for r in rows if r["verdict"] == "FAIL"]
    print(f"{len(rows)} cases in {time.monotonic() - t0:.0f} s: {len(failed)} over the limit"
          + (f": {'; '.join(failed)}" if failed else ""))
    if args.record:  # the new ratios replace the committed ones: the verdicts above are against the old ones
        baseline_file.write(args.baseline, rows)
        print(f"recorded {len(rows)} ratios in {args.baseline}")
        return 0
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
