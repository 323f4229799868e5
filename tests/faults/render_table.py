#!/usr/bin/env python3
"""Fault matrix: turns the cells' result files into the markdown table (fault x phase) and the exit code.

Usage: render_table.py CELLS_TXT RUN_DIR WALL_SECONDS [FILTERS]. A result file RUN_DIR/PHASE.FAULT/result
holds one line: STATUS<TAB>SECONDS<TAB>DETAIL (pass, fail, hang or skip). Exit 1 when a cell that should
pass did not, or any cell hung."""
import os
import sys

PHASES = ["before", "join", "mesh", "coll", "bench", "launch"]
PHASE_TITLES = {
    "before": "before rendezvous", "join": "during rendezvous", "mesh": "during the mesh test",
    "coll": "during Gloo collectives", "bench": "during bench (Gloo, 2 nodes)", "launch": "during launch (2 nodes)",
}


def read_cells(path):
    cells, faults = {}, []
    for line in open(path):
        line = line.strip()
        if not line or line.startswith("#"):
            continue
        parts = line.split(None, 3)
        phase, fault, status = parts[0], parts[1], parts[2]
        note = parts[3] if len(parts) > 3 else ""
        cells[(phase, fault)] = (status, note)
        if fault not in faults:
            faults.append(fault)
    return cells, faults


def read_result(run_dir, phase, fault):
    path = os.path.join(run_dir, f"{phase}.{fault}", "result")
    if not os.path.exists(path):
        return None
    status, secs, detail = (open(path).readline().rstrip("\n").split("\t") + ["", ""])[:3]
    return status, secs, detail


def verdict(planned, result):
    """The cell's outcome word: pass, FAIL, HANG, xfail, XPASS, skip, n/a or not run."""
    if planned == "na":
        return "n/a"
    if result is None:
        return "not run"
    status = result[0]
    if status == "hang":
        return "HANG"
    if status == "skip":
        return "skip"
    if planned == "xfail":
        return "XPASS" if status == "pass" else "xfail"
    return "pass" if status == "pass" else "FAIL"


def main():
    cells, faults = read_cells(sys.argv[1])
    run_dir, wall = sys.argv[2], sys.argv[3]
    filters = sys.argv[4] if len(sys.argv) > 4 else ""
    rows, counts, slowest = [], {}, (0.0, "")
    for fault in faults:
        for phase in PHASES:
            if (phase, fault) not in cells:
                continue
            planned, note = cells[(phase, fault)]
            result = read_result(run_dir, phase, fault)
            word = verdict(planned, result)
            if filters and word == "not run":
                continue
            counts[word] = counts.get(word, 0) + 1
            secs = result[1] if result else "-"
            try:
                if float(secs) > slowest[0]:
                    slowest = (float(secs), f"{fault} {PHASE_TITLES[phase]}")
            except ValueError:
                pass
            rows.append((fault, phase, word, secs, note, result[2] if result else ""))
    out = print
    out("# Fault matrix (issue 13)\n")
    out("Written by `tests/faults/run_matrix.sh build/distdoctor > bench/results/faults.md` (run as root: network")
    out("namespaces, no GPU; ctest runs it as `faults_matrix_test`). Each cell builds its own namespace nodes")
    out("(198.18.0.0/15), starts the phase, injects the fault, and passes when every surviving process ended within")
    out("its deadline, with the expected exit code and a finding that names the cause and the node or rank, leaving")
    out("no process (scan of /proc for the cell's marker) and nothing in the cell's own TMPDIR. Time to detection:")
    out("seconds from the fault to the end of the last surviving process. Each cell has a hard outer timeout; a cell")
    out("that reaches it is a HANG. `xfail`: a known defect left to the lead (the note says which).\n")
    summary = ", ".join(f"{v} {k}" for k, v in sorted(counts.items()))
    out(f"Cells: {summary}; hangs: {counts.get('HANG', 0)}; wall time {wall} s; slowest detection "
        f"{slowest[0]:.1f} s ({slowest[1]}).\n")
    out("| fault | " + " | ".join(PHASE_TITLES[p] for p in PHASES) + " |")
    out("|---|" + "---|" * len(PHASES))
    for fault in faults:
        line = []
        for phase in PHASES:
            match = [r for r in rows if r[0] == fault and r[1] == phase]
            if not match:
                line.append("")
            elif match[0][2] in ("pass", "XPASS", "xfail", "FAIL") and match[0][3] not in ("-", ""):
                line.append(f"{match[0][2]} {match[0][3]} s")
            else:
                line.append(match[0][2])
        out(f"| {fault} | " + " | ".join(line) + " |")
    out("\n| phase | fault | result | detection (s) | expected finding, or why n/a / xfail | what happened |")
    out("|---|---|---|---|---|---|")
    for fault, phase, word, secs, note, detail in rows:
        expected = note if word in ("n/a", "xfail", "XPASS") or not detail or word != "pass" else detail
        happened = "" if word == "pass" else detail
        out(f"| {phase} | {fault} | {word} | {secs} | {expected.replace('|', '/')} | {happened.replace('|', '/')} |")
    bad = counts.get("FAIL", 0) + counts.get("HANG", 0)
    sys.exit(1 if bad else 0)


if __name__ == "__main__":
    main()
