#!/usr/bin/env python3
"""The healthy-configuration zoo test (issue 26): every zoo host (make_zoo.py) through
  - `rocehealth check --sysfs-root <host>/sys --json`       (live check on its fixture tree),
  - the agent on the same tree, its counters moving on (all hosts at once, `GET /api/v1/findings`
    once the rules' windows are covered, plus every finding_opened event it logged),
  - `rocehealth diagnose --bundle t0 --bundle t1 ... --json` (run from <host>/bundle, as an
    operator runs it on the captures).
Every host is healthy, so ANY finding (exit 1 or an entry in "findings") is a false positive and
fails the test. Exit 2 / "could not judge" is accepted only where ALLOWED_2 says why; anything
else that could not be judged fails too.

usage: run_zoo.py ROCEHEALTH [--out DIR] [--dump DIR] [--agent-seconds S] [--no-agent] [HOST...]
Prints per entry point: hosts, healthy, false positives (host: rule ids), could not judge.
Exit 0 when every entry point is clean, 1 otherwise, 2 when the test itself cannot run.
"""
import argparse
import json
import os
import signal
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
import make_zoo  # noqa: E402

DUMP = None  # --dump DIR

# (entry point, host) -> why exit 2 / could-not-judge is the right answer there.
ALLOWED_2 = {
    ("diagnose", "mlx5-single-capture"):
        "one capture: every rate rule needs two captures (README: 'could not judge rates', exit 2)",
}


def finding_ids(doc):
    return sorted({"%s%s" % (f.get("rule", "?"), (" " + f["device"]) if f.get("device") else "")
                   for f in doc.get("findings", [])})


def run_json(cmd, cwd=None, timeout=60):
    p = subprocess.run(cmd, cwd=cwd, capture_output=True, text=True, timeout=timeout)
    try:
        doc = json.loads(p.stdout)
    except ValueError:
        doc = {"error": "not JSON: " + (p.stdout[:200] + p.stderr[:300]).strip()}
    return p.returncode, doc


class Tally:
    def __init__(self, entry):
        self.entry, self.hosts, self.healthy, self.fp, self.cnj, self.bad = entry, 0, 0, [], [], []
        self.unread = []  # (host, what): the zoo's input was not (all) read: the verdict proves nothing

    def add(self, host, rc, doc, unread=None):
        """rc: exit code (the agent: 0 healthy, 1 findings, 2 could not judge, by its verdict)."""
        self.hosts += 1
        unev = [u.get("text", str(u)) if isinstance(u, dict) else str(u) for u in doc.get("unevaluated", [])]
        if rc == 0 and unev:  # "healthy" although something was not evaluated (issue 26 class 5)
            unread = "; ".join(filter(None, [unread, "exit 0 with unevaluated: " + "; ".join(unev)]))
        if DUMP:
            Path(DUMP, "%s-%s.json" % (self.entry, host)).write_text(json.dumps(doc, indent=1) + "\n")
        if unread:
            self.unread.append((host, unread))
        ids = finding_ids(doc)
        why2 = doc.get("error") or doc.get("could_not_judge") or "; ".join(doc.get("unevaluated_text", []))
        if rc == 1 or ids:
            self.fp.append((host, ids or ["exit %d without a finding" % rc]))
        elif rc == 0:
            self.healthy += 0 if unread else 1  # healthy on input it did not read is no verdict
        elif rc == 2:
            allowed = ALLOWED_2.get((self.entry, host))
            self.cnj.append((host, why2, allowed))
            if not allowed:
                self.bad.append(host)
        else:
            self.bad.append(host)
            self.cnj.append((host, "exit %d: %s" % (rc, why2), None))

    def report(self):
        print("%-9s hosts %d, healthy %d, false positives %d, could not judge %d" % (
            self.entry, self.hosts, self.healthy, len(self.fp), len(self.cnj)))
        for h, ids in self.fp:
            print("  FALSE POSITIVE %s: %s" % (h, ", ".join(ids)))
        for h, why, allowed in self.cnj:
            print("  could not judge %s: %s%s" % (h, (why or "?")[:300],
                                                  " (allowed: %s)" % allowed if allowed else " (NOT allowed)"))
        for h, what in self.unread:
            print("  NOT READ %s: %s" % (h, what))
        return not self.fp and not self.bad and not self.unread


