#!/usr/bin/env python3
"""Fault-matrix helper: a raw TCP client that writes junk to the rendezvous store.

Usage: junk_client.py HOST PORT MODE [SECONDS]. MODE garbage: 64 KiB of random bytes; oversized: a frame
header whose length field claims 4 GiB, then 1 MiB of filler. Prints what the server did ("closed after N bytes" or "still open") and
exits 0; exits 1 when the connection could not be made at all."""
import os
import socket
import struct
import sys
import time


def send_all(sock, data):
    sent = 0
    try:
        while sent < len(data):
            sent += sock.send(data[sent:sent + 65536])
    except OSError:
        pass
    return sent


def wait_closed(sock, seconds):
    sock.settimeout(0.2)
    end = time.time() + seconds
    while time.time() < end:
        try:
            if sock.recv(4096) == b"":
                return True
        except socket.timeout:
            continue
        except OSError:
            return True
    return False


def main():
    host, port, mode = sys.argv[1], int(sys.argv[2]), sys.argv[3]
    seconds = float(sys.argv[4]) if len(sys.argv) > 4 else 3.0
    try:
        sock = socket.create_connection((host, port), timeout=3)
    except OSError as e:
        print(f"cannot connect: {e}")
        return 1
    if mode == "garbage":
        payload = os.urandom(65536)
    else:
        payload = struct.pack(">IB", 0xFFFFFFFF, 10) + b"\0" * (1 << 20)
    sent = send_all(sock, payload)
    closed = wait_closed(sock, seconds)
    print(f"{mode}: sent {sent} bytes; the store {'closed the connection' if closed else 'kept it open'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
