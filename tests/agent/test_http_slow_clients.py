#!/usr/bin/env python3
"""`rocehealth agent` under slow clients (issue 16 §2), on a fixture tree, no RDMA needed.

64 clients from 127.0.0.1 send a request line and then one header byte a second. The agent
must (1) refuse all but http.max_connections_per_address of them at once with 503, (2) answer
/healthz and /metrics from another address (127.0.0.2) within 1 s while they are held, and
again while 64 more trickle from 64 different addresses (each under the cap: only the gate's
request deadline keeps them off the handler threads), (3) close every trickling client with
408 at http.request_timeout_s, and (4) count all of it in
rocehealth_http_connections_refused_total{reason}. Prints the figures measured.

usage: test_http_slow_clients.py ROCEHEALTH FIXTURE_DIR/sys
"""
import json
import os
import re
import selectors
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time

CAP = 8            # http.max_connections_per_address (the default)
REQUEST_TIMEOUT_S = 8  # long enough to measure while the slow clients are held
THREADS = 2        # http.max_threads: fewer threads than slow clients from one address
SLOW = 64


def fail(msg, log=None):
    print("FAIL: " + msg)
    if log and os.path.exists(log):
        print("--- agent log (last 20 lines)")
        print("".join(open(log).readlines()[-20:]))
    sys.exit(1)


def connect(port, source="127.0.0.1"):
    s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    s.bind((source, 0))
    s.settimeout(5)
    s.connect(("127.0.0.1", port))
    return s


def get(port, path, source="127.0.0.2"):
    """(status, body, seconds from connect to the whole answer) of one GET."""
    t0 = time.monotonic()
    s = connect(port, source)
    s.sendall(("GET %s HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n" % path).encode())
    data = b""
    try:
        while True:
            chunk = s.recv(65536)
            if not chunk:
                break
            data += chunk
    except OSError:
        pass
    s.close()
    took = time.monotonic() - t0
    head, _, body = data.partition(b"\r\n\r\n")
    m = re.match(rb"HTTP/1\.1 (\d+)", head)
    return (int(m.group(1)) if m else 0), body, took


def start_slow(port, sources):
    """One slow client per source: the request line and the start of a header."""
    socks = []
    for src in sources:
        s = connect(port, src)
        try:
            s.sendall(b"GET /healthz HTTP/1.1\r\nX-Slow: ")
        except OSError:
            pass
        socks.append(s)
    return socks


def trickle(socks):
    """One more header byte to every client still open."""
    for s in socks:
        try:
            s.send(b"a")
        except OSError:
            pass


def answer_or_eof(s, timeout):
    """What the agent sent before closing (b"" for a bare close), or None if still open."""
    s.settimeout(timeout)
    data = b""
    try:
        while True:
            chunk = s.recv(4096)
            if not chunk:
                return data
            data += chunk
    except socket.timeout:
        return None if not data else data
    except OSError:
        return data


def refused_metric(port, reason):
    status, body, _ = get(port, "/metrics")
    m = re.search(r'^rocehealth_http_connections_refused_total\{reason="%s"\} (\d+)$' % reason,
                  body.decode(), re.M)
    return int(m.group(1)) if m else None