def check_host(binary, out, name, nports):
    rc, doc = run_json([binary, "check", "--sysfs-root", str(out / name / "sys"), "--json"])
    if rc == 2 and "unevaluated" in doc:
        doc["unevaluated_text"] = [u.get("text", str(u)) if isinstance(u, dict) else str(u) for u in doc["unevaluated"]]
    checked = len(doc.get("checked", []))
    return rc, doc, (None if checked == nports or "error" in doc else "%d of %d ports checked" % (checked, nports))


def diagnose_host(binary, out, name):
    b = out / name / "bundle"
    caps = sorted((d.name for d in b.iterdir() if d.is_dir()), key=lambda s: int(s[1:]))
    cmd = [binary, "diagnose"]
    for c in caps:
        cmd += ["--bundle", c]
    rc, doc = run_json(cmd + ["--json"], cwd=b)
    unread = []
    if "error" not in doc or doc.get("inputs"):
        if len(doc.get("hosts", [])) != 1:
            unread.append("one host read as %d: %s" % (len(doc.get("hosts", [])), doc.get("hosts")))
        for inp in doc.get("inputs", []):
            if not inp.get("samples"):
                unread.append("%s: no samples" % inp.get("name"))
            unread += [n for n in inp.get("notes", []) if "not a format rocehealth reads" in n]
    return rc, doc, "; ".join(unread) or None


