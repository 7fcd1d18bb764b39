#!/usr/bin/env python3
"""Writes the replay scenarios of this directory (see README.md): per scenario
`<name>/<host>.jsonl` (a `rocehealth record` recording, schema 1, store/README.md) and
`<name>/expected.json` (the findings `rocehealth diagnose --replay ... --json` must give).

Python 3 standard library only, deterministic (one seeded random.Random per host), so the
committed output is reproducible: `python3 tests/scenarios/make_scenarios.py` rewrites it,
`--check` only compares. Edit this file, not the recordings.

Model: a host is sampled every 1 s. Every pass writes every normalized counter its driver has
(collectors/normalize_mlx5.cpp / normalize_rxe.cpp: names, units, labels, raw names, widths)
and the gauges (port state, rate, PFC per priority, ECN per priority on MLNX_OFED hosts).
A scenario says, per host and per second, how fast each counter grows (`Tick.rate`) and may
add exact increments, reset a counter, make it missing or change a gauge. Counters the
scenario leaves alone stay exactly flat (errors do not appear by accident).
"""
import argparse
import json
import math
import random
import sys
import zlib
from pathlib import Path

HERE = Path(__file__).resolve().parent
WALL0_MS = 1795939200000  # 2026-11-29T08:00:00Z, start of every scenario
PAUSE_QUANTUM_S_100G = 65535 * 512 / 100e9  # one PFC pause frame at full quanta: 335.5 us
ROCE_PKT = 4158  # bytes on the wire of a 4096-byte RoCE v2 payload (Eth+IP+UDP+BTH+ICRC)
TCP_PKT = 1514

# --- counter catalogues (collectors/normalize_*.cpp) -------------------------------------
# (series, own labels, raw name, unit, width_bits, kind of source)
MLX5_HW = [
    ("ecn_marked_packets", "np_ecn_marked_roce_packets", "packets", 64),
    ("cnp_sent", "np_cnp_sent", "packets", 64),
    ("cnp_handled", "rp_cnp_handled", "packets", 64),
    ("cnp_ignored", "rp_cnp_ignored", "packets", 64),
    ("rnr_nak_received", "rnr_nak_retry_err", "packets", 32),
    ("ack_timeouts", "local_ack_timeout_err", "events", 32),
    ("sequence_errors", "packet_seq_err", "packets", 32),
    ("implied_nak_sequence_errors", "implied_nak_seq_err", "events", 32),
    ("out_of_sequence", "out_of_sequence", "packets", 32),
    ("duplicate_requests", "duplicate_request", "packets", 32),
    ("rx_out_of_buffer", "out_of_buffer", "packets", 32),
    ("adaptive_retransmits", "roce_adp_retrans", "events", 32),
    ("retry_exceeded", "req_transport_retries_exceeded", "events", 32),
    ("rnr_retry_exceeded", "req_rnr_retries_exceeded", "events", 32),
]
MLX5_Q_COUNTERS = [s for s, _, _, w in MLX5_HW if w == 32]
RXE_HW = [
    ("roce_rx_packets", "rcvd_pkts", "packets"),
    ("roce_tx_packets", "sent_pkts", "packets"),
    ("rnr_nak_received", "rcvd_rnr_err", "packets"),
    ("rnr_nak_sent", "send_rnr_err", "packets"),
    ("sequence_errors", "rcvd_seq_err", "packets"),
    ("out_of_sequence", "out_of_seq_request", "packets"),
    ("duplicate_requests", "duplicate_request", "packets"),
    ("retry_exceeded", "retry_exceeded_err", "events"),
    ("rnr_retry_exceeded", "retry_rnr_exceeded_err", "events"),
    ("link_down_events", "link_downed", "events"),
]
RETRANSMIT_SERIES = ["ack_timeouts", "sequence_errors", "out_of_sequence", "duplicate_requests",
                     "adaptive_retransmits", "implied_nak_sequence_errors", "retry_exceeded"]


def K(series, **labels):
    """Key of a counter: series + its own labels (device/port/netdev are the host's)."""
    return (series, tuple(sorted((k, str(v)) for k, v in labels.items())))


class Counter:
    def __init__(self, key, unit, raw, source, width=64, scale=1, only_labels=None):
        self.key, self.unit, self.raw, self.source = key, unit, raw, source
        self.width, self.scale = width, scale  # scale: value = raw * scale (PMA data words x4)
        self.only_labels = only_labels  # labels instead of device/port/netdev (carrier_changes)
        self.value = 0
        self.carry = 0.0


