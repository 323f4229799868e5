#!/usr/bin/env python3
"""The layer rule of docs/architecture.md, checked: an include in src/ may point to its own folder or to a folder
lower in LAYERS, never up; files are touched (read, written, listed, opened) only in the folders named for it,
and processes started only in process/; no function is longer than 60 lines (scripts/function_lengths.py says
how they are counted). Every other folder touches files through a probe::Fs (src/probe/fs.h). Known breaches
are listed in scripts/layer_exceptions.txt, one per line as `FILE -> WHAT` (or `FILE:FUNCTION -> too long`)
with the reason after a `#`: a breach not listed fails `make lint`, and a listed one that is gone fails too (so
the list only shrinks). Tests and their helpers (a file name with "test") may reach anything.

What counts as touching a file (a regular expression over each line, comments and string literals left out):
the POSIX calls that open, stat, list, make or remove a path (opendir, readdir, mkdir, unlink, mkdtemp,
mkfifo, realpath, ...), the C and C++ streams (fopen, std::ifstream, std::ofstream, std::fstream), the
std::filesystem operations (directory_iterator, create_directories, remove_all, exists, status, ...; written
std::filesystem:: or fs::), and common/'s careful openers (write_file_atomically, open_output_file,
make_own_dir, write_target), which are the bottom half of the real Fs. Limits: open, stat, access, remove,
rename, link and truncate count only when written ::open or std::remove (the house style for system calls),
since the names are also our own functions' (Store::remove, a local open()); a call on a descriptor (read,
write, fstat) is not a file access; a std::filesystem::path only names a path.
Usage: scripts/layers.py [--list]   (--list prints every breach found, listed or not)"""
import os
import pathlib
import re
import sys

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
import function_lengths  # noqa: E402

ROOT = pathlib.Path(os.environ.get("DD_LAYERS_ROOT") or pathlib.Path(__file__).resolve().parent.parent)
# Higher number = higher layer. Folders on one rank are peers and may include each other. comm/ is split by
# job: the engines (comm/engine) below running a pass (comm/run: supervisor, worker, deadlines) below what
# uses a pass (comm/: bench output, tuning, the check pass, the cross-node pass).
LAYERS = {
    "cli": 10, "launch": 9, "cluster": 8, "comm": 8, "comm/run": 7.6, "comm/engine": 7.3, "logs": 7,
    "rules": 6, "nccl": 5, "rendezvous": 4, "probe": 3, "process": 2.5, "dynlib": 2, "report": 1, "common": 0,
}
NESTED = {"comm"}  # folders whose sub-folders are layers of their own
# Folders that may touch files themselves: probe/ (the machine, and the real probe::Fs), dynlib/ (libraries it
# loads) and process/ (a child's descriptors: /dev/null, its log, its output, the guard folder it removes).
FILE_FOLDERS = {"probe", "dynlib", "process"}
# common/'s careful openers (.h and .cc), which the real probe::Fs and process/ are built on (below both).
FILE_PRIMITIVES = {"src/common/atomic_file", "src/common/output_file", "src/common/own_dir", "src/common/write_target"}
SPAWNERS = {"process"}                # may fork/exec
MAX_FUNCTION_LINES = 60
INCLUDE = re.compile(r'^\s*#\s*include\s+"((?:[a-z_]+/)+)[^/"]+"')
SPAWN = re.compile(r"\b(fork|vfork|execv|execvp|execve|execl|execlp|posix_spawn|posix_spawnp)\s*\(")
NOT_A_MEMBER = r"(?<![\w.>:])(?:::)?"  # not after `.`, `->` or `Name::` (Store::remove, s.open)
QUALIFIED = r"(?:(?<![\w:])::|\bstd::)"  # ::open, std::remove
STD_FS = r"\b(?:std::filesystem|fs)::"
FILE_ACCESS = {  # what a match does, by kind
    "reads a file": [
        NOT_A_MEMBER + r"\b(lstat|realpath|readlink|faccessat|fstatat|statx)\s*\(",
        QUALIFIED + r"(stat|access)\s*\(", r"\bstd::ifstream\b",
        STD_FS + r"(exists|status|symlink_status|is_directory|is_regular_file|is_symlink|is_fifo|is_empty|"
        r"file_size|last_write_time|canonical|weakly_canonical|equivalent|read_symlink|space)\s*\(",
    ],
    "lists a folder": [
        NOT_A_MEMBER + r"\b(opendir|fdopendir|readdir|scandir|nftw|glob)\s*\(",
        STD_FS + r"(recursive_)?directory_iterator\b",
    ],
    "writes a file": [
        NOT_A_MEMBER + r"\b(mkdir|mkdirat|mkdtemp|mkstemp|mkstemps|mkfifo|mknod|unlink|unlinkat|rmdir|renameat2?|"
        r"symlink|symlinkat|chmod|chown|lchown|utimensat|utimes)\s*\(",
        QUALIFIED + r"(remove|rename|link|truncate)\s*\(", r"\bstd::ofstream\b",
        STD_FS + r"(create_directory|create_directories|create_symlink|create_hard_link|remove|remove_all|"
        r"rename|copy|copy_file|permissions|resize_file|last_write_time)\s*\(",
        NOT_A_MEMBER + r"\b(write_file_atomically|open_output_file|make_own_dir|write_target)\s*\(",
    ],
    "opens a file": [
        NOT_A_MEMBER + r"\b(openat|creat|fopen|freopen|fdopen)\s*\(", QUALIFIED + r"open\s*\(",
        r"\bstd::fstream\b",
    ],
}
FILE_ACCESS = {what: [re.compile(p) for p in patterns] for what, patterns in FILE_ACCESS.items()}
STRING = re.compile(r'"(?:\\.|[^"\\])*"')


