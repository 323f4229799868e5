"""The speed guard's cases: what is measured against what (bench/speed_guard.py runs them).

Each case is one distdoctor command and the baselines it is measured against, on the same data in the same call:
  - `logs` on one large generated NCCL log on one core, against `grep -c NCCL` and `wc -l` of the same file;
  - `logs` on many files on all cores, against `grep -c NCCL` of the same files on all cores (xargs -P), so that
    the ratio means the same on 2 cores and on 64;
  - `check` on this node, against `distdoctor --version`: the floor of any run of the binary (loading it and its
    libraries, static start-up), which `true` would not be; and against `nvidia-smi -L` where there are GPUs.
    The ratio of `check` depends on the GPUs (NVML), so the case's name holds their number;
  - that floor itself, `distdoctor --version` against `true` (the smallest process start): a start-up that grew
    would slow `check` and `--version` alike and hide in the ratio above;
  - `check --collectives` on N GPUs, against nccl-tests' `all_reduce_perf -b 1M -e 1M -g N -n 1 -w 0` in one
    process: CUDA init of N GPUs, a communicator and one operation, the floor of any NCCL check.
`check` runs with --local so that a launcher's environment (srun, mpirun) cannot turn it into a cluster check.
"""
import math

DD_VERDICTS = [0, 1, 2]  # distdoctor's exit codes that are verdicts; 3 (could not run) or a signal fails


def gpus_phrase(n):
    return f"{n} GPU" + ("" if n == 1 else "s")


def add_options(ap):
    ap.add_argument("--bin", help="the distdoctor binary under test")
    ap.add_argument("--big", help="one large NCCL log")
    ap.add_argument("--many", help="a folder of many NCCL logs")
    ap.add_argument("--size-mb", type=int, default=0, help="size of --big and of --many in all (for the names)")
    ap.add_argument("--files", type=int, default=0, help="number of files in --many (for the names)")
    ap.add_argument("--cores", type=int, default=1, help="cores for the parallel baseline")
    ap.add_argument("--gpus", type=int, default=0, help="GPUs on this node (nvidia-smi -L); 0: none")
    ap.add_argument("--collective-gpus", type=int, default=0, help="GPUs for check --collectives")
    ap.add_argument("--all-reduce", default="", help="nccl-tests' all_reduce_perf; empty: GPU part skipped")
    ap.add_argument("--cpu", action="store_true", help="only the CPU part")


def logs_cases(a):
    one = {"name": f"logs one {a.size_mb} MB file, --jobs 1", "reps": 11,
           "measured": [a.bin, "logs", "--brief", "--jobs", "1", a.big], "ok": DD_VERDICTS,
           "baselines": [{"name": "grep -c NCCL", "argv": ["grep", "-c", "NCCL", a.big]},
                         {"name": "wc -l", "argv": ["wc", "-l", a.big]}]}
    per_core = max(1, math.ceil(a.files / max(1, a.cores)))
    grep_all_cores = 'find "$1" -type f -print0 | xargs -0 -P "$2" -n "$3" grep -c NCCL'
    parallel_grep = ["bash", "-o", "pipefail", "-c", grep_all_cores, "bash", a.many, str(a.cores), str(per_core)]
    many = {"name": f"logs {a.files} files ({a.size_mb} MB), all cores", "reps": 11,
            "measured": [a.bin, "logs", "--brief", a.many], "ok": DD_VERDICTS,
            "baselines": [{"name": "grep -c NCCL on all cores", "argv": parallel_grep}]}
    return [one, many]


def check_case(a):
    where = gpus_phrase(a.gpus) if a.gpus else "no GPU"
    baselines = [{"name": "distdoctor --version", "argv": [a.bin, "--version"]}]
    if a.gpus:
        baselines.append({"name": "nvidia-smi -L", "argv": ["nvidia-smi", "-L"]})
    return {"name": f"check --json, {where}", "reps": 31, "measured": [a.bin, "check", "--local", "--json"],
            "ok": DD_VERDICTS, "baselines": baselines}


def start_up_case(a):
    return {"name": "start-up: distdoctor --version", "reps": 31, "measured": [a.bin, "--version"],
            "baselines": [{"name": "true", "argv": ["true"]}]}


def collectives_case(a):
    name = "check --collectives"
    if a.cpu:
        return {"name": name, "skip": "GPU part not run (--cpu)"}
    if a.collective_gpus < 1 or not a.all_reduce:
        return {"name": name, "skip": "no GPU / no nccl-tests"}
    n = a.collective_gpus
    case = {"name": f"check --collectives, {gpus_phrase(n)}", "reps": 5,
            "measured": [a.bin, "check", "--local", "--collectives"], "ok": DD_VERDICTS,
            "baselines": [{"name": f"all_reduce_perf -g {n}",
                           "argv": [a.all_reduce, "-b", "1M", "-e", "1M", "-g", str(n), "-n", "1", "-w", "0"]}]}
    if n < a.gpus:  # both see the same first n GPUs
        case["env"] = {"CUDA_VISIBLE_DEVICES": ",".join(str(i) for i in range(n))}
    return case


def build(a):
    missing = [o for o in ("bin", "big", "many") if not getattr(a, o)]
    if missing:
        raise ValueError("without --cases, give " + ", ".join("--" + o for o in missing))
    return logs_cases(a) + [check_case(a), start_up_case(a), collectives_case(a)]
