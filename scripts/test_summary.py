#!/usr/bin/env python3
"""Summary of a ctest run, read from ctest's own JUnit file (ctest --output-junit FILE).

Prints "failed: NAME" for each failure, then the line "N passed, M failed, K skipped", then one
"skipped: NAME: REASON" line per skipped test. Skip reasons come from the test's output:
  - shell tests print "SKIP: reason" and exit 77 (SKIP_RETURN_CODE);
  - GoogleTest prints "file:line: Skipped" and the GTEST_SKIP() << message (SKIP_REGULAR_EXPRESSION).
A skip that gives no reason counts as a failure. Exit status: 0 when nothing failed, 1 otherwise.
"""
import re
import sys
import xml.etree.ElementTree as ET


def gtest_skip_reason(lines):
    for i, line in enumerate(lines):
        if re.search(r"(^|: )Skipped$", line.strip()):
            reason = []
            for rest in lines[i + 1:]:
                if rest.startswith("[  SKIPPED ]") or rest.startswith("[       OK ]"):
                    break
                if rest.strip():
                    reason.append(rest.strip())
            return " ".join(reason)
    return ""


def skip_reason(output):
    lines = output.splitlines()
    for line in reversed(lines):
        m = re.match(r"\s*SKIP:\s*(.*\S)", line, re.IGNORECASE)
        if m:
            return m.group(1)
    return gtest_skip_reason(lines)


def main(junit_path):
    cases = ET.parse(junit_path).getroot().iter("testcase")
    passed, failed, skipped = [], [], []
    for case in cases:
        name, status = case.get("name"), case.get("status")
        output = case.findtext("system-out") or ""
        if status == "run" and case.find("failure") is None:
            passed.append(name)
        elif status in ("notrun", "disabled") and case.find("failure") is None:
            reason = "disabled" if status == "disabled" else skip_reason(output)
            if reason:
                skipped.append((name, reason))
            else:
                failed.append(name + " (skipped without printing a reason)")
        else:
            failed.append(name)
    for name in failed:
        print(f"failed: {name}")
    print(f"{len(passed)} passed, {len(failed)} failed, {len(skipped)} skipped")
    for name, reason in skipped:
        print(f"skipped: {name}: {reason}")
    return 1 if failed else 0


if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.exit("usage: test_summary.py CTEST_JUNIT.xml")
    sys.exit(main(sys.argv[1]))
