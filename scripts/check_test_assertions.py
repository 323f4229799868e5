#!/usr/bin/env python3
"""CI lint: every test must be able to fail. Run by `make test` (scripts/check-test-assertions.sh).

Convention (what counts as an assertion):
  - A GoogleTest body (TEST, TEST_F, TEST_P) must contain an EXPECT_* or ASSERT_* macro, or FAIL(),
    ADD_FAILURE() or GTEST_FAIL(). A test that only calls a helper holding the assertions must still assert on
    something itself (e.g. ASSERT_NO_FATAL_FAILURE(helper())).
  - A shell test (tests/*_test.sh) must report failures: print "FAIL", call a fail/expect/expect_not helper
    (tests/*_lib.sh), `exit 1`, or a Python `assert` / `sys.exit(1)` in an embedded script.
Prints every offender and exits 1 when there is one.
"""
import pathlib
import re
import sys

GTEST_ASSERT = re.compile(r"\b(EXPECT_[A-Z_]+|ASSERT_[A-Z_]+|FAIL|ADD_FAILURE|GTEST_FAIL)\s*\(")
SHELL_ASSERT = re.compile(
    r"FAIL|(^|[\s;&|({])(fail|expect|expect_not)\s|\bexit 1\b|^\s*assert\s|sys\.exit\(1\)", re.MULTILINE)
TEST_START = re.compile(r"^\s*(TEST|TEST_F|TEST_P)\s*\(\s*(\w+)\s*,\s*(\w+)\s*\)", re.MULTILINE)


def strip_comments_and_strings(code):
    """Blanks out comments and string/char literals (raw strings too), keeping offsets and braces honest."""
    out, i, n = [], 0, len(code)
    while i < n:
        c = code[i]
        if code.startswith("//", i):
            j = code.find("\n", i)
            j = n if j < 0 else j
        elif code.startswith("/*", i):
            j = code.find("*/", i + 2)
            j = n if j < 0 else j + 2
        elif c == "R" and code.startswith('R"', i) and (i == 0 or not (code[i - 1].isalnum() or code[i - 1] == "_")):
            open_paren = code.find("(", i + 2)
            delim = code[i + 2:open_paren]
            j = code.find(")" + delim + '"', open_paren)
            j = n if j < 0 else j + len(delim) + 2
        elif c in "\"'":
            j = i + 1
            while j < n and code[j] != c:
                j += 2 if code[j] == "\\" else 1
            j += 1
        else:
            out.append(c)
            i += 1
            continue
        out.append(" " * (j - i))
        i = j
    return "".join(out)


def test_bodies(code):
    """Yields (name, body, line) for each TEST/TEST_F/TEST_P in comment- and string-free code."""
    for m in TEST_START.finditer(code):
        start = code.find("{", m.end())
        depth, j = 0, start
        while j < len(code):
            depth += {"{": 1, "}": -1}.get(code[j], 0)
            if depth == 0:
                break
            j += 1
        yield f"{m.group(2)}.{m.group(3)}", code[start:j + 1], code.count("\n", 0, m.start()) + 1


def main(root):
    problems = []
    for path in sorted(root.glob("src/**/*_test.cc")):
        for name, body, line in test_bodies(strip_comments_and_strings(path.read_text())):
            if not GTEST_ASSERT.search(body):
                problems.append(f"{path.relative_to(root)}:{line}: {name} has no EXPECT_/ASSERT_")
    for path in sorted(root.glob("tests/*_test.sh")):
        if not SHELL_ASSERT.search(path.read_text()):
            problems.append(f"{path.relative_to(root)}: no assertion (FAIL, fail/expect, exit 1, assert)")
    for p in problems:
        print(p)
    if problems:
        print(f"check_test_assertions: {len(problems)} test(s) that cannot fail")
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(pathlib.Path(__file__).resolve().parent.parent))
