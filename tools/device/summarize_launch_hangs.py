#!/usr/bin/env python3
# Compact, path-scrubbed copies of the launch reports tools/device/launch_hangs.sh brought back: per run, the
# exit code, the time from the fault to the launcher's exit and the first findings with their evidence.
# Usage: OUT=DEVICE_OUT_DIR summarize_launch_hangs.py OUTDIR CARD:EXTRACTED_DIR:RUN[,RUN...]...
import json
import os
import re
import sys

# Machine prefixes found by their shape, not named: everything up to a site-packages folder, up to the
# checkout's tools/ folder, the interpreter's bin/, and the device's output folder ($OUT, given or from env).
OUT_DIR = os.environ.get("OUT", "")
PATTERNS = [(re.compile(r"/[^\s\"']*/site-packages/"), "site-packages/"),
            (re.compile(r"/[^\s\"']*/(?=tools/device/)"), ""),
            (re.compile(r"/[^\s\"']*/bin/(?=python)"), "")]


def scrub(x):
    if isinstance(x, str):
        for pattern, new in PATTERNS:
            x = pattern.sub(new, x)
        return x.replace(OUT_DIR + "/", "$OUT/") if OUT_DIR else x
    if isinstance(x, list):
        return [scrub(v) for v in x]
    if isinstance(x, dict):
        return {k: scrub(v) for k, v in x.items()}
    return x


out = sys.argv[1]
os.makedirs(out, exist_ok=True)
for spec in sys.argv[2:]:
    card, root, runs = spec.split(":")
    for run in runs.split(","):
        d = os.path.join(root, run)
        rc, t0, t1 = open(os.path.join(d, "exit_ms")).read().split()
        fault = os.path.join(d, "fault")
        after = (int(t1) - int(open(fault).read())) / 1000 if os.path.exists(fault) else None
        rep = json.load(open(os.path.join(d, "report.json")))
        keep = [{k: f.get(k) for k in ("id", "severity", "title", "rank", "evidence", "fix")}
                for f in rep.get("findings", [])[:2]]
        for f in keep:
            f["evidence"] = [e[:400] for e in (f["evidence"] or [])[:30]]
        doc = {"run": run, "card": card, "exit": int(rc), "s_after_fault": after,
               "s_in_all": (int(t1) - int(t0)) / 1000, "verdict": rep.get("verdict"), "findings": keep}
        with open(os.path.join(out, run + ".json"), "w") as f:
            json.dump(scrub(doc), f, indent=1)
        print(f"{run} ({card}): exit {rc}, {after} s after the fault: {keep[0]['title'][:160] if keep else '-'}")
