#!/usr/bin/env python3
"""`make wheel`: the portable binary as a Python wheel, BUILD_DIR/distdoctor-VERSION-py3-none-PLATFORM.whl.

The wheel holds the binary (distdoctor/bin/distdoctor), its man page (installed into the venv's share/man) and a
console entry point `distdoctor` that replaces the Python process with the binary (os.execv: same argv, exit
code and signals). Its platform tag is manylinux_2_31_x86_64: the binary asks for glibc 2.31 at most and links
only libc, libm, libdl, libpthread and librt (scripts/portable-test.sh checks both), so pip and uv install it on
any x86_64 Linux with glibc 2.31 or newer. Built with the standard library only (a wheel is a zip file with a
RECORD of sha256 digests). Usage: scripts/make-wheel.py BUILD_DIR (a `make portable` build dir); prints the path.
"""
import base64
import hashlib
import os
import re
import subprocess
import sys
import zipfile

PLATFORM = "manylinux_2_31_x86_64"

LAUNCHER = '''"""distdoctor: the console entry point runs the binary shipped in this package."""
import os
import sys


def main():
    binary = os.path.join(os.path.dirname(os.path.abspath(__file__)), "bin", "distdoctor")
    os.execv(binary, [binary] + sys.argv[1:])
'''

MAIN = '''from distdoctor import main

main()
'''


def digest(data):
    return "sha256=" + base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()


def main():
    if len(sys.argv) != 2:
        sys.exit("usage: make-wheel.py BUILD_DIR")
    build = sys.argv[1]
    binary = os.path.join(build, "distdoctor")
    out = subprocess.run([binary, "--version"], capture_output=True, text=True, check=True).stdout
    m = re.match(r"distdoctor (\d+\.\d+\.\d+)", out)
    if not m:
        sys.exit(f"make-wheel: no version from {binary}: {out!r}")
    version = m.group(1)
    info = f"distdoctor-{version}.dist-info"
    data = f"distdoctor-{version}.data/data"
    files = [  # (path in the wheel, bytes, unix mode)
        ("distdoctor/__init__.py", LAUNCHER.encode(), 0o644),
        ("distdoctor/__main__.py", MAIN.encode(), 0o644),
        ("distdoctor/bin/distdoctor", open(binary, "rb").read(), 0o755),
    ]
    man = os.path.join(build, "distdoctor.1.gz")
    if os.path.exists(man):
        files.append((f"{data}/share/man/man1/distdoctor.1.gz", open(man, "rb").read(), 0o644))
    metadata = (f"Metadata-Version: 2.1\nName: distdoctor\nVersion: {version}\n"
                "Summary: Why a distributed GPU training job will not start, hangs or runs slow, and the fix\n"
                "Requires-Python: >=3.6\n")
    wheel = f"Wheel-Version: 1.0\nGenerator: distdoctor make-wheel.py\nRoot-Is-Purelib: false\nTag: py3-none-{PLATFORM}\n"
    files += [(f"{info}/METADATA", metadata.encode(), 0o644), (f"{info}/WHEEL", wheel.encode(), 0o644),
              (f"{info}/entry_points.txt", b"[console_scripts]\ndistdoctor = distdoctor:main\n", 0o644)]
    record = "".join(f"{p},{digest(b)},{len(b)}\n" for p, b, _ in files) + f"{info}/RECORD,,\n"
    files.append((f"{info}/RECORD", record.encode(), 0o644))
    path = os.path.join(build, f"distdoctor-{version}-py3-none-{PLATFORM}.whl")
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as z:
        for name, content, mode in files:
            entry = zipfile.ZipInfo(name, date_time=(1980, 1, 1, 0, 0, 0))  # fixed: same build, same bytes
            entry.external_attr = (0o100000 | mode) << 16
            entry.compress_type = zipfile.ZIP_DEFLATED
            z.writestr(entry, content)
    print(path)


if __name__ == "__main__":
    main()
