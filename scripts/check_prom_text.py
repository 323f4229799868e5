#!/usr/bin/env python3
"""Checks a Prometheus text-format file the way node_exporter's textfile collector reads it (a whole file is
dropped on one error), then parses it with prometheus_client's parser when that is installed.
Strict rules: metric and label names valid; one HELP and one TYPE line per family, before its samples; each
family's samples together; no repeated series; no timestamps; values are numbers; the file ends with a newline.
Usage: check_prom_text.py [--strict-only] FILE [REQUIRED_METRIC...]; exit 1 with the reasons on stderr.
--strict-only: skip prometheus_client (a machine without it, such as the GPU machine)."""
import re
import sys

NAME = re.compile(r"^[a-zA-Z_:][a-zA-Z0-9_:]*$")
LABEL = re.compile(r'([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\\n]|\\\\|\\"|\\n)*)"')
SAMPLE = re.compile(r"^([a-zA-Z_:][a-zA-Z0-9_:]*)(\{(.*)\})? (\S+)$")


def strict(text):
    errors, families, done, series, current = [], {}, set(), set(), None
    if not text.endswith("\n"):
        errors.append("no newline at the end")
    for n, line in enumerate(text.split("\n")[:-1], 1):
        if line.startswith("# HELP ") or line.startswith("# TYPE "):
            kind, name = line[2:6], line.split(" ")[2]
            if not NAME.match(name):
                errors.append(f"line {n}: bad metric name {name!r}")
            fam = families.setdefault(name, set())
            if kind in fam:
                errors.append(f"line {n}: second {kind} for {name}")
            if name in done:
                errors.append(f"line {n}: {kind} for {name} after its samples")
            fam.add(kind)
            if current and current != name:
                done.add(current)
            current = name
            continue
        if line.startswith("#") or not line:
            continue
        m = SAMPLE.match(line)
        if not m:
            errors.append(f"line {n}: not a sample (or has a timestamp): {line!r}")
            continue
        name, labels, value = m.group(1), m.group(3) or "", m.group(4)
        if name != current:
            errors.append(f"line {n}: sample of {name} outside its family ({current})")
        if families.get(name, set()) != {"HELP", "TYPE"}:
            errors.append(f"line {n}: {name} has no HELP and TYPE before it")
        rest = LABEL.sub("", labels).replace(",", "")
        if rest:
            errors.append(f"line {n}: bad labels {labels!r}")
        key = (name, tuple(sorted(LABEL.findall(labels))))
        if key in series:
            errors.append(f"line {n}: repeated series {key}")
        series.add(key)
        try:
            float(value)
        except ValueError:
            errors.append(f"line {n}: value {value!r} is not a number")
    return errors, {k for k, _ in series}


def main():
    args = sys.argv[1:]
    strict_only = bool(args) and args[0] == "--strict-only"
    if strict_only:
        args = args[1:]
    path, required = args[0], args[1:]
    text = open(path, encoding="utf-8").read()
    errors, names = strict(text)
    errors += [f"missing metric {r}" for r in required if r not in names]
    try:
        if strict_only:
            raise ImportError
        from prometheus_client.parser import text_string_to_metric_families
    except ImportError:
        if not strict_only:
            errors.append("prometheus_client is not installed (scripts/install-deps.sh installs python3-prometheus-client)")
    else:
        try:
            samples = sum(len(f.samples) for f in text_string_to_metric_families(text))
            if samples != sum(1 for line in text.split("\n") if line and not line.startswith("#")):
                errors.append(f"prometheus_client read {samples} samples, not every line")
        except Exception as e:  # its parser raises ValueError and others on a malformed line
            errors.append(f"prometheus_client: {e}")
    for e in errors:
        print(f"{path}: {e}", file=sys.stderr)
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main())