class Host:
    """One sampled host: its counters (in emission order), gauges and clock."""

    def __init__(self, name, driver="mlx5", ofed=False, t0=5000.0, wall_offset_ms=0,
                 pfc_prios=(3,), ecn_np=(3,), ecn_rp=(3,), enhanced_errors=True, probe_peer=None):
        self.name, self.driver, self.ofed = name, driver, ofed
        self.t0, self.wall_offset_ms = t0, wall_offset_ms
        self.rng = random.Random(zlib.crc32(name.encode()))
        if driver == "mlx5":
            self.device, self.netdev, self.rate_gbps = "mlx5_0", "eth2", 100.0
        else:  # Soft-RoCE on a virtio NIC, as in tests/lab
            self.device, self.netdev, self.rate_gbps = "rxe0", "eth0", 2.5
        self.port = "1"
        self.counters = {}
        self.gauges = {}  # key -> [value, unit, source, raw, labels]
        hw = f"/sys/class/infiniband/{self.device}/ports/{self.port}/hw_counters/"
        eth = f"ethtool -S {self.netdev}"
        if driver == "mlx5":
            for s, raw, unit, width in MLX5_HW:
                if not enhanced_errors and s in ("retry_exceeded", "rnr_retry_exceeded"):
                    continue  # enhanced_error_q_counters: kernel >= ~6.11 only
                self._add(Counter(K(s), unit, raw, hw + raw, width))
            pma = f"/sys/class/infiniband/{self.device}/ports/{self.port}/counters/"
            self._add(Counter(K("port_rcv_data_bytes"), "bytes", "port_rcv_data",
                              pma + "port_rcv_data", scale=4))
            self._add(Counter(K("port_xmit_data_bytes"), "bytes", "port_xmit_data",
                              pma + "port_xmit_data", scale=4))
            for p in pfc_prios:  # mlx5e: the PFC group exists for PFC-enabled priorities only
                for d in ("rx", "tx"):
                    self._add(Counter(K("pfc_pause_frames", priority=p, direction=d), "frames",
                                      f"{d}_prio{p}_pause", eth))
                    self._add(Counter(K("pfc_pause_duration_us", priority=p, direction=d), "us",
                                      f"{d}_prio{p}_pause_duration", eth))
                self._add(Counter(K("pfc_pause_transitions", priority=p, direction="rx"),
                                  "events", f"rx_prio{p}_pause_transition", eth))
            for lvl in ("warning", "error"):
                self._add(Counter(K("pause_storm_events", level=lvl), "events",
                                  f"tx_pause_storm_{lvl}_events", eth))
            self._add(Counter(K("link_pause_frames", direction="rx"), "frames",
                              "rx_pause_ctrl_phy", eth))
            self._add(Counter(K("link_pause_frames", direction="tx"), "frames",
                              "tx_pause_ctrl_phy", eth))
            for p in range(8):
                for d in ("rx", "tx"):
                    self._add(Counter(K("priority_bytes", priority=p, direction=d), "bytes",
                                      f"{d}_prio{p}_bytes", eth))
                    self._add(Counter(K("priority_packets", priority=p, direction=d), "packets",
                                      f"{d}_prio{p}_packets", eth))
            self._add(Counter(K("rx_discards_phy"), "packets", "rx_discards_phy", eth))
            self._add(Counter(K("oversize_frames"), "frames", "rx_oversize_pkts_phy", eth))
            self._add(Counter(K("link_down_events"), "events", "link_down_events_phy", eth))
            self._add(Counter(K("symbol_errors"), "errors", "rx_symbol_err_phy", eth))
            for d in ("rx", "tx"):
                self._add(Counter(K(f"roce_{d}_bytes"), "bytes",
                                  f"{d}_vport_rdma_unicast_bytes", eth))
                self._add(Counter(K(f"roce_{d}_packets"), "packets",
                                  f"{d}_vport_rdma_unicast_packets", eth))
        else:
            for s, raw, unit in RXE_HW:
                self._add(Counter(K(s), unit, raw, hw + raw))
        self._add(Counter(K("carrier_changes"), "events", "carrier_changes",
                          f"/sys/class/net/{self.netdev}/carrier_changes",
                          only_labels={"netdev": self.netdev}))
        if probe_peer:  # `rocehealth probe PEER` running beside the recorder: SEND 64 B
            probe = {"peer": probe_peer, "op": "send"}
            for st in ("IBV_WC_RETRY_EXC_ERR", "IBV_WC_RNR_RETRY_EXC_ERR"):
                self._add(Counter(K("probe_errors", status=st), "events", "", "probe",
                                  only_labels=probe))
        port_dir = f"/sys/class/infiniband/{self.device}/ports/{self.port}/"
        dp = {"device": self.device, "port": self.port}
        self.gauges[K("port_state_code")] = [4, "state", port_dir + "state", "state", dp]
        self.gauges[K("port_rate_gbps")] = [self.rate_gbps, "Gb/s", port_dir + "rate", "rate", dp]
        if driver == "mlx5":
            dpn = dict(dp, netdev=self.netdev)
            for p in range(8):
                self.gauges[K("pfc_enabled", priority=p)] = [
                    1 if p in pfc_prios else 0, "bool", f"rtnetlink DCB_CMD_IEEE_GET {self.netdev}",
                    "ieee_pfc.pfc_en", dict(dpn, priority=str(p))]
            if ofed:
                for role, on in (("np", ecn_np), ("rp", ecn_rp)):
                    for p in range(8):
                        self.gauges[K(f"ecn_{role}_enabled", priority=p)] = [
                            1 if p in on else 0, "bool",
                            f"/sys/class/net/{self.netdev}/ecn/roce_{role}/enable/{p}",
                            f"roce_{role}/enable/{p}", dict(dpn, priority=str(p))]
        if probe_peer:
            for q, us in (("p50", 4.1), ("p99", 6.8), ("p999", 11.5)):
                self.gauges[K("probe_latency_us", quantile=q)] = [
                    us, "us", "probe", "", dict(probe, size_bytes="64", quantile=q)]

    def _add(self, c):
        self.counters[c.key] = c

    def has(self, key):
        return key in self.counters

    def init_uptime(self, days):
        """Plausible cumulative values for `days` of uptime at light average load."""
        r = self.rng
        s = days * 86400
        for key, c in self.counters.items():
            series = key[0]
            if series.endswith("bytes"):
                v = int(s * r.uniform(2e6, 8e7)) if "priority" not in dict(key[1]) or \
                    dict(key[1])["priority"] in ("0", "3") else 0
            elif series.endswith("packets") and series not in ("ecn_marked_packets",
                                                                "cnp_sent", "cnp_handled",
                                                                "cnp_ignored"):
                v = int(s * r.uniform(500, 20000)) if "priority" not in dict(key[1]) or \
                    dict(key[1])["priority"] in ("0", "3") else 0
            elif series in ("ecn_marked_packets", "cnp_sent", "cnp_handled"):
                v = int(s * r.uniform(0.5, 5))
            elif series in ("pfc_pause_frames", "pfc_pause_transitions"):
                v = int(s * r.uniform(0.01, 0.2))
            elif series == "pfc_pause_duration_us":
                v = int(s * r.uniform(1, 20))
            elif series in ("carrier_changes",):
                v = 2
            elif series in ("link_down_events",):
                v = 1
            elif series in ("pause_storm_events", "oversize_frames", "symbol_errors",
                            "link_pause_frames", "retry_exceeded", "rnr_retry_exceeded",
                            "cnp_ignored", "probe_errors"):
                v = 0
            else:  # error/retransmit counters: a few per hour
                v = int(s * r.uniform(0.0002, 0.005))
            if c.scale > 1:
                v -= v % c.scale
            c.value = v % (1 << c.width)