def agents(binary, out, names, seconds, work):
    """One agent per host on its tree, all at once, while LiveWriter moves the trees' counters on
    from the last capture (every 0.5 s; the agents sample every 2 s, so a rate is off by at most a
    quarter). After `seconds` (and until no rule is left short of its window, at most 30 s more)
    reads /api/v1/findings; every finding_opened event of the agent's log counts too (a finding
    that opened and closed again is still a false positive). Stops them with SIGTERM."""
    writer = make_zoo.LiveWriter(out, names)
    writer.update(0)
    procs = {}
    for n in names:
        cfg = work / ("%s.json" % n)
        cfg.write_text(json.dumps({"sysfs_root": str(out / n / "sys"), "host": n, "collect_interval_s": 2,
                                   "retention_s": 120, "http": {"listen": "127.0.0.1:0"}}))
        log = open(work / ("%s.log" % n), "w")
        procs[n] = (subprocess.Popen([binary, "agent", "--config", str(cfg)], stdout=subprocess.DEVNULL, stderr=log), log)
    start = time.time()

    def tick():  # moves the counters on; returns after about 0.5 s
        writer.update(time.time() - start)
        time.sleep(max(0.0, 0.5 - (time.time() - start) % 0.5))

    def log_events(n):
        ev = []
        for line in (work / ("%s.log" % n)).read_text().splitlines():
            try:
                ev.append(json.loads(line))
            except ValueError:
                pass
        return ev

    results = {}
    try:
        while time.time() < start + seconds:
            tick()
            for n, (p, _) in procs.items():
                if p.poll() is not None and n not in results:
                    results[n] = (2, {"error": "agent exited %d: %s" % (p.returncode, (work / ("%s.log" % n)).read_text()[-400:])})
        pending = [n for n in names if n not in results]
        stop = time.time() + 30
        while pending and time.time() < stop:
            for n in list(pending):
                port = next((e["port"] for e in log_events(n) if e.get("event") == "http_listening"), None)
                if port is None:
                    continue
                try:
                    doc = json.load(urllib.request.urlopen("http://127.0.0.1:%d/api/v1/findings" % port, timeout=5))
                except OSError as e:
                    doc = {"error": "GET /api/v1/findings: %s" % e}
                short = [j for j in doc.get("not_judged", []) if j.get("kind") == "short_span"]
                if short and time.time() < stop - 1:
                    continue  # the windows are not covered yet: ask again
                opened = [{"rule": e.get("rule"), "device": e.get("device")}
                          for e in log_events(n) if e.get("event") == "finding_opened"]
                doc["findings"] = doc.get("findings", []) + opened
                v = doc.get("verdict")
                rc = 1 if v == "findings" or doc["findings"] else 0 if v == "healthy" else 2
                results[n] = (rc, doc)
                pending.remove(n)
            if pending:
                tick()
        for n in pending:
            results[n] = (2, {"error": "no answer from the agent"})
    finally:
        for n, (p, log) in procs.items():
            if p.poll() is None:
                p.send_signal(signal.SIGTERM)
        for n, (p, log) in procs.items():
            try:
                p.wait(timeout=10)
            except subprocess.TimeoutExpired:
                p.kill()
            log.close()
    return results


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("rocehealth")
    ap.add_argument("--out", help="write the zoo here and keep it (default: a temporary directory)")
    ap.add_argument("--agent-seconds", type=float, default=40)
    ap.add_argument("--no-agent", action="store_true")
    ap.add_argument("--dump", help="write each answer (JSON) to DIR/<entry>-<host>.json")
    ap.add_argument("hosts", nargs="*")
    a = ap.parse_intermixed_args()
    global DUMP
    if a.dump:
        os.makedirs(a.dump, exist_ok=True)
        DUMP = a.dump
    binary = os.path.abspath(a.rocehealth)
    if not os.access(binary, os.X_OK):
        print("run_zoo.py: %s is not an executable" % binary, file=sys.stderr)
        return 2
    # /dev/shm when there is one: the agents' trees are rewritten twice a second
    shm = "/dev/shm" if os.access("/dev/shm", os.W_OK) else None
    tmp = tempfile.TemporaryDirectory(prefix="rh-zoo-", dir=shm)
    out = Path(a.out or tmp.name) / "zoo"
    work = Path(tmp.name) / "agents"
    work.mkdir(parents=True, exist_ok=True)
    if make_zoo.main(["make_zoo.py", str(out)]) != 0:
        return 2
    described = json.loads((out / "hosts.json").read_text())
    names = [h["name"] for h in described]
    nports = {h["name"]: len(h["devices"]) for h in described}
    if a.hosts:
        unknown = set(a.hosts) - set(names)
        if unknown:
            print("run_zoo.py: no zoo host named %s" % ", ".join(sorted(unknown)), file=sys.stderr)
            return 2
        names = [n for n in names if n in a.hosts]

    tallies = []
    t = Tally("check")
    for n in names:
        t.add(n, *check_host(binary, out, n, nports[n]))
    tallies.append(t)
    t = Tally("diagnose")
    for n in names:
        t.add(n, *diagnose_host(binary, out, n))
    tallies.append(t)
    if not a.no_agent:
        t = Tally("agent")
        res = agents(binary, out, names, a.agent_seconds, work)
        for n in names:
            rc, doc = res[n]
            if rc == 2 and not doc.get("error"):
                doc["unevaluated_text"] = [u.get("text", str(u)) if isinstance(u, dict) else str(u)
                                           for u in doc.get("unevaluated", []) + doc.get("not_judged", [])]
            samples = sum(i.get("samples", 0) for i in doc.get("inputs", []))
            t.add(n, rc, doc, None if samples or doc.get("error") else "the agent collected no samples")
        tallies.append(t)
    ok = True
    for t in tallies:
        ok = t.report() and ok
    print("healthy_zoo: %s (%d hosts)" % ("PASS" if ok else "FAIL", len(names)))
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
