#!/usr/bin/env python3
"""Metamorphic shape test (issue 26): the same captures pasted in other shapes keep their verdict.

Every case of tests/cases (and of ../shared/cases next to the repository, when that folder
exists: optional input) is rewritten into the shapes operators produce: a header line dropped,
indentation changed, CRLF, prompt lines with several commands in one file, all files merged into
one collect.txt with section markers (each marker style), noise blocks between sections, a `date`
line in place of the `timestamp` file, `watch` screens, `set -x` lines, other file names, and all
clocks removed. `rocehealth diagnose --json` runs on the original and on each shape; a shape is
right for a case when the exit code and the set of finding rule ids equal the original's (the
test asserts invariance, never a hard-coded result). The no-clock shape is compared with the
no-clock run of the original, and must judge (not refuse) whenever the original judged.

Shapes that change a case's meaning by design are skipped for that case with the reason printed
(e.g. `lspci -t` trees, whose indentation is their structure, are not re-indented).

usage: shapes.py ROCEHEALTH CASES_DIR [--shared DIR|--no-shared] [--jobs N] [--shape S]...
                 [--case ID]... [--keep DIR] [--emit DIR] [--seeds DIR]
Prints accuracy per shape and per case class; exits 0 only when every shape is at 100 %.
--emit DIR writes the shaped captures and exits; --seeds DIR writes each shaped capture as one
fuzz_bundle seed (tests/fuzz/run.sh) and exits (ROCEHEALTH may then be "-").
"""
import argparse
import calendar
import concurrent.futures
import hashlib
import json
import os
import random
import re
import shutil
import subprocess
import sys
import tempfile
import time

NAMED = ("timestamp", "timestamp.txt", "hostname", "hostname.txt")
# Shapes that need in-file clocks (issue 26 class 1, the clock helper's branch): until that
# work is merged they fail; they stay in the test and are marked in the report.
NEEDS_IN_FILE_CLOCKS = {"date-c-utc", "date-R", "date-Is", "date-CST", "no-clock"}
# Shapes that move job logs between a logs-only directory and the hosts' captures: they hold
# once the bundle reader reads a directory of logs alone (issue 28); until then they are marked.
NEEDS_LOG_BUNDLES = {"log-into-logs-dir", "logs-dir-into-capture"}


# --- reading a case --------------------------------------------------------------------------

def natural_key(s):
    return [int(t) if t.isdigit() else t for t in re.split(r"(\d+)", s)]


def read_case(path):
    """{capture dir name: [(file name, bytes)]} in `sort -V` order of the capture dirs."""
    caps = {}
    for d in sorted(os.listdir(path), key=natural_key):
        full = os.path.join(path, d)
        if not os.path.isdir(full):
            continue
        files = []
        for name in sorted(os.listdir(full)):
            p = os.path.join(full, name)
            if os.path.isfile(p):
                with open(p, "rb") as fh:
                    files.append((name, fh.read()))
        caps[d] = files
    return caps


def is_text(data):
    return b"\0" not in data and not data.startswith((b"\xff\xfe", b"\xfe\xff"))


def text_of(data):
    """Text as LF lines (a UTF-8 BOM kept out)."""
    s = data.decode("utf-8", "surrogateescape")
    if s.startswith("\ufeff"):
        s = s[1:]
    return s.replace("\r\n", "\n").replace("\r", "\n")


def bytes_of(text):
    return text.encode("utf-8", "surrogateescape")


PROMPT = re.compile(r"^(\[[^\]]*@[^\]]*\][#$]|[\w.-]+@[\w.-]+(:\S*)?[#$]|[#$])( |$)")
LSPCI_TREE = re.compile(r"-\[[0-9a-f]{4}:[0-9a-f]{2}\]-")


def interface_words(caps):
    """Netdev names, altnames and RDMA device names the case's captures print."""
    words = set()
    for files in caps.values():
        for name, data in files:
            if not is_text(data):
                continue
            t = text_of(data)
            words.update(re.findall(r"^\d+:\s+([\w.-]+?)(?:@[\w.-]+)?:\s+<", t, re.M))
            words.update(re.findall(r"^\s*altname\s+(\S+)", t, re.M))
            words.update(re.findall(r"hca_id:\s*(\S+)", t))
            words.update(re.findall(r"infiniband/([\w-]+)/", t))
            words.update(re.findall(r"^link\s+([\w-]+)/\d+", t, re.M))
        for name, _ in files:  # "eth2-pfc.txt": a name that names its interface is evidence
            words.update(w for w in re.split(r"[-_.]", name)
                         if re.fullmatch(r"(eth|ens|enp|eno|enP|ib|bond)\d[A-Za-z0-9]*", w))
    words.discard("lo")
    return words


def iface_in_name(name, words):
    found = [w for w in words if re.search(r"(?<![A-Za-z0-9])%s(?![A-Za-z0-9])" % re.escape(w), name)]
    return max(found, key=len) if found else None