class Tick:
    """What happens on one host during one second (between pass i-1 and pass i)."""

    def __init__(self, host, i):
        self.host, self.i = host, i
        self.rates = {}  # key -> per-second rate (jittered, fractional parts carried)
        self.exact = {}  # key -> exact integer increment
        self.resets = {}  # key -> value after a reset
        self.missing = {}  # key -> error text (value null this pass)
        self.gauges = {}  # key -> value this pass

    def rate(self, key, per_s):
        if self.host.has(key):
            self.rates[key] = self.rates.get(key, 0.0) + per_s

    def add(self, key, n):
        if self.host.has(key):
            self.exact[key] = self.exact.get(key, 0) + n

    def traffic(self, prio, rx_Bps, tx_Bps, roce=True):
        """Bytes/packets on `prio`; RoCE traffic also counts in the vport RDMA and PMA data."""
        pkt = ROCE_PKT if roce else TCP_PKT
        for d, bps in (("rx", rx_Bps), ("tx", tx_Bps)):
            self.rate(K("priority_bytes", priority=prio, direction=d), bps)
            self.rate(K("priority_packets", priority=prio, direction=d), bps / pkt)
            if roce:
                self.rate(K(f"roce_{d}_bytes"), bps)
                self.rate(K(f"roce_{d}_packets"), bps / pkt)
                self.rate(K("port_rcv_data_bytes" if d == "rx" else "port_xmit_data_bytes"),
                          bps * 4096 / pkt)

    def paused(self, prio, direction, fraction):
        """PFC on `prio`: `fraction` of the second paused, frames at full quanta (100 Gb/s)."""
        self.rate(K("pfc_pause_duration_us", priority=prio, direction=direction), fraction * 1e6)
        self.rate(K("pfc_pause_frames", priority=prio, direction=direction),
                  fraction / PAUSE_QUANTUM_S_100G)
        if direction == "rx":
            self.rate(K("pfc_pause_transitions", priority=prio, direction="rx"),
                      fraction / PAUSE_QUANTUM_S_100G / 8)

    def background(self):
        """Management traffic every host has (LLDP, ARP, ssh) on priority 0."""
        if self.host.driver == "mlx5":
            self.traffic(0, 3000, 2500, roce=False)


