"""The speed guard's committed ratios (bench/results/speed_guard_baseline.tsv): read them, and write a run's
ratios into the file (--record), keeping the cases that run did not measure (the GPU part on a CPU-only machine).

File format: '#' lines are comments (the file's own leading ones are kept on --record), then one case a line,
tab-separated: case, ratio, measured median ms, baseline median ms, where and when it was recorded.
"""
import datetime
import os

HEADER = """\
# Committed ratios of bench/speed_guard.sh: per case, the measured command's median wall time over its baseline
# command's median, both run interleaved in the same call on the same data. The guard fails when a case's ratio
# is more than 2x the ratio here; a case not listed prints 'no baseline'. Refresh: bench/speed_guard.sh --record.
# Columns (tab-separated): case, ratio, measured median ms, baseline median ms, recorded (cores, load, date).
"""


def read(path, missing_ok=False):
    """{case: ratio}. A missing file is an error unless missing_ok (the first --record); a bad line is one too."""
    if missing_ok and not os.path.exists(path):
        return {}
    committed = {}
    with open(path) as f:
        for number, line in enumerate(f, 1):
            if not line.strip() or line.startswith("#"):
                continue
            fields = line.rstrip("\n").split("\t")
            try:
                ratio = float(fields[1])
            except (IndexError, ValueError):
                raise ValueError(f"{path}:{number}: want 'case<TAB>ratio<TAB>...', got {line.strip()!r}")
            if not ratio > 0:
                raise ValueError(f"{path}:{number}: ratio {fields[1]} is not above 0")
            committed[fields[0]] = ratio
    return committed


def load_average():
    try:
        with open("/proc/loadavg") as f:
            return " ".join(f.read().split()[:3])
    except OSError:
        return "unknown"


def write(path, rows):
    """Rewrites path with rows' ratios; lines of cases not in rows are kept as they were, in their order."""
    header, kept = HEADER, []
    measured = {r["case"] for r in rows}
    if os.path.exists(path):
        with open(path) as f:
            lines = f.readlines()
        comments = [ln for ln in lines if ln.startswith("#")]
        header = "".join(comments) if comments else HEADER
        kept = [ln for ln in lines if ln.strip() and not ln.startswith("#") and ln.split("\t")[0] not in measured]
    when = f"{os.cpu_count()} cores, load {load_average()}, {datetime.date.today().isoformat()}"
    new = [f"{r['case']}\t{r['ratio']:.3g}\t{r['measured_ms']:.1f}\t{r['baseline_ms']:.1f}\t{when}\n" for r in rows]
    tmp = f"{path}.tmp{os.getpid()}"
    with open(tmp, "w") as f:
        f.write(header + "".join(kept) + "".join(new))
    os.replace(tmp, path)