def command_for(name, text, words):
    """The command a collection script would have run for this file: `ethtool -S|-i <if>` when
    the content and the file name say so, else `cat NAME`; None when the file starts with its
    own prompt line (it carries its command)."""
    first = next((l for l in text.split("\n") if l.strip()), "")
    if PROMPT.match(first):
        return None
    iface = iface_in_name(name, words)
    if iface and re.search(r"^NIC statistics:", text, re.M):
        return "ethtool -S " + iface
    if iface and re.search(r"^\s*driver:", text, re.M) and re.search(r"^\s*bus-info:", text, re.M):
        return "ethtool -i " + iface
    return "cat " + name


# --- shapes ----------------------------------------------------------------------------------

class Skip(Exception):
    """The shape changes this case's meaning by design (the reason is printed)."""


class NotApplicable(Exception):
    """The shape would not change this case (nothing to transform)."""


def map_text_files(caps, fn):
    out, changed = {}, False
    for cap, files in caps.items():
        new = []
        for name, data in files:
            if name in NAMED or not is_text(data):
                new.append((name, data))
                continue
            t = fn(name, text_of(data))
            changed = changed or t != text_of(data)
            new.append((name, bytes_of(t)))
        out[cap] = new
    if not changed:
        raise NotApplicable("nothing to change")
    return out


def drop_header(caps, ctx):
    return map_text_files(caps, lambda n, t: re.sub(r"(?m)^[ \t]*NIC statistics:[ \t]*\n", "", t))


def reindent(indent):
    def shape(caps, ctx):
        def fn(name, t):
            if LSPCI_TREE.search(t):
                ctx["notes"].append("%s: an lspci -t tree is left as is (its columns are its "
                                    "structure)" % name)
                return t
            return re.sub(r"(?m)^[ \t]+(?=\S)", indent, t)
        return map_text_files(caps, fn)
    return shape


def tab_separators(caps, ctx):
    def fn(name, t):
        if LSPCI_TREE.search(t):
            ctx["notes"].append("%s: an lspci -t tree is left as is" % name)
            return t
        t = re.sub(r"(?m)^[ \t]+(?=\S)", "\t", t)
        return re.sub(r"(?<=\S) {2,}(?=\S)", "\t", t)
    return map_text_files(caps, fn)


def crlf(caps, ctx):
    return map_text_files(caps, lambda n, t: t.replace("\n", "\r\n"))


def host_of(files):
    for name, data in files:
        if name in ("hostname", "hostname.txt"):
            for l in text_of(data).split("\n"):
                if l.strip() and not PROMPT.match(l):
                    return l.strip()
    return None


def text_files(files):
    return [(n, d) for n, d in files if n not in NAMED and is_text(d)]


def merged(marker, out_name="collect.txt", noise=False, prompt=False):
    """All text files of each capture as one file, each after a marker line; binary files and
    the `timestamp` / `hostname` files stay as they are."""
    def shape(caps, ctx):
        out = {}
        for i, (cap, files) in enumerate(caps.items()):
            texts = text_files(files)
            if len(texts) < 1:
                out[cap] = files
                continue
            host = host_of(files) or "localhost"
            chunks = []
            if noise:
                chunks.append(noise_block(ctx, cap, 0))
            for k, (name, data) in enumerate(texts):
                t = text_of(data)
                cmd = command_for(name, t, ctx["words"])
                if prompt:
                    head = "[root@%s ~]# %s\n" % (host, cmd) if cmd else ""
                else:
                    head = marker(name, cmd or "cat " + name) + "\n"
                chunks.append(head + t.rstrip("\n") + "\n")
                if noise:
                    chunks.append(noise_block(ctx, cap, k + 1))
            rest = [(n, d) for n, d in files if (n, d) not in texts]
            out[cap] = rest + [(out_name, bytes_of(("\n" if not prompt else "").join(chunks)))]
        return out
    return shape


def per_file_marker(marker):
    """A marker line on top of each file (a script's `set -x` trace above its output)."""
    def shape(caps, ctx):
        def fn(name, t):
            cmd = command_for(name, t, ctx["words"])
            return t if cmd is None else marker(name, cmd) + "\n" + t
        return map_text_files(caps, fn)
    return shape


# --- clocks ----------------------------------------------------------------------------------

def stamp_of(files):
    for name, data in files:
        if name in ("timestamp", "timestamp.txt"):
            t = text_of(data).strip().split("\n")[-1].strip()
            try:
                return float(t)
            except ValueError:
                pass
            for f in ("%a %b %d %H:%M:%S UTC %Y", "%b %d %H:%M:%S UTC %Y", "%Y-%m-%dT%H:%M:%SZ",
                      "%Y-%m-%dT%H:%M:%S+00:00"):
                try:
                    return float(calendar.timegm(time.strptime(" ".join(t.split()), f)))
                except ValueError:
                    pass
            return "unreadable"
    return None


DAYS = ["Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun"]
MONTHS = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]


