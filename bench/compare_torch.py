#!/usr/bin/env python3
"""Compares `distdoctor bench --json` busbw with bench/torch_busbw.py output, size by size.

Usage: compare_torch.py DISTDOCTOR.json TORCH.json [--min-bytes 1G]. Prints a table and exits 1 when a
ratio at or above --min-bytes is below 0.98.
"""
import json
import sys


def main():
    dd = json.load(open(sys.argv[1]))
    th = json.load(open(sys.argv[2]))
    min_bytes = 1 << 30
    if "--min-bytes" in sys.argv:
        min_bytes = int(sys.argv[sys.argv.index("--min-bytes") + 1])
    # torch's all_reduce, broadcast and reduce work in place; the others take separate buffers.
    in_place = {"all_reduce", "broadcast", "reduce"}
    ours = {(r["collective"], r["bytes"]): r["busbw_gbps"] for r in dd["results"]
            if r["complete"] and r["in_place"] == (r["collective"] in in_place)}
    worst = None
    print(f"{'collective':16} {'bytes':>12} {'distdoctor':>11} {'torch':>9} {'ratio':>7}")
    for r in th["results"]:
        key = (r["collective"], r["bytes"])
        if key not in ours:
            continue
        ratio = ours[key] / r["busbw_gbps"] if r["busbw_gbps"] > 0 else 0
        print(f"{key[0]:16} {key[1]:12d} {ours[key]:11.1f} {r['busbw_gbps']:9.1f} {ratio:7.3f}")
        if key[1] >= min_bytes:
            worst = ratio if worst is None else min(worst, ratio)
    print(f"worst ratio at >= {min_bytes} bytes: {worst}")
    sys.exit(0 if worst is not None and worst >= 0.98 else 1)


if __name__ == "__main__":
    main()