def run_host(host, seconds, tick_fn):
    """Samples of `host` over `seconds` (seconds + 1 passes) as JSON lines."""
    lines = []
    r = host.rng
    base = {"device": host.device, "port": host.port, "netdev": host.netdev}
    for i in range(seconds + 1):
        jitter_ms = r.randint(0, 4) if i else 0
        wall_ms = WALL0_MS + host.wall_offset_ms + i * 1000 + jitter_ms
        t_s = round(host.t0 + i + jitter_ms / 1000, 3)
        t = Tick(host, i)
        if i:
            t.background()
            tick_fn(t)
            for key, c in host.counters.items():
                if key in t.resets:
                    c.value, c.carry = t.resets[key], 0.0
                    continue
                inc = t.exact.get(key, 0)
                per_s = t.rates.get(key, 0.0)
                if per_s:
                    want = per_s * r.uniform(0.97, 1.03) / c.scale + c.carry
                    n = int(math.floor(want))
                    c.carry = want - n
                    inc += n * c.scale
                c.value = (c.value + inc) % (1 << c.width)
        for key, c in host.counters.items():
            labels = dict(c.only_labels) if c.only_labels else dict(base)
            labels.update(dict(key[1]))
            j = {"schema": 1, "t_s": t_s, "wall_ms": wall_ms, "host": host.name,
                 "kind": "counter", "series": key[0], "labels": labels, "unit": c.unit}
            if key in t.missing:
                j["value"] = None
            else:
                j["value"] = c.value
            if c.width != 64:
                j["width_bits"] = c.width
            if key in t.missing:
                j["error"] = t.missing[key]
            j["source"] = c.source
            if c.raw:
                j["raw"] = c.raw
            lines.append(json.dumps(j, separators=(",", ":")))
        for key, (value, unit, source, raw, labels) in host.gauges.items():
            v = t.gauges.get(key, value)
            j = {"schema": 1, "t_s": t_s, "wall_ms": wall_ms, "host": host.name,
                 "kind": "gauge", "series": key[0], "labels": labels, "unit": unit,
                 "value": v, "source": source}
            if raw:
                j["raw"] = raw
            lines.append(json.dumps(j, separators=(",", ":")))
    return "\n".join(lines) + "\n"


# --- scenarios ---------------------------------------------------------------------------
SCENARIOS = {}


def scenario(fn):
    SCENARIOS[fn.__name__] = fn
    return fn


def finding(rule, host, severity, **labels):
    f = {"rule": rule, "host": host, "severity": severity}
    if labels:
        f["labels"] = {k: str(v) for k, v in labels.items()}
    return f


def between(i, a, b):
    return a <= i < b


def steady_ecn(t, marks_per_s, cnp_per_s):
    t.rate(K("ecn_marked_packets"), marks_per_s)
    t.rate(K("cnp_sent"), cnp_per_s)


@scenario
def healthy_idle():
    h = Host("gpu01", ofed=True)
    h.init_uptime(12)
    return ("An idle MLNX_OFED ConnectX-6 Dx host: management traffic only, every error "
            "counter flat, PFC and ECN configured on priority 3.",
            [(h, 60, lambda t: None)], [])


@scenario
def healthy_steady_load():
    rx, tx = Host("gpu01", ofed=True), Host("gpu02", ofed=True, t0=73120.0, wall_offset_ms=370)
    rx.init_uptime(30)
    tx.init_uptime(41)

    def receiver(t):  # gpu02 writes to gpu01 at ~11 GB/s on priority 3
        t.traffic(3, 11.0e9, 0.06e9)
        t.traffic(0, 30e6, 30e6, roce=False)  # TCP storage/ssh: > 10 MB/s, but prio 3 is busy
        t.paused(3, "tx", 0.0001)  # ~0.3 pause frames/s
        steady_ecn(t, 250, 40)

    def sender(t):
        t.traffic(3, 0.06e9, 11.0e9)
        t.traffic(0, 30e6, 30e6, roce=False)
        t.paused(3, "rx", 0.0001)
        t.rate(K("cnp_handled"), 40)  # the reaction point acts on gpu01's CNPs

    return ("Two MLNX_OFED hosts, gpu02 writing to gpu01 at ~11 GB/s on the lossless priority 3 "
            "for 90 s: a few pause frames (0.01% of the time paused), ECN marks and CNPs sent "
            "by gpu01 and handled by gpu02, 30 MB/s of TCP on priority 0.",
            [(rx, 90, receiver), (tx, 90, sender)], [])


@scenario
def healthy_long_uptime():
    h = Host("gpu01", ofed=True)
    for key, c in h.counters.items():
        if key[0] in ("carrier_changes", "link_down_events", "pause_storm_events"):
            c.value = 3 if key[0] != "pause_storm_events" else 0  # events: small even after years
            continue
        top = 62 if c.width == 64 else 32
        c.value = (1 << top) - h.rng.randint(1 << 20, 1 << (36 if top == 62 else 24))
        c.value -= c.value % c.scale

    def tick(t):
        t.traffic(3, 1e6, 1e6)  # 1 MB/s on top of counters near 2^62

    return ("A host with years of uptime: every 64-bit counter near 2^62 and every 32-bit Q "
            "counter near 2^32, all flat except 1 MB/s of RoCE on priority 3. Large totals "
            "are not rates.", [(h, 60, tick)], [])


@scenario
def rnr():
    req, resp = Host("gpu01", ofed=True), Host("gpu02", ofed=True, t0=91877.25,
                                                    wall_offset_ms=-210)
    req.init_uptime(8)
    resp.init_uptime(8)

    def requester(t):  # SENDs to gpu02 at 3 GB/s; from 30 s on gpu02's RQ runs dry
        t.traffic(3, 0.02e9, 3.0e9 if t.i < 30 else 2.2e9)
        if between(t.i, 30, 76):
            t.rate(K("rnr_nak_received"), 4)

    def responder(t):
        t.traffic(3, 3.0e9 if t.i < 30 else 2.2e9, 0.02e9)
        if between(t.i, 30, 76):
            t.rate(K("rx_out_of_buffer"), 4)

    return ("Requester gpu01 SENDs to responder gpu02, whose receive queue runs dry from 30 s "
            "to 75 s: gpu01's rnr_nak_received (rnr_nak_retry_err) grows ~4/s (~40 per 10 s, "
            "threshold 10) and gpu02's rx_out_of_buffer (out_of_buffer) grows as much (40 per "
            "10 s, under the rx_discards threshold of 100). mlx5 has no rnr_nak_sent counter, so "
            "out_of_buffer is the responder-side evidence.",
            [(req, 90, requester), (resp, 90, responder)],
            [finding("rnr", "gpu01", "error")])