def fmt_date(t, style):
    """`date` output for epoch seconds t (whole seconds), in the C locale."""
    offset = -6 * 3600 if style == "CST" else 0
    tm = time.gmtime(int(round(t)) + offset)
    wd, mon = DAYS[tm.tm_wday], MONTHS[tm.tm_mon - 1]
    hms = "%02d:%02d:%02d" % (tm.tm_hour, tm.tm_min, tm.tm_sec)
    if style == "c-utc":
        return "%s %s %2d %s UTC %d" % (wd, mon, tm.tm_mday, hms, tm.tm_year)
    if style == "CST":
        return "%s %s %2d %s CST %d" % (wd, mon, tm.tm_mday, hms, tm.tm_year)
    if style == "R":
        return "%s, %02d %s %d %s +0000" % (wd, tm.tm_mday, mon, tm.tm_year, hms)
    if style == "Is":
        return "%04d-%02d-%02dT%s+00:00" % (tm.tm_year, tm.tm_mon, tm.tm_mday, hms)
    if style == "ctime":  # watch's header: ctime, local time (here UTC), no zone
        return "%s %s %2d %s %d" % (wd, mon, tm.tm_mday, hms, tm.tm_year)
    raise ValueError(style)


def stamps(caps):
    s = {cap: stamp_of(files) for cap, files in caps.items()}
    if all(v is None for v in s.values()):
        raise NotApplicable("no timestamp file")
    if any(v == "unreadable" for v in s.values()):
        raise Skip("a timestamp file this generator cannot read (the case tests it)")
    return s


def date_lines(style):
    """The `timestamp` file replaced by a `date` line on top of each file (`date; cmd`)."""
    def shape(caps, ctx):
        s = stamps(caps)
        out = {}
        for cap, files in caps.items():
            if s[cap] is None:
                out[cap] = files
                continue
            line = fmt_date(s[cap], style)
            out[cap] = [(n, bytes_of(line + "\n" + text_of(d))) if n not in NAMED and is_text(d)
                        else (n, d) for n, d in files if n not in ("timestamp", "timestamp.txt")]
        return out
    return shape


def watch_screens(caps, ctx):
    """Each file as a `watch -d` screen: "Every 2.0s: CMD   host: DATE", a blank line, the
    output with some numbers in reverse video, as a terminal log keeps them."""
    s = stamps(caps)
    out = {}
    for cap, files in caps.items():
        host = host_of(files) or "localhost"
        new = []
        for name, data in files:
            if name in NAMED or not is_text(data) or s[cap] is None:
                new.append((name, data))
                continue
            t = text_of(data)
            cmd = command_for(name, t, ctx["words"])
            if cmd is None:
                new.append((name, data))
                continue
            left = "Every 2.0s: " + cmd
            right = "%s: %s" % (host, fmt_date(s[cap], "ctime"))
            head = left + " " * max(2, 100 - len(left) - len(right)) + right
            lit = re.sub(r"(?<=: )(\d+)$", "\x1b[7m\\1\x1b(B\x1b[m", t, count=3, flags=re.M)
            new.append((name, bytes_of("\x1b[H\x1b[2J" + head + "\n\n" + lit)))
        out[cap] = new
    return out


DATE_LINE = re.compile(r"^(?:(?:Mon|Tue|Wed|Thu|Fri|Sat|Sun),? )?.*\b\d{2}:\d{2}:\d{2}\b.*$")


def no_clock(caps, ctx):
    """Every clock removed: `timestamp` files and `date` lines."""
    removed = False
    out = {}
    for cap, files in caps.items():
        new = []
        for name, data in files:
            if name in ("timestamp", "timestamp.txt"):
                removed = True
                continue
            if is_text(data) and name not in NAMED:
                lines = text_of(data).split("\n")
                keep = [l for l in lines if not re.match(
                    r"^\s*(Mon|Tue|Wed|Thu|Fri|Sat|Sun),? +\S+ +\S+ +\d{2}:\d{2}:\d{2}", l)]
                if len(keep) != len(lines):
                    removed = True
                    data = bytes_of("\n".join(keep))
            new.append((name, data))
        out[cap] = new
    if not removed:
        raise NotApplicable("no clock in the captures")
    return out


# --- noise -----------------------------------------------------------------------------------