def main():
    binary, fixture = sys.argv[1], sys.argv[2]
    work = tempfile.mkdtemp()
    log = os.path.join(work, "agent.log")
    agent = None
    try:
        sysdir = os.path.join(work, "sys")
        shutil.copytree(fixture, sysdir, symlinks=True)
        cfg = os.path.join(work, "agent.json")
        with open(cfg, "w") as f:
            json.dump({"sysfs_root": sysdir, "host": "fixture-host", "collect_interval_s": 0.2,
                       "retention_s": 60,
                       "http": {"listen": "127.0.0.1:0", "max_threads": THREADS,
                                "request_timeout_s": REQUEST_TIMEOUT_S}}, f)
        agent = subprocess.Popen([binary, "agent", "--config", cfg], stderr=open(log, "w"))
        port = None
        deadline = time.monotonic() + 15
        while time.monotonic() < deadline and not port:
            if agent.poll() is not None:
                fail("agent exited with %d" % agent.returncode, log)
            for line in open(log):
                if '"event":"http_listening"' in line:
                    port = json.loads(line)["port"]
            time.sleep(0.1)
        if not port:
            fail("no http_listening event", log)
        while time.monotonic() < deadline and get(port, "/healthz")[0] != 200:
            time.sleep(0.2)
        if get(port, "/metrics")[0] != 200:
            fail("/metrics never answered 200", log)

        # 1. 64 slow clients from one address: all but CAP refused at once (each timed from
        # its own connect to the agent's answer or close).
        sent = {}
        slow = []
        for _ in range(SLOW):
            s = start_slow(port, ["127.0.0.1"])[0]
            sent[s] = time.monotonic()
            slow.append(s)
        t0 = min(sent.values())
        answered = {}
        sel = selectors.DefaultSelector()
        for s in slow:
            sel.register(s, selectors.EVENT_READ)
        while time.monotonic() < t0 + 1.0:
            for key, _ in sel.select(timeout=0.05):
                answered[key.fileobj] = time.monotonic() - sent[key.fileobj]
                sel.unregister(key.fileobj)
            if len(answered) == len(slow):
                break
        sel.close()
        held = [s for s in slow if s not in answered]
        for s in answered:
            got = answer_or_eof(s, 1.0)
            if got and not got.startswith(b"HTTP/1.1 503"):
                fail("an over-cap client got %r, expected 503 or a close" % got[:40], log)
            s.close()
        print("slow clients from 127.0.0.1: %d held, %d refused, each within %.1f ms of its "
              "connect" % (len(held), len(answered), 1000 * max(answered.values(), default=0)))
        if len(held) != CAP or len(answered) != SLOW - CAP:
            fail("expected %d held and %d refused" % (CAP, SLOW - CAP), log)
        if max(answered.values()) > 1.0:
            fail("a refusal took longer than 1 s", log)
        trickle(held)

        # 2. While they are held: /healthz and /metrics from another address, 3 times each.
        worst = {}
        for _ in range(3):
            for path in ("/healthz", "/metrics"):
                status, body, took = get(port, path)
                worst[path] = max(worst.get(path, 0), took)
                if status != 200 or took > 1.0:
                    fail("%s from 127.0.0.2 under 64 slow clients: HTTP %d in %.3f s (want 200 "
                         "within 1 s)" % (path, status, took), log)
            trickle(held)
            time.sleep(0.3)
        print("while held: /healthz at most %.1f ms, /metrics at most %.1f ms (3 tries each, "
              "from 127.0.0.2)" % (1000 * worst["/healthz"], 1000 * worst["/metrics"]))
        # One more from 127.0.0.1 is refused at once, naming the address.
        t1 = time.monotonic()
        over = connect(port)
        got = answer_or_eof(over, 1.0)
        over.close()
        if got is None or time.monotonic() - t1 > 1.0:
            fail("an over-cap connection from 127.0.0.1 was not closed within 1 s", log)
        if got and b"more than 8 connections from 127.0.0.1" not in got:
            fail("the 503 does not name the cap and the address: %r" % got, log)
        print("one more from 127.0.0.1: %r, closed after %.1f ms"
              % (got.split(b"\r\n")[0], 1000 * (time.monotonic() - t1)))

        # 3. 64 more slow clients, each from its own address (under the cap): the deadline,
        # not the cap, keeps the handler threads free.
        spread = start_slow(port, ["127.0.0.%d" % (10 + i) for i in range(SLOW)])
        trickle(spread)
        worst = {}
        for path in ("/healthz", "/metrics"):
            status, body, took = get(port, path)
            worst[path] = took
            if status != 200 or took > 1.0:
                fail("%s with 64 slow clients from 64 addresses held: HTTP %d in %.3f s"
                     % (path, status, took), log)
        print("with 64 more held from 64 addresses: /healthz %.1f ms, /metrics %.1f ms"
              % (1000 * worst["/healthz"], 1000 * worst["/metrics"]))

        # 4. Every slow client is closed with 408 at the request deadline.
        timed_out = 0
        t2 = time.monotonic()
        for s in held + spread:
            trickle([s])
            got = answer_or_eof(s, max(0.05, t0 + REQUEST_TIMEOUT_S + 5 - time.monotonic()))
            if got is not None and got.startswith(b"HTTP/1.1 408"):
                timed_out += 1
            s.close()
        print("request deadline %d s: %d of %d slow clients closed with 408 (last %.1f s after "
              "the first connect)" % (REQUEST_TIMEOUT_S, timed_out, len(held) + len(spread),
                                      time.monotonic() - t0))
        if timed_out != len(held) + len(spread):
            fail("%d of %d trickling clients got 408" % (timed_out, len(held) + len(spread)), log)

        # 5. Counted, once the next pass has published (collect_interval_s 0.2).
        time.sleep(0.5)
        cap_n, timeout_n = (refused_metric(port, "per_address_cap"),
                            refused_metric(port, "request_timeout"))
        print("rocehealth_http_connections_refused_total: per_address_cap %s, request_timeout %s"
              % (cap_n, timeout_n))
        if cap_n != SLOW - CAP + 1 or timeout_n != CAP + SLOW:
            fail("expected per_address_cap %d and request_timeout %d"
                 % (SLOW - CAP + 1, CAP + SLOW), log)
        # 6. The log names the address, once per reason (not once per refusal).
        events = [json.loads(l) for l in open(log) if '"event":"http_connections_refused"' in l]
        capped = [e for e in events if e["reason"] == "per_address_cap"]
        if len(capped) != 1 or capped[0]["peer"] != "127.0.0.1" or capped[0]["status"] != 503:
            fail("expected one http_connections_refused event for per_address_cap naming "
                 "127.0.0.1, got %s" % capped, log)
        print("log: %d http_connections_refused events for %d refusals" % (len(events),
                                                                           cap_n + timeout_n))
        print("OK")
    finally:
        if agent and agent.poll() is None:
            agent.send_signal(signal.SIGTERM)
            try:
                agent.wait(10)
            except subprocess.TimeoutExpired:
                agent.kill()
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
