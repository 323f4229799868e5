#!/usr/bin/env python3
# Replaces machine-specific path prefixes in recorded fixtures (text logs and PyTorch Flight Recorder pickles)
# so no absolute path of the recording machine lands in the tree. Pickles are rewritten opcode by opcode: only
# string arguments change (their length prefixes with them); every other byte is kept, so the file still has
# the shape PyTorch's own pickler gave it. Usage: scrub_paths.py OLD=NEW [OLD=NEW...] -- FILE...
import pickletools
import struct
import sys

args = sys.argv[1:]
cut = args.index("--")
pairs = [a.split("=", 1) for a in args[:cut]]


def fix(s):
    for old, new in pairs:
        s = s.replace(old, new)
    return s


def scrub_pickle(data):
    out = bytearray()
    ops = list(pickletools.genops(data))
    for i, (op, arg, pos) in enumerate(ops):
        end = ops[i + 1][2] if i + 1 < len(ops) else len(data)
        if op.code == "X" and isinstance(arg, str):
            b = fix(arg).encode("utf-8")
            out += b"X" + struct.pack("<I", len(b)) + b
        elif op.code == "\x8c" and isinstance(arg, str):
            b = fix(arg).encode("utf-8")
            out += (b"\x8c" + bytes([len(b)]) if len(b) < 256 else b"X" + struct.pack("<I", len(b))) + b
        else:
            out += data[pos:end]
    return bytes(out)


for path in args[cut + 1:]:
    data = open(path, "rb").read()
    if data[:1] == b"\x80":
        new = scrub_pickle(data)
    else:
        new = fix(data.decode("utf-8", "surrogateescape")).encode("utf-8", "surrogateescape")
    if new != data:
        open(path, "wb").write(new)