def noise_block(ctx, cap, k):
    """Output of a command rocehealth does not read, under its own `###` marker. sar only where
    the capture has a timestamp (its times agree with it); no `uptime` / top banner (uptime is
    read: noise must add no fact)."""
    kinds = ["free", "dstat", "top", "df", "uname", "lsmod"]
    stamp = ctx["stamps"].get(cap)
    if isinstance(stamp, float):
        kinds.append("sar")
    kind = kinds[(k + len(cap)) % len(kinds)]
    if kind == "free":
        return ("### free -m\n"
                "               total        used        free      shared  buff/cache   available\n"
                "Mem:          515581       23410      487019          21        5152      488970\n"
                "Swap:           8191           0        8191\n")
    if kind == "dstat":
        return ("### dstat -cdn 1 3\n"
                "----total-cpu-usage---- -dsk/total- -net/total-\n"
                "usr sys idl wai stl| read  writ| recv  send\n"
                "  2   1  97   0   0|  12k  345k|  22M   21M\n"
                "  3   1  96   0   0|   0   128k|  23M   22M\n"
                "  2   1  97   0   0|   0     0 |  21M   21M\n")
    if kind == "top":
        return ("### top -bn1 | sed -n 2,12p\n"
                "Tasks: 812 total,   1 running, 811 sleeping,   0 stopped,   0 zombie\n"
                "%Cpu(s):  1.2 us,  0.6 sy,  0.0 ni, 98.1 id,  0.0 wa,  0.0 hi,  0.1 si,  0.0 st\n"
                "MiB Mem : 515581.2 total, 487019.4 free,  23410.1 used,   5151.7 buff/cache\n"
                "MiB Swap:   8192.0 total,   8192.0 free,      0.0 used. 488970.3 avail Mem\n"
                "\n"
                "    PID USER      PR  NI    VIRT    RES    SHR S  %CPU  %MEM     TIME+ COMMAND\n"
                "  48211 mluser    20   0   92.1g   4.2g 310244 S 101.0   0.8 112:41.07 python3\n"
                "   1873 root      20   0       0      0      0 I   0.3   0.0   0:42.11 kworker/u256:2-mlx5_health0000:3b:00.0\n"
                "      1 root      20   0  169432  13120   8412 S   0.0   0.0   0:21.48 systemd\n")
    if kind == "df":
        return ("### df -h\n"
                "Filesystem      Size  Used Avail Use% Mounted on\n"
                "/dev/nvme0n1p2  440G   41G  377G  10% /\n"
                "tmpfs           252G     0  252G   0% /dev/shm\n")
    if kind == "uname":
        return ("### uname -a\n"
                "Linux node 5.15.0-91-generic #101-Ubuntu SMP Tue Nov 14 13:30:08 UTC 2023 "
                "x86_64 x86_64 x86_64 GNU/Linux\n")
    if kind == "lsmod":
        return ("### lsmod | grep -E 'mlx|ib_|bnxt|irdma|ice'\n"
                "mlx5_ib               454656  0\n"
                "ib_uverbs             163840  2 rdma_ucm,mlx5_ib\n"
                "ib_core               417792  8 rdma_cm,ib_ipoib,iw_cm,ib_umad,rdma_ucm,ib_uverbs,mlx5_ib,ib_cm\n"
                "mlx5_core            2027520  1 mlx5_ib\n"
                "mlxfw                  36864  1 mlx5_core\n"
                "psample                20480  1 mlx5_core\n")
    # sar: three one-second samples ending at the capture's time, in UTC
    t0 = int(stamp) - 3
    rows = []
    for i in range(3):
        tm = time.gmtime(t0 + i)
        rows.append("%02d:%02d:%02d        lo      0.00      0.00      0.00      0.00      0.00      0.00      0.00      0.00"
                    % (tm.tm_hour, tm.tm_min, tm.tm_sec))
    tm = time.gmtime(t0)
    return ("### sar -n DEV 1 3\n"
            "Linux 5.15.0-91-generic (node) \t%02d/%02d/%04d \t_x86_64_\t(64 CPU)\n\n" % (tm.tm_mon, tm.tm_mday, tm.tm_year)
            + "%02d:%02d:%02d        IFACE   rxpck/s   txpck/s    rxkB/s    txkB/s   rxcmp/s   txcmp/s  rxmcst/s   %%ifutil\n"
            % (tm.tm_hour, tm.tm_min, tm.tm_sec)
            + "\n".join(rows) + "\n"
            + "Average:           lo      0.00      0.00      0.00      0.00      0.00      0.00      0.00      0.00\n")


# --- file names ------------------------------------------------------------------------------

def renamed(caps, ctx):
    """Random names without extension; an interface or device name in the old name is kept
    (a file name that names its interface is evidence, collectors/bundle/bundle.h)."""
    rnd = random.Random(ctx["seed"])
    out = {}
    for cap, files in caps.items():
        new, used = [], set()
        for name, data in files:
            if name in NAMED:
                new.append((name, data))
                continue
            base = "".join(rnd.choice("abcdefghijklmnopqrstuvwxyz0123456789") for _ in range(8))
            iface = iface_in_name(name, ctx["words"])
            n = base + ("-" + iface if iface else "")
            while n in used or n in NAMED:
                n += "x"
            used.add(n)
            new.append((n, data))
        out[cap] = new
    return out


# --- job logs (issue 28) -------------------------------------------------------------------
# The shapes a job's own log (NCCL, UCX, perftest) is pasted in: ranks interleaved, each line
# prefixed by the launcher, the last line cut, several hosts' logs joined into one file or one
# file split per host, and the logs moved between a `logs/` directory and the hosts' captures.
# Kernel logs (dmesg, journalctl) are left alone: dmesg lines do not name their host, so where
# they sit is their meaning. CRLF line ends of logs are the `crlf` shape above (every text file).