@scenario
def rnr_rxe_retry_exceeded():
    req = Host("vm1", driver="rxe", t0=412.5)
    resp = Host("vm2", driver="rxe", t0=398.0, wall_offset_ms=120)
    req.init_uptime(0.2)
    resp.init_uptime(0.2)

    def requester(t):
        t.rate(K("roce_tx_packets"), 2000)
        t.rate(K("roce_rx_packets"), 2000)
        if between(t.i, 40, 47):
            t.add(K("rnr_nak_received"), 1)  # 7 RNR NAKs: rnr_retry = 7 ...
        if t.i == 47:
            t.add(K("rnr_retry_exceeded"), 1)  # ... then IBV_WC_RNR_RETRY_EXC_ERR

    def responder(t):
        t.rate(K("roce_tx_packets"), 2000)
        t.rate(K("roce_rx_packets"), 2000)
        if between(t.i, 40, 47):
            t.add(K("rnr_nak_sent"), 1)

    return ("Soft-RoCE (rxe) pair as in the lab: vm2 posts no receive buffer; vm1 gets 7 RNR "
            "NAKs (rcvd_rnr_err, fewer than the 10-per-10 s threshold) and then its retries "
            "are exhausted (retry_rnr_exceeded_err +1), vm2 counts send_rnr_err. rnr fires on "
            "rnr_retry_exceeded alone.", [(req, 90, requester), (resp, 90, responder)],
            [finding("rnr", "vm1", "error")])


@scenario
def rnr_probe_error():
    h = Host("gpu01", enhanced_errors=False, probe_peer="10.0.0.2")
    h.init_uptime(4)

    def tick(t):
        t.traffic(3, 1e9, 1e9)
        if t.i in (52, 53, 55):
            t.add(K("rnr_nak_received"), 2)  # 6 RNR NAKs in 10 s: under the threshold
        if t.i == 55:
            t.add(K("probe_errors", status="IBV_WC_RNR_RETRY_EXC_ERR"), 1)
        if t.i >= 55:
            t.gauges[K("probe_latency_us", quantile="p99")] = 650.0

    return ("mlx5 host on a kernel without enhanced error counters (no "
            "req_rnr_retries_exceeded, no req_transport_retries_exceeded: never written). "
            "rocehealth probe to 10.0.0.2 ends a SEND with IBV_WC_RNR_RETRY_EXC_ERR at 55 s "
            "after 6 RNR NAKs (under 10 per 10 s): rnr fires on the probe completion.",
            [(h, 80, tick)], [finding("rnr", "gpu01", "error")])


@scenario
def retransmits_probe_error():
    h = Host("gpu01", enhanced_errors=False, probe_peer="10.0.0.2")
    h.init_uptime(4)

    def tick(t):
        t.traffic(3, 3e9, 3e9)
        if between(t.i, 30, 61):
            t.rate(K("ack_timeouts"), 1.5)
            t.rate(K("implied_nak_sequence_errors"), 1)
        if t.i == 48:
            t.add(K("probe_errors", status="IBV_WC_RETRY_EXC_ERR"), 1)

    return ("mlx5 host without enhanced error counters losing packets from 30 s to 60 s: "
            "local_ack_timeout_err ~1.5/s and implied_nak_seq_err ~1/s (~25 per 10 s); a probe "
            "SEND to 10.0.0.2 fails with IBV_WC_RETRY_EXC_ERR at 48 s: retransmits at error.",
            [(h, 80, tick)], [finding("retransmits", "gpu01", "error")])


def storm_host(name="gpu01"):
    h = Host(name, ofed=True)
    h.init_uptime(20)
    return h


@scenario
def pause_storm():
    h = storm_host()

    def tick(t):
        storm = between(t.i, 25, 70)
        t.traffic(3, 4.0e9 if storm else 8.0e9, 0.05e9)
        t.paused(3, "tx", 0.35 if storm else 0.0002)
        t.paused(3, "rx", 0.0002)
        steady_ecn(t, 600 if storm else 80, 60 if storm else 15)

    return ("gpu01 cannot drain its receive path from 25 s to 70 s: it pauses its switch port "
            "on priority 3 35% of the time (tx pause duration and ~1000 frames/s), its RoCE "
            "receive rate halves. ECN keeps marking, so it is not pfc_without_ecn.",
            [(h, 90, tick)], [finding("pause_storm", "gpu01", "warning", priority=3,
                                      direction="tx")])


