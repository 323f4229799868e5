#!/usr/bin/env python3
"""The layer rule of docs/architecture.md, checked: an include in src/ may point to its own folder or to a folder
lower in LAYERS, never up; reading files (std::ifstream, fopen) and starting processes (fork, exec*, posix_spawn)
happen only in the folders named for them. Known breaches are listed in scripts/layer_exceptions.txt, one per
line as `FILE -> WHAT` with the reason after a `#`: a breach not listed fails `make lint`, and a listed one that
is gone fails too (so the list only shrinks). Tests and their helpers (a file name with "test") may reach anything.
Usage: scripts/layers.py [--list]   (--list prints every breach found, listed or not)"""
import os
import pathlib
import re
import sys

ROOT = pathlib.Path(os.environ.get("DD_LAYERS_ROOT") or pathlib.Path(__file__).resolve().parent.parent)
# Higher number = higher layer. Folders on one rank are peers and may include each other. comm/ is split by
# job: the engines (comm/engine) below running a pass (comm/run: supervisor, worker, deadlines) below what
# uses a pass (comm/: bench output, tuning, the check pass, the cross-node pass).
LAYERS = {
    "cli": 10, "launch": 9, "cluster": 8, "comm": 8, "comm/run": 7.6, "comm/engine": 7.3, "logs": 7,
    "rules": 6, "nccl": 5, "rendezvous": 4, "probe": 3, "process": 2.5, "dynlib": 2, "report": 1, "common": 0,
}
NESTED = {"comm"}  # folders whose sub-folders are layers of their own
READERS = {"probe", "dynlib"}         # may open files of the machine
SPAWNERS = {"process"}                # may fork/exec
INCLUDE = re.compile(r'^\s*#\s*include\s+"((?:[a-z_]+/)+)[^/"]+"')
READ = re.compile(r"\b(std::ifstream|fopen)\s*[({<]|\bstd::ifstream\b")
SPAWN = re.compile(r"\b(fork|vfork|execv|execvp|execve|execl|execlp|posix_spawn|posix_spawnp)\s*\(")


def layer_of(parts):
    """The layer key of a path inside src/, as folder names: "probe", "comm", "comm/run"."""
    if parts[0] in NESTED and len(parts) > 2:
        return parts[0] + "/" + parts[1]
    return parts[0]


def breaches():
    found = []
    for path in sorted((ROOT / "src").rglob("*")):
        if path.suffix not in (".cc", ".h", ".cu") or "test" in path.name:  # tests and their helpers
            continue
        parts = path.relative_to(ROOT / "src").parts
        folder, layer = parts[0], layer_of(parts)
        rel = str(path.relative_to(ROOT))
        rank = LAYERS.get(layer)
        for line in path.read_text(encoding="utf-8", errors="replace").splitlines():
            code = line.split("//")[0]
            m = INCLUDE.match(line)
            target = layer_of(m.group(1).rstrip("/").split("/") + ["x"]) if m else ""
            if m and rank is not None and LAYERS.get(target, -1) > rank:
                found.append(f"{rel} -> includes {target}/")
            if READ.search(code) and folder not in READERS:
                found.append(f"{rel} -> reads a file")
            if SPAWN.search(code) and folder not in SPAWNERS:
                found.append(f"{rel} -> starts a process")
    return sorted(set(found))


def main():
    now = breaches()
    if "--list" in sys.argv:
        print("\n".join(now))
        return 0
    listed = {}
    for line in (ROOT / "scripts/layer_exceptions.txt").read_text().splitlines():
        entry = line.split("#")[0].strip()
        if entry:
            listed[entry] = line
    new = [b for b in now if b not in listed]
    gone = [b for b in listed if b not in now]
    for b in new:
        print(f"layers: {b}: breaks the layer rule (docs/architecture.md); move the code, or list it with its "
              f"reason in scripts/layer_exceptions.txt")
    for b in gone:
        print(f"layers: {b}: is listed in scripts/layer_exceptions.txt but no longer happens: remove the line")
    if not new and not gone:
        print(f"layers: no new breach ({len(now)} known, listed in scripts/layer_exceptions.txt)")
    return 1 if new or gone else 0


if __name__ == "__main__":
    sys.exit(main())