JOB_LOG = re.compile(r"NCCL (?:INFO|WARN)|\bUCX\s+(?:ERROR|WARN|INFO|DIAG)|ib_mlx5_log\.c|Completion with error at"
                     r"|Failed status \d|BW average\[|#bytes\s+#iterations")
# A line that holds the evidence itself: cutting it would change the case by design.
EVENT_LINE = re.compile(r"NCCL WARN|UCX\s+ERROR|Got completion|Failed status|Completion with error|retry count"
                        r"|Link (?:down|up)|segfault|Killed process|Xid|CANCELLED|async event", re.I)
LAUNCH_PREFIX = re.compile(r"^(?:\d+: |\[1,\d+\]<std(?:out|err)>:|\[pod/[^\]]*\] )")
LINE_HOST = re.compile(r"(?:^|[\s\]:>])\[?([A-Za-z][\w.-]*):(\d+):(\d+)(?:\]| \[\d+\])")


def is_job_log(name, data):
    return name not in NAMED and is_text(data) and JOB_LOG.search(text_of(data)) is not None


def sorted_caps(caps):
    return {k: caps[k] for k in sorted(caps, key=natural_key)}


def job_logs_by_cap(caps):
    found = {cap: [n for n, d in files if is_job_log(n, d)] for cap, files in caps.items()}
    return {cap: names for cap, names in found.items() if names}


def split_keep(t):
    """Lines of a text and whether it ended with a newline."""
    return t.split("\n")[:-1] if t.endswith("\n") else t.split("\n"), t.endswith("\n")


def map_job_logs(caps, fn, none_msg):
    """Each job log of each capture replaced by fn(cap, name, text): a list of (name, text) files
    (several when it splits the log), or None to keep it as it is. NotApplicable(none_msg) when
    fn changed nothing."""
    out, done = {}, False
    logs = job_logs_by_cap(caps)
    for cap, files in caps.items():
        new = []
        for n, d in files:
            got = fn(cap, n, text_of(d)) if n in logs.get(cap, []) else None
            if got is None:
                new.append((n, d))
                continue
            new += [(nn, bytes_of(t)) for nn, t in got]
            done = True
        out[cap] = new
    if not done:
        raise NotApplicable(none_msg)
    return out


def prefix_logs(fmt):
    """Every line of each job log prefixed as a launcher does (`srun -l` "3: ", `mpirun
    --tag-output` "[1,3]<stdout>:", `kubectl logs --prefix` "[pod/trainer-worker-3/pytorch] "),
    a rank / pod number per file; a log already prefixed keeps its own."""
    def shape(caps, ctx):
        count = [0]

        def fn(cap, n, t):
            lines, nl = split_keep(t)
            if LAUNCH_PREFIX.match(next((l for l in lines if l.strip()), "")):
                return None
            count[0] += 1
            return [(n, "\n".join(fmt % (count[0] - 1) + l for l in lines) + ("\n" if nl else ""))]
        return map_job_logs(caps, fn, "no job log without a launcher prefix")
    return shape


