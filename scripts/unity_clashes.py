#!/usr/bin/env python3
"""Lists file-local names (functions and constants at column 0 of a .cc, not declared in any header) that two
core library files define: in a unity build (CMakeLists.txt, DD_UNITY_BUILD) such files may land in one batch and
then clash, or worse, overload each other silently. Add one file of each pair to DD_NO_UNITY (or rename).
Test files (*_test.cc, also unity-built) are checked among themselves: two that open the same namespace may not
define the same name at column 0 (functions, constants); shared helpers belong in a header.
Usage: scripts/unity_clashes.py [SOURCE_ROOT]; exit 1 when a clash is found among files that unity batches."""
import pathlib
import re
import sys

DEF = re.compile(r"^(?!namespace|struct|class|enum|union|using|template|typedef|return|if|for|while|switch|\}|#|//)[A-Za-z_]"
                 r"[\w:<>,*& ]*?\b(\w+)\s*(\(|=|\{)")


def local_names(text):
    names = set()
    for line in text.splitlines():
        m = DEF.match(line)
        if m and m.group(1) not in ("main", "operator") and not line.rstrip().endswith(";"):  # not declarations
            names.add(m.group(1))
    return names


TEST_CONST = re.compile(r"^(?:static |inline )?(?:constexpr |const )[\w:<>,*& ]*?\b(\w+)\s*(?:=|\{)")
NAMESPACE = re.compile(r"^namespace ([\w:]+) \{")


def test_clashes(src):
    # Helpers of the test headers (test_facts.h, tcp_test_util.h, ...): a test file's own helper of that name
    # hides them from every file that shares its batch and namespace.
    shared = {}  # name -> namespaces of the test headers that define it
    for h in src.rglob("*.h"):
        if "test" in h.name:
            text = h.read_text()
            hns = next((m.group(1) for m in map(NAMESPACE.match, text.splitlines()) if m), "")
            for n in local_names(text):
                shared.setdefault(n, set()).add(hns)
    owners = {}
    for p in sorted(src.rglob("*_test.cc")):
        text = p.read_text()
        ns = next((m.group(1) for m in map(NAMESPACE.match, text.splitlines()) if m), "")
        names = {n for n in local_names(text) if not n.isupper() and not n.startswith("TEST")}
        names |= {m.group(1) for m in map(TEST_CONST.match, text.splitlines()) if m}
        for name in names:
            owners.setdefault((ns, name), []).append(p)
            if any(h == ns or h.startswith(ns + "::") for h in shared.get(name, ())):
                owners.setdefault((ns, name), []).append(pathlib.Path("(a test header)"))
    found = 0
    for (ns, name), ps in sorted(owners.items()):
        if len(ps) > 1:
            found += 1
            print(f"{name} (tests, namespace {ns or '-'}): " + " ".join(str(p) for p in ps))
    return found


def main(root):
    src = root / "src"
    cmake = (root / "CMakeLists.txt").read_text()
    header_text = "\n".join(p.read_text() for p in src.rglob("*.h"))
    files = [p for p in sorted(src.rglob("*.cc")) if not p.name.endswith("_test.cc") and p.name != "main.cc"]
    owners = {}
    for p in files:
        for name in local_names(p.read_text()):
            if not re.search(r"\b" + re.escape(name) + r"\b", header_text):
                owners.setdefault(name, []).append(p)
    clashes = 0
    for name, ps in sorted(owners.items()):
        batched = [p for p in ps if str(p.relative_to(root)) not in cmake]  # files named in CMakeLists are excluded
        if len(batched) > 1:
            clashes += 1
            print(f"{name}: " + " ".join(str(p.relative_to(root)) for p in ps))
    clashes += test_clashes(src)
    return 1 if clashes else 0


if __name__ == "__main__":
    sys.exit(main(pathlib.Path(sys.argv[1] if len(sys.argv) > 1 else pathlib.Path(__file__).resolve().parent.parent)))