@scenario
def storm_escalates():
    h = storm_host()

    def tick(t):
        storm = between(t.i, 20, 80)
        t.traffic(3, 4.5e9 if storm else 8.0e9, 0.05e9)
        t.paused(3, "tx", 0.40 if storm else 0.0002)
        t.paused(3, "rx", 0.0002)
        steady_ecn(t, 600 if storm else 80, 60 if storm else 15)
        if t.i == 30:
            t.add(K("pause_storm_events", level="warning"), 1)
        if t.i == 45:
            t.add(K("pause_storm_events", level="error"), 1)

    return ("As pause_storm (tx, priority 3, 40% paused from 20 s to 80 s: a warning by the "
            "fraction) but the NIC's pause-storm watchdog fires a warning event at 30 s and an "
            "error event at 45 s (tx_pause_storm_error_events): the storm escalates to error, and "
            "the watchdog's error event is a finding of its own (pause_storm_watchdog).",
            [(h, 90, tick)], [finding("pause_storm", "gpu01", "error", priority=3,
                                      direction="tx"),
                              finding("pause_storm_watchdog", "gpu01", "error")])


@scenario
def short_pause_burst():
    h = storm_host()

    def tick(t):
        burst = between(t.i, 31, 34) or between(t.i, 61, 64)
        t.traffic(3, 5.0e9 if burst else 8.0e9, 0.05e9)
        t.paused(3, "tx", 0.60 if burst else 0.0002)
        t.paused(3, "rx", 0.0002)
        steady_ecn(t, 700 if burst else 80, 60 if burst else 15)

    return ("Two 3-second incast bursts (30-33 s, 60-63 s) with priority 3 paused 60% of the "
            "time (tx), traffic and ECN normal otherwise. Over the 20% threshold but held 3 s, "
            "under the 5 s hold: no storm.", [(h, 90, tick)], [])


@scenario
def pfc_deadlock_suspected():
    h = storm_host()

    def tick(t):
        stuck = t.i >= 25
        if stuck:
            t.traffic(3, 40e3, 40e3)  # 40 KB/s: nothing progresses
            t.paused(3, "tx", 0.96)
            t.paused(3, "rx", 0.96)
            steady_ecn(t, 15, 10)  # a trickle of marked packets still arrives
        else:
            t.traffic(3, 6e9, 6e9)
            t.paused(3, "tx", 0.001)
            t.paused(3, "rx", 0.001)
            steady_ecn(t, 150, 25)

    return ("From 25 s to 90 s priority 3 is paused 96% of the time in both directions while "
            "its traffic falls to 40 KB/s each way: a PFC deadlock (cyclic buffer dependency) "
            "is suspected. Both directions are also pause storms at error level (>= 50%). A "
            "trickle of ECN marks keeps pfc_without_ecn out of it.",
            [(h, 90, tick)],
            [finding("pfc_deadlock_suspected", "gpu01", "error", priority=3),
             finding("pause_storm", "gpu01", "error", priority=3, direction="rx"),
             finding("pause_storm", "gpu01", "error", priority=3, direction="tx")])


@scenario
def pfc_without_ecn():
    h = Host("gpu01")  # upstream kernel: no ecn/ sysfs, so no ECN configuration gauges
    h.init_uptime(5)
    h.counters[K("ecn_marked_packets")].value = 0
    h.counters[K("cnp_sent")].value = 0
    h.counters[K("cnp_handled")].value = 0

    def tick(t):
        t.traffic(3, 7e9, 0.05e9)
        if between(t.i, 15, 81):
            t.rate(K("pfc_pause_duration_us", priority=3, direction="tx"), 25000)  # 2.5%
            t.rate(K("pfc_pause_frames", priority=3, direction="tx"), 320)
        else:
            t.paused(3, "tx", 0.0002)

    return ("The switch does not ECN-mark (ecn_marked_packets stays 0) and PFC does all the "
            "congestion control: gpu01 sends ~320 PFC pause frames/s on priority 3 from 15 s to "
            "80 s (threshold 100/s for 10 s), paused only 2.5% of the time (10% by the frame "
            "formula), so no pause storm.", [(h, 90, tick)],
            [finding("pfc_without_ecn", "gpu01", "warning", priority=3)])


@scenario
def ecn_counters_inconsistent():
    h = Host("gpu01", ofed=True)
    h.init_uptime(9)
    h.counters[K("ecn_marked_packets")].value = 0

    def tick(t):
        t.traffic(3, 9e9, 0.05e9)
        t.paused(3, "tx", 0.0003)
        t.rate(K("cnp_sent"), 45)

    return ("gpu01 sends ~45 CNPs/s (np_cnp_sent) for the whole 90 s while "
            "np_ecn_marked_roce_packets reads 0 throughout: CNPs need ECN-marked packets, the "
            "counters contradict each other (firmware/counter problem).", [(h, 90, tick)],
            [finding("ecn_counters_inconsistent", "gpu01", "warning")])


