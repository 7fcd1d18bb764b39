#!/usr/bin/python3
"""The unauthenticated attacks of issue 27 on a responder's port, written from the protocol's
description (probes/wire/oob_protocol.h), not from rocehealth's code.

usage: preauth_flood.py ACTION HOST PORT [ARGS]
  hold N SECONDS SRC    N connections from source address SRC that send hello every 4 s (the review's hold); prints
                        "held: K of N still open after SECONDS s" (K = 0 on a fixed responder)
  flood N SECONDS SRC   N idle connections from source address SRC, each re-opened as soon as it
                        closes; prints "flood: opened T, refused R (cap named: C)"
  big                   the 12-byte header of a 1 MiB json frame, nothing more; prints
                        "big: <cmd>: <error> after <ms> ms"
"""
import json
import select
import socket
import struct
import sys
import time

MAGIC, JSON_TYPE, VERSION = 0x52484F42, 10, 6  # json protocol 6 (oob_protocol.h kJsonVersion)


def frame(obj):
    body = json.dumps(obj).encode()
    return struct.pack(">IHHI", MAGIC, VERSION, JSON_TYPE, 12 + len(body)) + body


def reply(s, timeout):
    """The next frame as (cmd, error), ("closed", "-") when the connection ended."""
    s.settimeout(timeout)
    try:
        h = b""
        while len(h) < 12:
            c = s.recv(12 - len(h))
            if not c:
                return "closed", "-"
            h += c
        _, _, typ, length = struct.unpack(">IHHI", h)
        body = b""
        while len(body) < length - 12:
            c = s.recv(length - 12 - len(body))
            if not c:
                return "closed", "-"
            body += c
    except socket.timeout:
        return "timeout", "-"
    except OSError:
        return "closed", "-"
    if typ != JSON_TYPE:
        return "fixed-frame", body[212:].split(b"\0")[0].decode()
    j = json.loads(body)
    return j.get("cmd"), j.get("error", "-")


def hold(host, port, n, seconds, src):
    socks = []
    for _ in range(n):
        s = socket.create_connection((host, port), timeout=10, source_address=(src, 0))
        try:
            s.sendall(frame({"cmd": "hello"}))
        except OSError:
            pass
        if reply(s, 5)[0] == "hello_reply":
            socks.append(s)
        else:  # refused at once (per-address cap)
            s.close()
    end = time.time() + seconds
    while time.time() < end:
        time.sleep(4)
        for s in list(socks):
            try:
                s.sendall(frame({"cmd": "hello"}))
                cmd, _ = reply(s, 5)
            except OSError:
                cmd = "closed"
            if cmd != "hello_reply":
                socks.remove(s)
                s.close()
    print(f"held: {len(socks)} of {n} still open after {seconds} s", flush=True)


def flood(host, port, n, seconds, src):
    opened = refused = named = 0
    socks = []
    end = time.time() + seconds
    while time.time() < end:
        while len(socks) < n and time.time() < end:
            s = socket.socket()
            s.bind((src, 0))
            s.settimeout(5)
            try:
                s.connect((host, port))
            except OSError:
                s.close()
                continue
            opened += 1
            socks.append(s)
        ready, _, _ = select.select(socks, [], [], 0.05)
        for s in ready:  # a refusal, or closed: re-open it
            cmd, err = reply(s, 0.5)
            refused += 1
            named += "per address" in err
            socks.remove(s)
            s.close()
    print(f"flood: opened {opened}, refused {refused} (cap named: {named})", flush=True)


def big(host, port):
    s = socket.create_connection((host, port), timeout=10)
    t0 = time.time()
    s.sendall(struct.pack(">IHHI", MAGIC, VERSION, JSON_TYPE, 12 + (1 << 20)))
    cmd, err = reply(s, 10)
    print(f"big: {cmd}: {err} after {int((time.time() - t0) * 1000)} ms", flush=True)


def main():
    action, host, port = sys.argv[1], sys.argv[2], int(sys.argv[3])
    if action == "hold":
        hold(host, port, int(sys.argv[4]), int(sys.argv[5]), sys.argv[6])
    elif action == "flood":
        flood(host, port, int(sys.argv[4]), int(sys.argv[5]), sys.argv[6])
    elif action == "big":
        big(host, port)


main()
