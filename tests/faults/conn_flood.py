#!/usr/bin/env python3
"""Fault-matrix helper: keeps N raw TCP connections open to the rendezvous store (never authenticating) and
opens a new one as soon as the store closes one, for SECONDS, as a pest on a node's own address would.

Usage: conn_flood.py HOST PORT N SECONDS. Prints how many connections it opened and how many the store
closed; exits 0 (1 when not one connection could be made)."""
import selectors
import socket
import sys
import time


def main():
    host, port, n, seconds = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), float(sys.argv[4])
    sel = selectors.DefaultSelector()
    opened = closed = failed = 0

    def open_one():
        nonlocal opened, failed
        s = socket.socket()
        s.setblocking(False)
        try:
            s.connect((host, port))
        except BlockingIOError:
            pass
        except OSError:
            failed += 1
            s.close()
            return
        sel.register(s, selectors.EVENT_READ)
        opened += 1

    for _ in range(n):
        open_one()
    end = time.time() + seconds
    while time.time() < end:
        for key, _ in sel.select(timeout=0.1):
            try:
                data = key.fileobj.recv(4096)
            except OSError:
                data = b""
            if data == b"":  # the store closed it: take its place at once
                sel.unregister(key.fileobj)
                key.fileobj.close()
                closed += 1
                open_one()
    print(f"opened {opened} connections, the store closed {closed}, {failed} connects failed")
    return 0 if opened else 1


if __name__ == "__main__":
    sys.exit(main())