def cut_last_line(caps, ctx):
    """The last line of each job log cut mid-way, with no newline (a copy stopped short)."""
    def fn(cap, n, t):
        lines, _ = split_keep(t)
        while lines and not lines[-1].strip():
            lines.pop()
        if not lines or len(lines[-1]) < 8:
            return None
        if EVENT_LINE.search(lines[-1]):
            raise Skip("%s/%s ends with an event line: cutting it changes the evidence" % (cap, n))
        lines[-1] = lines[-1][:len(lines[-1]) // 2]
        return [(n, "\n".join(lines))]
    return map_job_logs(caps, fn, "no job log")


def host_of_line(line):
    m = LINE_HOST.search(LAUNCH_PREFIX.sub("", line, count=1))
    return m.group(1) if m else None


def split_by_host(caps, ctx):
    """A job log naming several hosts ("gpu01:1234:1250 [3] ...", "[gpu01:1234:0] ...") split into
    one file per host in the same capture; a line naming no host stays with the line above it."""
    def fn(cap, n, t):
        per, order, cur = {}, [], None
        for l in split_keep(t)[0]:
            cur = host_of_line(l) or cur
            if (cur or "") not in per:
                per[cur or ""] = []
                order.append(cur or "")
            per[cur or ""].append(l)
        hosts = [h for h in order if h]
        if len(hosts) < 2:
            return None
        if "" in per:  # lines before the first host line go with the first host
            per[hosts[0]] = per.pop("") + per[hosts[0]]
        stem = n.rsplit(".", 1)[0]
        return [("%s-%s.log" % (stem, h), "\n".join(per[h]) + "\n") for h in hosts]
    return map_job_logs(caps, fn, "no job log names two hosts")


def merge_logs_of_capture(merge, out_name=None):
    """The job logs of each capture that holds two or more replaced by one file: merge(texts) of
    their texts, named out_name (or the first log's name)."""
    def shape(caps, ctx):
        out, done = {}, False
        logs = job_logs_by_cap(caps)
        for cap, files in caps.items():
            names = logs.get(cap, [])
            if len(names) < 2:
                out[cap] = files
                continue
            d = dict(files)
            body = merge([text_of(d[n]) for n in names])
            name = out_name or names[0]
            out[cap] = [(n, dd) for n, dd in files if n not in names] + [(name, bytes_of(body))]
            done = True
        if not done:
            raise NotApplicable("no capture holds two job logs")
        return out
    return shape


def interleaved(texts):
    """Two logs as one terminal shows them: their lines alternate, each file's order kept."""
    a, b = split_keep(texts[0])[0], split_keep(texts[1])[0]
    out = []
    for i in range(max(len(a), len(b))):
        out += a[i:i + 1] + b[i:i + 1]
    return "\n".join(out) + "\n" + "".join(texts[2:])


def concatenated(texts):
    """`cat *.log > job-all.log`."""
    return "".join(t if t.endswith("\n") else t + "\n" for t in texts)


def logs_to_logs_dir(caps, ctx):
    """Job logs moved out of the hosts' capture directories into one `logs/` directory beside them
    (a file name that would clash gets the capture's name in front)."""
    logs = job_logs_by_cap(caps)
    moved = [(cap, n) for cap, names in logs.items() for n in names]
    if not moved or (len(caps) == 1):
        raise NotApplicable("no job log inside a host's capture")
    out = {cap: [(n, d) for n, d in files if (cap, n) not in moved] for cap, files in caps.items()}
    if any(not files for files in out.values()):
        raise NotApplicable("a capture holding only job logs is already a logs directory")
    target, used = [], set()
    for cap, files in caps.items():
        for n, d in files:
            if (cap, n) in moved:
                name = n if n not in used else "%s-%s" % (cap, n)
                used.add(name)
                target.append((name, d))
    out["logs" if "logs" not in out else "joblogs"] = target
    return sorted_caps(out)


def logs_dir_into_capture(caps, ctx):
    """A directory holding only job logs emptied into the last capture of the case (the logs
    pasted with the last capture)."""
    only = [cap for cap, files in caps.items() if files and all(is_job_log(n, d) for n, d in files)]
    rest = [cap for cap in caps if cap not in only]
    if not only or not rest:
        raise NotApplicable("no directory holding only job logs beside host captures")
    last = rest[-1]
    out = {cap: list(files) for cap, files in caps.items() if cap not in only}
    names = {n for n, _ in out[last]}
    for cap in only:
        for n, d in caps[cap]:
            name = n if n not in names else "%s-%s" % (cap, n)
            names.add(name)
            out[last].append((name, d))
    return sorted_caps(out)


# --- the shape table -------------------------------------------------------------------------

SHAPES = [
    ("header-dropped", drop_header),
    ("indent-none", reindent("")),
    ("indent-tabs", reindent("\t")),
    ("indent-8-spaces", reindent(" " * 8)),
    ("tab-separators", tab_separators),
    ("crlf", crlf),
    ("prompts-one-file", merged(None, "session.log", prompt=True)),
    ("merged-tail-headers", merged(lambda n, c: "\n==> %s <==" % n)),
    ("merged-hash-banner", merged(lambda n, c: "### " + c)),
    ("merged-hash2-banner", merged(lambda n, c: "## " + c)),
    ("merged-dash-banner", merged(lambda n, c: "---- %s ----" % c)),
    ("merged-equals-banner", merged(lambda n, c: "=== %s ===" % c)),
    ("merged-chevron", merged(lambda n, c: ">>> " + c)),
    ("merged-set-x", merged(lambda n, c: "+ " + c)),
    ("merged-with-noise", merged(lambda n, c: "### " + c, noise=True)),
    ("set-x-per-file", per_file_marker(lambda n, c: "+ " + c)),
    ("watch-screens", watch_screens),
    ("date-c-utc", date_lines("c-utc")),
    ("date-R", date_lines("R")),
    ("date-Is", date_lines("Is")),
    ("date-CST", date_lines("CST")),
    ("renamed", renamed),
    ("log-interleave", merge_logs_of_capture(interleaved)),
    ("log-prefix-srun", prefix_logs("%d: ")),
    ("log-prefix-mpirun", prefix_logs("[1,%d]<stdout>:")),
    ("log-prefix-kubectl", prefix_logs("[pod/trainer-worker-%d/pytorch] ")),
    ("log-cut-last-line", cut_last_line),
    ("log-split-per-host", split_by_host),
    ("log-join-one-file", merge_logs_of_capture(concatenated, "job-all.log")),
    ("log-into-logs-dir", logs_to_logs_dir),
    ("logs-dir-into-capture", logs_dir_into_capture),
    ("no-clock", lambda caps, ctx: no_clock_merged(caps, ctx)),
]


def no_clock_merged(caps, ctx):
    """Every clock removed from another shape of the case (its files merged with noise between
    them, the timestamp as `date` lines first), so the time-free findings are read through the
    shapes too; compared with the no-clock run of the original."""
    bare = list(no_clock(caps, ctx).values())
    if len(bare) > 1 and all(sorted(b) == sorted(bare[0]) for b in bare[1:]):
        raise Skip("without its clock every capture is the same (the same capture given twice)")
    try:
        caps = date_lines("c-utc")(caps, ctx)
    except NotApplicable:
        pass
    return no_clock(merged(lambda n, c: "### " + c, noise=True)(caps, ctx), ctx)


# --- running ---------------------------------------------------------------------------------

def write_case(root, caps):
    shutil.rmtree(root, ignore_errors=True)
    os.makedirs(root)
    for cap, files in caps.items():
        os.makedirs(os.path.join(root, cap))
        for name, data in files:
            with open(os.path.join(root, cap, name), "wb") as fh:
                fh.write(data)


def verdict(binary, root, caps, args):
    cmd = [binary, "diagnose"]
    for cap in caps:
        cmd += ["--bundle", cap]
    cmd += args + ["--json"]
    try:
        p = subprocess.run(cmd, cwd=root, capture_output=True, timeout=60)
    except subprocess.TimeoutExpired:
        return (-1, ("timeout",), False)
    try:
        doc = json.loads(p.stdout.decode("utf-8", "replace"))
    except ValueError:
        return (p.returncode, ("unparsable --json",), False)
    rules = tuple(sorted({f.get("rule", "?") for f in doc.get("findings", [])}))
    # Refused as a whole ("give --interval"), not "could not judge" what needs a clock.
    refused = isinstance(doc, dict) and "error" in doc and "could_not_judge" not in doc
    return (p.returncode, rules, refused)


def show(v):
    return "exit %d %s%s" % (v[0], "{" + ", ".join(v[1]) + "}", " (refused)" if v[2] else "")


def load_cases(cases_dir, shared_dir):
    cases = []
    seen = set()
    for src, d in (("tests/cases", cases_dir), ("shared", shared_dir)):
        if not d or not os.path.isfile(os.path.join(d, "EXPECTED")):
            continue
        for line in open(os.path.join(d, "EXPECTED")):
            w = line.split()
            if not w or w[0].startswith("#") or w[0] in seen:
                continue
            if not os.path.isdir(os.path.join(d, w[0])):
                continue
            seen.add(w[0])
            cls = w[1] if src == "tests/cases" else "shared"
            args = []
            if os.path.isfile(os.path.join(d, w[0], "ARGS")):
                args = open(os.path.join(d, w[0], "ARGS")).read().split()
            cases.append({"id": w[0], "dir": os.path.join(d, w[0]), "class": cls, "args": args})
    return cases


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("binary")
    ap.add_argument("cases_dir")
    ap.add_argument("--shared", help="another cases folder (default: ../shared/cases next to the "
                    "repository, when it exists)")
    ap.add_argument("--no-shared", action="store_true")
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--shape", action="append", default=[])
    ap.add_argument("--case", action="append", default=[])
    ap.add_argument("--every", type=int, default=1,
                    help="only every Nth case by id, in every shape (the sanitizer build: each "
                         "diagnose there costs ~10x; the plain build runs every case)")
    ap.add_argument("--keep", help="write the shaped cases here (kept) instead of a temp dir")
    ap.add_argument("--emit", help="write the shaped captures of a few cases here and exit")
    ap.add_argument("--seeds", help="write each shaped capture as one fuzz_bundle seed here (its "
                    "files joined at \"=== NAME\" lines, tests/fuzz/run.sh) and exit")
    a = ap.parse_args()
    binary = os.path.abspath(a.binary)  # "-" with --emit: nothing runs
    cases_dir = os.path.abspath(a.cases_dir)
    shared = a.shared
    if shared is None and not a.no_shared:
        repo = os.path.dirname(os.path.dirname(cases_dir))
        cand = os.path.join(os.path.dirname(repo), "shared", "cases")
        shared = cand if os.path.isdir(cand) else None
    cases = load_cases(cases_dir, None if a.no_shared else shared)
    if a.case:
        cases = [c for c in cases if c["id"] in a.case]
    if a.every > 1:
        cases = sorted(cases, key=lambda c: c["id"])[::a.every]
    shapes = [(n, f) for n, f in SHAPES if not a.shape or n in a.shape]
    if a.emit:
        shutil.rmtree(a.emit, ignore_errors=True)
    work = a.keep or a.emit or a.seeds or tempfile.mkdtemp(prefix="rh-shapes-")

    # Build every shaped case first (cheap), then run diagnose on all of them in parallel.
    jobs = []  # (case, shape name, root, caps)
    skipped = []  # (case id, shape, reason)
    notes = {}
    for c in cases:
        caps = read_case(c["dir"])
        words = interface_words(caps)
        ctx = {"words": words, "notes": [], "seed": int(hashlib.sha1(c["id"].encode()).hexdigest()[:8], 16),
               "stamps": {cap: stamp_of(files) for cap, files in caps.items()}}
        root = os.path.join(work, c["id"])
        jobs.append((c, "original", os.path.join(root, "original"), caps))
        for name, fn in shapes:
            ctx["notes"] = []
            try:
                shaped = fn(caps, ctx)
            except NotApplicable:
                continue
            except Skip as e:
                skipped.append((c["id"], name, str(e)))
                continue
            for n in ctx["notes"]:
                notes.setdefault((c["id"], name), set()).add(n)
            jobs.append((c, name, os.path.join(root, name), shaped))
            if name == "no-clock":
                pass
        if any(n == "no-clock" for n, _ in shapes):
            try:
                jobs.append((c, "no-clock:original", os.path.join(root, "no-clock-original"), no_clock(caps, ctx)))
            except NotApplicable:
                pass
    if a.seeds:
        os.makedirs(a.seeds, exist_ok=True)
        for c, name, root, caps in jobs:
            for cap, files in caps.items():
                with open(os.path.join(a.seeds, "shape-%s-%s-%s" % (c["id"], name, cap)), "wb") as fh:
                    for fname, data in files:
                        body = data[:65536]
                        fh.write(b"=== " + bytes_of(fname) + b"\n" + body)
                        if body and not body.endswith(b"\n"):
                            fh.write(b"\n")
        print("fuzz seeds written under %s" % a.seeds)
        return 0
    for c, name, root, caps in jobs:
        write_case(root, caps)
    if a.emit:
        print("shaped captures written under %s" % work)
        return 0

    results = {}
    with concurrent.futures.ThreadPoolExecutor(max_workers=max(1, a.jobs)) as ex:
        futs = {ex.submit(verdict, binary, root, caps, c["args"]): (c["id"], name)
                for c, name, root, caps in jobs}
        for f in concurrent.futures.as_completed(futs):
            results[futs[f]] = f.result()

    per_shape = {n: [0, 0] for n, _ in shapes}
    per_class = {}
    failures = []
    for c, name, root, caps in jobs:
        if name in ("original", "no-clock:original"):
            continue
        got = results[(c["id"], name)]
        want = results[(c["id"], "original")]
        if name == "no-clock":
            ref = results[(c["id"], "no-clock:original")]
            ok = got[:2] == ref[:2] and not (got[2] and not want[2])
            why = ("no-clock original %s; original %s" % (show(ref), show(want)))
        else:
            ok = got == want
            why = "original %s" % show(want)
        per_shape[name][1] += 1
        per_shape[name][0] += ok
        pc = per_class.setdefault(c["class"], {})
        pc.setdefault(name, [0, 0])
        pc[name][1] += 1
        pc[name][0] += ok
        if not ok:
            failures.append("FAIL %s [%s]: %s; %s%s" % (
                c["id"], name, show(got), why,
                "  (needs in-file clocks: issue 26 class 1)" if name in NEEDS_IN_FILE_CLOCKS else
                "  (needs logs-only bundles: issue 28)" if name in NEEDS_LOG_BUNDLES else ""))

    for f in failures:
        print(f)
    for (cid, name), ns in sorted(notes.items()):
        for n in sorted(ns):
            print("note %s [%s]: %s" % (cid, name, n))
    for cid, name, why in skipped:
        print("skip %s [%s]: %s" % (cid, name, why))
    print("\nshape                   right/total")
    all_ok = True
    for n, _ in shapes:
        r, t = per_shape[n]
        mark = "" if r == t else ("   <- needs in-file clocks (issue 26 class 1)"
                                  if n in NEEDS_IN_FILE_CLOCKS else
                                  "   <- needs logs-only bundles (issue 28)" if n in NEEDS_LOG_BUNDLES else "   <- FAIL")
        all_ok = all_ok and r == t
        print("%-22s %5d/%-5d %5.1f %%%s" % (n, r, t, 100.0 * r / t if t else 100.0, mark))
    print("\nclass   right/total (all shapes)")
    for cls in sorted(per_class, key=lambda k: (0, int(k)) if k.isdigit() else (1, k)):
        r = sum(v[0] for v in per_class[cls].values())
        t = sum(v[1] for v in per_class[cls].values())
        print("%-7s %5d/%-5d" % (cls, r, t))
    total_r = sum(v[0] for v in per_shape.values())
    total_t = sum(v[1] for v in per_shape.values())
    print("total   %5d/%-5d  (%d cases, %d shapes, %d skipped with a reason)"
          % (total_r, total_t, len(cases), len(shapes), len(skipped)))
    if not a.keep:
        shutil.rmtree(work, ignore_errors=True)
    return 0 if all_ok and cases else 1


if __name__ == "__main__":
    sys.exit(main())