def layer_of(parts):
    """The layer key of a path inside src/, as folder names: "probe", "comm", "comm/run"."""
    if parts[0] in NESTED and len(parts) > 2:
        return parts[0] + "/" + parts[1]
    return parts[0]


def file_accesses(code):
    """What a line of code (comment and string literals gone) does to files: "reads a file", ..."""
    return [what for what, patterns in FILE_ACCESS.items() if any(p.search(code) for p in patterns)]


def sources():
    """(path, folder, layer, rel) of each source file of src/ that is not a test or a test's helper."""
    for path in sorted((ROOT / "src").rglob("*")):
        if path.suffix not in (".cc", ".h", ".cu") or "test" in path.name:  # tests and their helpers
            continue
        parts = path.relative_to(ROOT / "src").parts
        yield path, parts[0], layer_of(parts), str(path.relative_to(ROOT))


def breaches():
    found = []
    for path, folder, layer, rel in sources():
        rank = LAYERS.get(layer)
        text = path.read_text(encoding="utf-8", errors="replace")
        for line in text.splitlines():
            code = STRING.sub('""', line).split("//")[0]
            m = INCLUDE.match(line)
            target = layer_of(m.group(1).rstrip("/").split("/") + ["x"]) if m else ""
            if m and rank is not None and LAYERS.get(target, -1) > rank:
                found.append(f"{rel} -> includes {target}/")
            if not m and folder not in FILE_FOLDERS and rel.rsplit(".", 1)[0] not in FILE_PRIMITIVES:
                found += [f"{rel} -> {what}" for what in file_accesses(code)]
            if SPAWN.search(code) and folder not in SPAWNERS:
                found.append(f"{rel} -> starts a process")
        found += [f"{rel}:{name} -> too long" for name, lines in function_lengths.functions(text)
                  if lines > MAX_FUNCTION_LINES]
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
        fix = ("split it into functions of at most 60 lines" if b.endswith("too long") else
               "go through a probe::Fs (src/probe/fs.h)" if "file" in b or "folder" in b else "move the code")
        print(f"layers: {b}: breaks the layer rule (docs/architecture.md); {fix}, or list it with its "
              f"reason in scripts/layer_exceptions.txt")
    for b in gone:
        print(f"layers: {b}: is listed in scripts/layer_exceptions.txt but no longer happens: remove the line")
    if not new and not gone:
        print(f"layers: no new breach ({len(now)} known, listed in scripts/layer_exceptions.txt)")
    return 1 if new or gone else 0


if __name__ == "__main__":
    sys.exit(main())