@scenario
def cnp_not_handled():
    np_ = Host("gpu01")
    rp = Host("gpu02", t0=66012.75, wall_offset_ms=450)
    np_.init_uptime(15)
    rp.init_uptime(15)
    rp.counters[K("cnp_handled")].value = 0

    def receiver(t):
        t.traffic(3, 10e9, 0.05e9)
        t.paused(3, "tx", 0.0003)
        steady_ecn(t, 400, 50)

    def sender(t):
        t.traffic(3, 0.05e9, 10e9)
        t.paused(3, "rx", 0.0003)
        t.rate(K("cnp_ignored"), 50)  # DCQCN reaction point off: CNPs arrive, none acted on

    return ("gpu01 (notification point) sends ~50 CNPs/s to gpu02 for 90 s; gpu02's "
            "rp_cnp_handled stays 0 (its rp_cnp_ignored grows: DCQCN reaction point off). "
            "Upstream kernels, so no ECN enable gauges. One finding is on the host whose CNPs "
            "go unhandled (gpu01, where cnp_sent grows), the other on the sender that ignores "
            "them (gpu02, cnp_ignored).",
            [(np_, 90, receiver), (rp, 90, sender)],
            [finding("cnp_not_handled", "gpu01", "warning"),
             finding("cnp_ignored", "gpu02", "warning")])


@scenario
def ecn_disabled_on_pfc_priority():
    h = Host("gpu01", ofed=True, ecn_np=(3,), ecn_rp=())
    h.init_uptime(3)

    def tick(t):
        t.traffic(3, 2e9, 2e9)
        steady_ecn(t, 20, 5)

    return ("MLNX_OFED host with PFC on priority 3 and ECN reaction point disabled on it "
            "(ecn/roce_rp/enable/3 = 0; roce_np enabled): DCQCN cannot slow senders down.",
            [(h, 60, tick)],
            [finding("ecn_disabled_on_pfc_priority", "gpu01", "warning", priority=3)])


@scenario
def roce_outside_lossless():
    h = Host("gpu01", ofed=True)
    h.init_uptime(6)

    def tick(t):
        t.traffic(0, 3e9, 1e9)  # RoCE on priority 0 (no PFC): wrong DSCP/PCP mapping
        t.traffic(3, 0, 0)

    return ("RoCE traffic (3 GB/s in, 1 GB/s out, also in the vport RDMA counters) runs on "
            "priority 0, which has no PFC, while the lossless priority 3 carries nothing: "
            "the application's traffic class/DSCP does not map to priority 3.",
            [(h, 90, tick)],
            [finding("roce_outside_lossless", "gpu01", "warning", priority=0)])


@scenario
def retransmits():
    h = Host("vm1", driver="rxe", t0=1033.0)
    h.init_uptime(0.5)

    def tick(t):
        t.rate(K("roce_tx_packets"), 20000)
        t.rate(K("roce_rx_packets"), 20000)
        if between(t.i, 20, 76):  # netem loss 1% on this guest
            t.rate(K("sequence_errors"), 1.2)
            t.rate(K("out_of_sequence"), 1.5)
            t.rate(K("duplicate_requests"), 0.8)

    return ("Soft-RoCE guest with packet loss from 20 s to 75 s: rcvd_seq_err, "
            "out_of_seq_request and duplicate_request grow ~3.5/s together (~35 per 10 s, "
            "threshold 10); no retry exhausted, so warning.", [(h, 90, tick)],
            [finding("retransmits", "vm1", "warning")])


@scenario
def retransmits_retry_exceeded():
    h = Host("gpu01")
    h.init_uptime(10)

    def tick(t):
        t.traffic(3, 2e9, 2e9)
        if between(t.i, 30, 71):
            t.rate(K("ack_timeouts"), 2)
            t.rate(K("adaptive_retransmits"), 1)
        if t.i in (50, 62):
            t.add(K("retry_exceeded"), 1)

    return ("mlx5 host losing packets from 30 s to 70 s: local_ack_timeout_err ~2/s and "
            "roce_adp_retrans ~1/s (~30 per 10 s), and req_transport_retries_exceeded grows "
            "twice (QPs to error with IBV_WC_RETRY_EXC_ERR): retransmits at error level.",
            [(h, 90, tick)], [finding("retransmits", "gpu01", "error")])


@scenario
def link_flap():
    h = Host("gpu01", ofed=True)
    h.init_uptime(25)

    def tick(t):
        down = between(t.i, 40, 43)
        if not down:
            t.traffic(3, 5e9, 5e9)
            steady_ecn(t, 60, 10)
        else:
            t.gauges[K("port_state_code")] = 1  # DOWN
        if t.i == 40:
            t.add(K("link_down_events"), 1)
            t.add(K("carrier_changes"), 1)
        if t.i == 43:
            t.add(K("carrier_changes"), 1)
        if t.i == 41:
            t.add(K("ack_timeouts"), 3)  # a few QPs time out while the link is down

    return ("The link of gpu01 goes down for 3 s at 40 s (port state DOWN, link_down_events_phy "
            "+1, carrier_changes +2) and comes back; 3 ACK timeouts follow (under the "
            "retransmits threshold).", [(h, 90, tick)], [finding("link_flap", "gpu01", "error")])


@scenario
def rx_discards():
    h = Host("gpu01")
    h.init_uptime(14)

    def tick(t):
        t.traffic(3, 8e9, 0.05e9)
        t.paused(3, "tx", 0.0005)
        steady_ecn(t, 120, 20)
        if between(t.i, 20, 71):  # TCP incast on lossy priority 0 overflows the port buffer
            t.traffic(0, 2.5e9, 0.02e9, roce=False)
            t.rate(K("rx_discards_phy"), 40)

    return ("TCP incast on the lossy priority 0 from 20 s to 70 s overflows gpu01's port "
            "buffer: rx_discards_phy grows ~40/s (~400 per 10 s, threshold 100).",
            [(h, 90, tick)], [finding("rx_discards", "gpu01", "warning")])


