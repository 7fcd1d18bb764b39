#!/usr/bin/env python3
"""/healthz latency of `rocehealth agent` under the HTTP attacks of issue 27 §5 (fixture tree,
loopback, no RDMA needed). Prints figures; asserts nothing.

  baseline    /healthz from 127.0.0.2, nothing else going on
  pipelined   8 connections from 127.0.0.1 (the per-address cap), each pipelining 2000
              `GET /metrics` and never reading; /healthz from 127.0.0.2, /metrics from 127.0.0.3
  slow flood  300 connections from 300 addresses (127.0.2.1 ...), each a request line and then
              one header byte a second (fills http.max_connections 256); /healthz from 127.0.0.2

usage: http_attack_bench.py ROCEHEALTH FIXTURE_DIR/sys [SAMPLES]
  e.g. bench/http_attack_bench.py build/agent/rocehealth tests/fixtures/mlx5_pfc_ofed/sys
"""
import json
import os
import re
import shutil
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time


def connect(port, source, timeout=5):
    s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    s.bind((source, 0))
    s.settimeout(timeout)
    s.connect(("127.0.0.1", port))
    return s


def get(port, path, source, timeout=10, size=None):
    """(status, seconds from connect to the whole answer); status 0: no answer. `size`: a list
    the answer's length is appended to."""
    t0 = time.monotonic()
    data = b""
    try:
        s = connect(port, source, timeout)
        s.sendall(("GET %s HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n" % path).encode())
        while True:
            chunk = s.recv(65536)
            if not chunk:
                break
            data += chunk
        s.close()
    except OSError:
        pass
    m = re.match(rb"HTTP/1\.1 (\d+)", data)
    if size is not None:
        size.append(len(data))
    return (int(m.group(1)) if m else 0), time.monotonic() - t0


def sample(port, path, source, n):
    statuses, times = {}, []
    for _ in range(n):
        st, took = get(port, path, source)
        statuses[st] = statuses.get(st, 0) + 1
        times.append(took * 1000)
        time.sleep(0.05)
    times.sort()
    return "%s: p50 %.1f ms, p90 %.1f ms, max %.1f ms, statuses %s" % (
        path, statistics.median(times), times[int(0.9 * (len(times) - 1))], times[-1],
        " ".join("%d x%d" % kv for kv in sorted(statuses.items())))


def main():
    binary, fixture = sys.argv[1], sys.argv[2]
    n = int(sys.argv[3]) if len(sys.argv) > 3 else 20
    work = tempfile.mkdtemp()
    log = os.path.join(work, "agent.log")
    agent = None
    try:
        sysdir = os.path.join(work, "sys")
        shutil.copytree(fixture, sysdir, symlinks=True)
        cfg = os.path.join(work, "agent.json")
        with open(cfg, "w") as f:
            json.dump({"sysfs_root": sysdir, "host": "fixture-host", "collect_interval_s": 0.5,
                       "retention_s": 60,
                       "http": {"listen": "127.0.0.1:0", "request_timeout_s": 60}}, f)
        agent = subprocess.Popen([binary, "agent", "--config", cfg], stderr=open(log, "w"))
        port = None
        deadline = time.monotonic() + 15
        while time.monotonic() < deadline and not port:
            for line in open(log):
                if '"event":"http_listening"' in line:
                    port = json.loads(line)["port"]
            time.sleep(0.1)
        while time.monotonic() < deadline and get(port, "/healthz", "127.0.0.2")[0] != 200:
            time.sleep(0.2)
        print("binary: %s (http defaults: 4 threads, 8 per address, 256 in all, write_timeout_s 5)"
              % binary)
        print("baseline   " + sample(port, "/healthz", "127.0.0.2", n))

        # The largest answer, asked for again and again on 8 connections that never read; a
        # connection the agent closes (keep-alive max, write timeout) is opened again at once.
        sizes = {}
        for path in ("/metrics", "/api/v1/snapshot", "/api/v1/findings"):
            got = []
            get(port, path, "127.0.0.2", size=got)
            sizes[path] = got[0]
        target = max(sizes, key=sizes.get)
        print("answers: " + ", ".join("%s %d B" % kv for kv in sizes.items()) +
              "; the attack asks for " + target)
        pipeline = ("GET %s HTTP/1.1\r\nHost: x\r\n\r\n" % target).encode() * 2000
        stop = threading.Event()

        def attack():
            conns = [None] * 8
            while not stop.is_set():
                for i in range(8):
                    s = conns[i]
                    if s is not None:
                        try:
                            s.send(b"")
                            if s.recv(1, socket.MSG_PEEK | socket.MSG_DONTWAIT) == b"":
                                raise OSError("closed")
                        except BlockingIOError:
                            continue
                        except OSError:
                            s.close()
                            conns[i] = None
                    if conns[i] is None:
                        try:
                            s = connect(port, "127.0.0.1")
                            s.setblocking(False)
                            s.send(pipeline)
                            conns[i] = s
                        except OSError:
                            pass
                stop.wait(0.05)
            for s in conns:
                if s is not None:
                    s.close()

        attacker = threading.Thread(target=attack)
        attacker.start()
        time.sleep(2.0)
        print("pipelined  " + sample(port, "/healthz", "127.0.0.2", n))
        print("pipelined  " + sample(port, "/metrics", "127.0.0.3", max(5, n // 4)))
        stop.set()
        attacker.join()
        time.sleep(1.0)

        slow = []
        for i in range(300):
            src = "127.0.%d.%d" % (2 + i // 250, 1 + i % 250)
            try:
                s = connect(port, src)
                s.send(b"GET /healthz HTTP/1.1\r\nX-Slow: ")
                slow.append(s)
            except OSError:
                pass
        time.sleep(0.5)
        out = []
        for _ in range(n):
            for s in slow:
                try:
                    s.send(b"a")
                except OSError:
                    pass
            out.append(get(port, "/healthz", "127.0.0.2"))
            time.sleep(0.05)
        times = sorted(t * 1000 for _, t in out)
        sts = {}
        for st, _ in out:
            sts[st] = sts.get(st, 0) + 1
        print("slow flood /healthz: p50 %.1f ms, p90 %.1f ms, max %.1f ms, statuses %s "
              "(%d slow sockets open)" % (statistics.median(times),
                                          times[int(0.9 * (len(times) - 1))], times[-1],
                                          " ".join("%d x%d" % kv for kv in sorted(sts.items())),
                                          len(slow)))
        st, took = get(port, "/metrics", "127.0.0.3")
        print("slow flood /metrics: HTTP %d in %.1f ms (over the total cap: 503 expected)"
              % (st, took * 1000))
        for s in slow:
            s.close()
    finally:
        if agent:
            agent.terminate()
            agent.wait(timeout=20)
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
