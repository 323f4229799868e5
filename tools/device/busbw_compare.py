#!/usr/bin/env python3
"""busbw of distdoctor bench against nccl-tests, per collective, size and mode, over several rounds.

Usage: busbw_compare.py DIR  (DIR holds round<N>/nt_<coll>.txt from nccl-tests and round<N>/dd.json from
`distdoctor bench --json`). Prints a markdown table of the median busbw of each tool over the rounds and
their ratio, then the lowest and the median ratio. Exits 1 when a file is missing or unreadable."""
import glob, json, os, statistics, sys

ORDER = ["all_reduce", "reduce_scatter", "all_gather", "broadcast", "reduce", "alltoall", "sendrecv"]


def collectives(round_dir):
    """The collectives nccl-tests ran in a round (its nt_<coll>.txt files), in the usual order."""
    found = [os.path.basename(p)[3:-4] for p in glob.glob(os.path.join(round_dir, "nt_*.txt"))]
    return sorted(found, key=lambda c: (ORDER.index(c) if c in ORDER else len(ORDER), c))


def size_text(size):
    return "%d GiB" % (size >> 30) if size >= 1 << 30 else "%d MiB" % (size >> 20)


def nccl_tests(path):
    out = {}
    for line in open(path):
        f = line.split()
        if not f or line.startswith("#") or not f[0].isdigit() or len(f) < 13:
            continue
        size = int(f[0])
        out[(size, False)] = float(f[7])   # out-of-place busbw
        out[(size, True)] = float(f[11])   # in-place busbw
    return out


def distdoctor(path):
    j = json.load(open(path))
    out = {}
    for r in j["results"]:
        if r.get("complete"):
            out[(r["collective"], r["bytes"], r["in_place"])] = r["busbw_gbps"]
    return out


def main():
    d = sys.argv[1]
    rounds = sorted(glob.glob(os.path.join(d, "round*")))
    if not rounds:
        sys.exit("no round* directories in " + d)
    nt, dd = {}, {}
    colls = collectives(rounds[0])
    for r in rounds:
        ddr = distdoctor(os.path.join(r, "dd.json"))
        for c in colls:
            for (size, inplace), v in nccl_tests(os.path.join(r, "nt_%s.txt" % c)).items():
                nt.setdefault((c, size, inplace), []).append(v)
        for k, v in ddr.items():
            dd.setdefault(k, []).append(v)
    print("| collective | size | out-of-place: distdoctor / nccl-tests GB/s (ratio) | in-place: distdoctor / nccl-tests (ratio) |")
    print("|---|---|---|---|")
    ratios = []
    for c in colls:
        for size in sorted({k[1] for k in nt if k[0] == c}):
            cells = []
            for inplace in (False, True):
                a, b = dd.get((c, size, inplace)), nt.get((c, size, inplace))
                if not a or not b:
                    cells.append("missing")
                    continue
                ma, mb = statistics.median(a), statistics.median(b)
                ratios.append(ma / mb)
                cells.append("%.1f / %.1f (%.3f)" % (ma, mb, ma / mb))
            print("| %s | %s | %s | %s |" % (c, size_text(size), cells[0], cells[1]))
    if not ratios:
        sys.exit("no sizes in common")
    print("\n%d rounds; medians per cell. Ratio: lowest %.3f, median %.3f, highest %.3f; cells >= 1.000: %d of %d"
          % (len(rounds), min(ratios), statistics.median(ratios), max(ratios), sum(r >= 1.0 for r in ratios), len(ratios)))


if __name__ == "__main__":
    main()