@scenario
def counter_reset_midway():
    h = Host("gpu01", ofed=True)
    h.init_uptime(40)
    # Mid-range 32-bit values: going back to ~0 is a reset (a wrap would be > 2^31 per second).
    for s, v in (("ack_timeouts", 1482337), ("out_of_sequence", 27650112),
                 ("rx_out_of_buffer", 904211), ("rnr_nak_received", 310554),
                 ("duplicate_requests", 88120), ("sequence_errors", 2210)):
        h.counters[K(s)].value = v

    def tick(t):
        t.traffic(3, 4e9, 4e9)
        steady_ecn(t, 30, 8)
        t.rate(K("ack_timeouts"), 0.05)
        t.rate(K("out_of_sequence"), 0.1)
        t.rate(K("rx_out_of_buffer"), 0.1)
        if t.i == 45:  # mlx5_ib reloaded: every hw_counters value restarts near 0
            for s, _, _, _ in MLX5_HW:
                t.resets[K(s)] = {"ecn_marked_packets": 17, "cnp_sent": 4}.get(s, 0)

    return ("mlx5_ib is reloaded at 45 s: every RDMA hw_counters value (congestion and Q "
            "counters) goes back to ~0 and then grows slowly as before (ethtool and PMA counters "
            "keep counting). A reset is not a negative rate and not a 32-bit wrap (the values "
            "were far below 2^31): no finding.", [(h, 90, tick)], [])


@scenario
def counter_missing():
    h = Host("gpu01", ofed=True)
    h.init_uptime(33)
    for s, v in (("ack_timeouts", 2210987), ("out_of_sequence", 3902114),
                 ("rx_out_of_buffer", 1277301), ("rnr_nak_received", 55410)):
        h.counters[K(s)].value = v
    h.counters[K("rx_discards_phy")].value = 5120447

    def tick(t):
        t.traffic(3, 5e9, 5e9)
        steady_ecn(t, 50, 10)
        t.rate(K("out_of_sequence"), 0.1)
        t.rate(K("ack_timeouts"), 0.05)
        if between(t.i, 30, 50):  # QUERY_Q_COUNTER fails for 20 s: Q counters unreadable
            for s in MLX5_Q_COUNTERS:
                c = h.counters[K(s)]
                t.missing[K(s)] = f"read {c.source}: Input/output error"
            t.missing[K("rx_discards_phy")] = f"ethtool -S {h.netdev}: rx_discards_phy absent"

    return ("From 30 s to 49 s the Q counters (ack_timeouts, out_of_sequence, rx_out_of_buffer, "
            "rnr_nak_received, ...) and rx_discards_phy read null (I/O error), then come back "
            "with their old totals plus a few. Missing is not zero: read as 0 they would jump "
            "by millions on return.", [(h, 90, tick)], [])


@scenario
def q_counter_wrap():
    h = Host("gpu01")
    h.init_uptime(200)
    h.counters[K("out_of_sequence")].value = (1 << 32) - 14
    h.counters[K("rx_out_of_buffer")].value = (1 << 32) - 120

    def tick(t):
        t.traffic(3, 6e9, 6e9)
        steady_ecn(t, 40, 8)
        t.rate(K("out_of_sequence"), 0.4)  # ~4 per 10 s, wraps at ~35 s
        t.rate(K("rx_out_of_buffer"), 3)  # ~30 per 10 s, wraps at ~40 s

    return ("Long-running host whose 32-bit Q counters out_of_sequence and out_of_buffer "
            "(width_bits 32) wrap past 2^32 mid-recording while growing slowly (~0.4/s and "
            "~3/s). A wrap is a small increase, not a reset or a huge jump: no finding.",
            [(h, 90, tick)], [])


def build(name):
    """{relative path: text} of one scenario."""
    description, runs, findings = SCENARIOS[name]()
    out = {}
    for host, seconds, tick_fn in runs:
        out[f"{name}/{host.name}.jsonl"] = run_host(host, seconds, tick_fn)
    expected = {"description": description, "findings": findings,
                "exit": 1 if findings else 0}
    out[f"{name}/expected.json"] = json.dumps(expected, indent=1) + "\n"
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", type=Path, default=HERE, help="directory to write (default: here)")
    ap.add_argument("--check", action="store_true",
                    help="compare with the files in --out instead of writing; exit 1 on a "
                         "difference")
    ap.add_argument("names", nargs="*", help="scenarios (default: all)")
    args = ap.parse_args()
    names = args.names or list(SCENARIOS)
    stale = []
    for name in names:
        if name not in SCENARIOS:
            sys.exit(f"make_scenarios.py: unknown scenario {name!r} "
                     f"(known: {', '.join(SCENARIOS)})")
        for rel, text in build(name).items():
            path = args.out / rel
            if args.check:
                if not path.exists() or path.read_text() != text:
                    stale.append(str(path))
            else:
                path.parent.mkdir(parents=True, exist_ok=True)
                path.write_text(text)
    if stale:
        print("out of date (run make_scenarios.py):\n  " + "\n  ".join(stale), file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
