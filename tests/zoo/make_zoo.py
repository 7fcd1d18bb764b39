#!/usr/bin/env python3
"""The healthy-configuration zoo (issue 26): healthy hosts, each described ONCE, rendered as

  OUT/<host>/sys/...            a sysfs tree laid out as the kernel lays it out (the state at the
                                last capture), for `rocehealth check --sysfs-root` and the agent;
  OUT/<host>/ethtool/<if>.txt   its `ethtool -S` recordings, OUT/<host>/dcb/<if>.hex its DCB
                                (PFC) reply, read in place of the ioctl/netlink on a fixture root;
  OUT/<host>/bundle/t0, t1, ... the captures an operator pastes for `rocehealth diagnose --bundle`
                                (ethtool -S, hw_counters listings, ibv_devinfo -v, lspci -vv,
                                ip -s -s link / ip -d link, rdma link, uptime, timestamp).

Every host is healthy: the test (run_zoo.py) fails on any finding. Usage:
  python3 tests/zoo/make_zoo.py OUT        (writes OUT/<host>/..., OUT/hosts.json)
  python3 tests/zoo/make_zoo.py --list     (name and one line per host)
  python3 tests/zoo/make_zoo.py --markdown (README.md's table of hosts)

The text renderers and templates are tests/cases/make_cases.py's (driver name order taken from the
shared cases copied there), the sysfs helpers tests/fixtures/make_fixtures.py's, the DCB reply
tests/fixtures/recordings/make_dcb_recordings.py's. What each host is and where its shape comes
from: README.md beside this file.
"""
import copy
import json
import os
import re
import shutil
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
TESTS = HERE.parent
for d in (TESTS / "cases", TESTS / "fixtures", TESTS / "fixtures" / "recordings"):
    sys.path.insert(0, str(d))
import make_cases as mc  # noqa: E402  (text renderers; no side effect on import)
import make_fixtures as mf  # noqa: E402  (sysfs helpers)
import make_dcb_recordings as dcbrec  # noqa: E402

TS0 = mc.TS0  # 2026-01-01T00:00:00Z
DAY = 86400
U32 = 1 << 32
U64 = 1 << 64
REF_AGE = 30 * DAY  # age the shared cases' template values stand for (scaled to each host's age)

# Device ids and lspci titles beyond make_cases' table.
mc.NICS.update({
    "cx6lx": ("Ethernet controller: Mellanox Technologies MT2894 Family [ConnectX-6 Lx]",
              "Mellanox Technologies MT2894 [ConnectX-6 Lx]", "ConnectX-6 Lx EN adapter card, 25GbE, Dual-port SFP28", "mlx5_core"),
    "cx6vpi": ("Infiniband controller: Mellanox Technologies MT28908 Family [ConnectX-6]",
               "Mellanox Technologies MT28908 Family [ConnectX-6]", "ConnectX-6 VPI adapter card, HDR IB (200Gb/s)", "mlx5_core"),
    "cx7ib": ("Infiniband controller: Mellanox Technologies MT2910 Family [ConnectX-7]",
              "Mellanox Technologies Device 0007", "NVIDIA ConnectX-7 HHHL Adapter card, 400Gb/s NDR IB", "mlx5_core"),
    "cx6sd": ("Ethernet controller: Mellanox Technologies MT28908 Family [ConnectX-6]",
              "Mellanox Technologies ConnectX-6 Socket Direct", "ConnectX-6 VPI Socket Direct 2x PCIe x8, 100GbE", "mlx5_core"),
    "bcm57414": ("Ethernet controller: Broadcom Inc. and subsidiaries BCM57414 NetXtreme-E 10Gb/25Gb RDMA Ethernet Controller (rev 01)",
                 "Broadcom Inc. and subsidiaries NetXtreme-E Dual-port 25G SFP28 Ethernet OCP 3.0 Adapter (BCM957414N4140C)",
                 "Broadcom NetXtreme-E 2x25G OCP 3.0", "bnxt_en"),
})
PCI_IDS = {  # nic -> (vendor, device, class) for sysfs
    "cx6dx": ("0x15b3", "0x101d", "0x020000"), "cx7": ("0x15b3", "0x1021", "0x020000"),
    "cx6lx": ("0x15b3", "0x101f", "0x020000"), "cx6vpi": ("0x15b3", "0x101b", "0x020700"),
    "cx7ib": ("0x15b3", "0x1021", "0x020700"), "cx6sd": ("0x15b3", "0x101b", "0x020000"),
    "bcm57508": ("0x14e4", "0x1750", "0x020000"), "bcm57414": ("0x14e4", "0x16d7", "0x020000"),
    "e810": ("0x8086", "0x1592", "0x020000"),
}
HCA = {"cx6dx": ("MT4125", "MT_0000000359", "22.39.2048"), "cx7": ("MT4129", "MT_0000000838", "28.39.2048"),
       "cx6lx": ("MT4127", "MT_0000000531", "26.39.2048"), "cx6vpi": ("MT4123", "MT_0000000223", "20.39.2048"),
       "cx7ib": ("MT4129", "MT_0000000892", "28.39.2048"), "cx6sd": ("MT4123", "MT_0000000229", "20.39.2048"),
       "bcm57508": ("0x1750", "BCM957508-P2100G", "227.1.111.0"), "bcm57414": ("0x16d7", "BCM957414N4140C", "227.1.111.0"),
       "e810": ("E810", None, "1.71")}
mc.DRIVER_INFO["rxe"] = dict(vendor="0xffffff", part="0", board=None, fw="0.0.0", hw="0x0",
                             netdrv="virtio_net", netver="1.0.0", netfw="")
mc.DRIVER_INFO["mlx5lx"] = dict(vendor="0x02c9", part="4127", board="MT_0000000531", fw="26.39.2048", hw="0x0",
                                netdrv="mlx5_core", netver="6.8.0-51-generic", netfw="26.39.2048 (MT_0000000531)")
mc.DRIVER_INFO["mlx5ib"] = dict(vendor="0x02c9", part="4123", board="MT_0000000223", fw="20.39.2048", hw="0x0",
                                netdrv="mlx5_core[ib_ipoib]", netver="6.8.0-51-generic", netfw="20.39.2048 (MT_0000000223)")
mc.SPEEDS[2.5] = ("1X (1)", "2.5 Gbps (1)")
RATE = {2.5: "2.5 Gb/sec (1X SDR)", 25: "25 Gb/sec (1X EDR)", 50: "50 Gb/sec (2X EDR)",
        100: "100 Gb/sec (4X EDR)", 200: "200 Gb/sec (4X HDR)", 400: "400 Gb/sec (4X NDR)"}
PCIE_GBPS = {"2.5GT/s": 2.0, "5GT/s": 4.0, "8GT/s": 7.877, "16GT/s": 15.754, "32GT/s": 31.508}
SYSFS_SPEED = {"8GT/s": "8.0 GT/s PCIe", "16GT/s": "16.0 GT/s PCIe", "32GT/s": "32.0 GT/s PCIe"}


# ================================================================= the description of a host
class Bridge:
    """A PCIe bridge above the NIC: bdf, lspci kind ('Root Port (Slot+)', 'Upstream Port',
    'Downstream Port (Slot+)'), LnkCap and LnkSta as ('16GT/s', 16)."""

    def __init__(self, bdf, kind, cap, sta, name="Intel Corporation Ice Lake Xeon PCI Express Root Port (rev 06)",
                 ids=("0x8086", "0x347a", "0x060400")):
        self.bdf, self.kind, self.cap, self.sta, self.name, self.ids = bdf, kind, cap, sta, name, ids


ROOT_NAME = "Intel Corporation Ice Lake Xeon PCI Express Root Port (rev 06)"
SWITCH = ("PLX Technology, Inc. PEX 88096 PCIe Gen 4 Switch (rev b0)", ("0x10b5", "0xc010", "0x060400"))
SWITCH5 = ("Broadcom / LSI PEX89144 PCIe Gen 5 Switch (rev b0)", ("0x1000", "0xc030", "0x060400"))


class ZPort:
    """One RDMA port (one device per PCI function, port 1, as mlx5/bnxt_re/irdma register them).
    rx/tx_gbps: RoCE traffic in/out; pause_rx/tx: PFC (or link) pause frames per second with
    pause_us microseconds paused per frame; ecn: CE marks per second answered by CNPs;
    up: per capture True/False (a never-cabled port is False everywhere)."""

    def __init__(self, dev, netdev, mac, bdf, ip, speed=100, mtu=9000, rx_gbps=40.0, tx_gbps=38.0,
                 pfc_prio=3, pause_rx=2.0, pause_tx=0.5, pause_us=4.0, ecn=300.0, up=True,
                 link_layer="Ethernet", lid=0, sm_lid=0, fn_cap=("16GT/s", 16), fn_sta=None,
                 chain=None, numa=0, hist=None, cnp_ratio=0.97, cnp_handled=None):
        self.dev, self.netdev, self.mac, self.bdf, self.ip = dev, netdev, mac, bdf, ip
        self.speed, self.mtu, self.rx_gbps, self.tx_gbps = speed, mtu, rx_gbps, tx_gbps
        self.pfc_prio, self.pause_rx, self.pause_tx, self.pause_us, self.ecn = pfc_prio, pause_rx, pause_tx, pause_us, ecn
        self.up, self.link_layer, self.lid, self.sm_lid = up, link_layer, lid, sm_lid
        self.fn_cap, self.fn_sta = fn_cap, fn_sta or fn_cap
        self.chain = chain or []
        self.numa = numa
        self.hist = hist or {}  # historic (flat) error counts by counter name
        # CNPs sent per CE mark (below 1: the notification point sends at most one CNP per QP per
        # np_min_time_between_cnps) and CNPs received and handled per second (as a sender)
        self.cnp_ratio = cnp_ratio
        self.cnp_handled = 0.9 * ecn if cnp_handled is None else cnp_handled

    def is_up(self, i):
        return self.up if isinstance(self.up, bool) else self.up[i]

    def mc_port(self, i, driver):
        """make_cases.Port for its text renderers."""
        return mc.Port(self.dev, self.netdev, self.mac, self.bdf, ip=self.ip, mtu=self.mtu,
                       speed=self.speed, state="up" if self.is_up(i) else "down", driver=driver)


class Host:
    """A healthy host: driver family ('mlx5', 'bnxt', 'irdma', 'rxe'), NIC model, ports, and its
    captures: times (s after TS0), uptime at each, and the age of its counters at each (seconds
    since the driver last reset them; firmware-kept mlx5 *_phy / PMA counters use fw_age)."""

    def __init__(self, name, what, source, driver, nic, ports, times=(0, 30, 60), uptime0=9 * DAY,
                 ages=None, fw_ages=None, uptimes=None, q32_offset=None, u64_wrap=False, hostname=None,
                 carrier_changes=2, dmesg=False, trust="dscp", bnxt_cc=False, hwc_absent=()):
        self.name, self.what, self.source, self.driver, self.nic = name, what, source, driver, nic
        self.ports, self.times = ports, list(times)
        self.uptimes = uptimes or [uptime0 + t for t in self.times]
        self.ages = ages or [u - 55 for u in self.uptimes]  # drivers loaded ~55 s after boot
        self.fw_ages = fw_ages or self.ages
        self.q32_offset = q32_offset or {}  # counter -> value at capture 0 (mlx5 32-bit Q counters)
        # 64-bit byte counters start near 2^64 and wrap halfway between these counter ages (t1, t2)
        self.wrap_ages = (self.ages[1], self.ages[2]) if u64_wrap else None
        self.hostname = hostname
        # netdev carrier_changes per capture (a reboot or reload re-registers the netdev: it restarts)
        self.carrier = list(carrier_changes) if isinstance(carrier_changes, (list, tuple)) else [carrier_changes] * len(self.times)
        self.dmesg = dmesg  # a `dmesg` capture with the driver's PCIe bandwidth line at probe
        self.trust = trust  # mlnx_qos trust state
        self.bnxt_cc = bnxt_cc  # bnxt_re with the newer kernels' CNP/ECN hw_counters
        self.hwc_absent = set(hwc_absent)  # hw_counters an older kernel or firmware does not have


HOSTS = []


def host(*a, **kw):
    HOSTS.append(Host(*a, **kw))


def mac_for(tag, i=0, oui="0c:42:a1"):
    return "%s:%02x:%02x:%02x" % (oui, tag, 0x40 + i, 0x10 + i)


def root(bus, cap=("16GT/s", 16), sta=None, slot=1):
    return Bridge("0000:%02x:%02x.0" % (bus, slot), "Root Port (Slot+)", cap, sta or cap, ROOT_NAME)


# ================================================================= counter values
def seg_start(h, i):
    """Index of the first capture of i's counter segment (no reset between it and i)."""
    while i > 0 and h.ages[i] > h.ages[i - 1]:
        i -= 1
    return i


def q32(h, name, true_vals):
    """mlx5 32-bit Q counter as the kernel prints it (be32 in a u64): the true count mod 2^32.
    Without an offset for `name`, the first value of each segment is kept low enough that the
    captures see no wrap; with one, the counter reads that at capture 0 (a wrap then follows)."""
    out = []
    for i, v in enumerate(true_vals):
        s = seg_start(h, i)
        if name in h.q32_offset and s == 0:
            out.append((h.q32_offset[name] + v - true_vals[0]) % U32)
        else:
            base = true_vals[s] % U32
            last = true_vals[max(j for j in range(len(true_vals)) if seg_start(h, j) == s)]
            if base + (last - true_vals[s]) >= U32:
                base = base % (U32 - (last - true_vals[s]) - 1)
            out.append(base + v - true_vals[s])
    return out


def traffic(p, age, i):
    """RoCE byte counts since the counters' reset; a port that is down now carried nothing."""
    if not p.is_up(i) and not any(p.is_up(j) for j in range(i)):
        return 0, 0
    return int(p.rx_gbps * 1e9 / 8 * age), int(p.tx_gbps * 1e9 / 8 * age)


def port_now(h, p, i):
    """(counter age s, RoCE bytes in, bytes out, bytes per RoCE packet) of a port at capture i."""
    age = h.ages[i]
    rx, tx = traffic(p, age, i)
    return age, rx, tx, pkt_bytes(p)


def pkt_bytes(p):
    return mc.active_mtu_for(p.mtu) + 58 if p.link_layer == "Ethernet" else 4096 + 30


def template_scaled(v, age):
    return int(v * age / REF_AGE)


ERRISH = re.compile(r"err|discard|drop|pause|stall|lane|corrected|symbol|down|module|oversize|jabber|fragment|"
                    r"undersize|range|storm|unplug|recover|wqe_err|alloc|timeout|xoff|xon|fault|crc|illegal|"
                    r"busy|restart|linearize|congst|arfs|unknown|stopped|wake|if_down|steer_missed|out_of_buffer|"
                    r"cqe_err|full|filler|ecn_mark|xdp|dropped|nop|signal")


def hist(p, name, age, default=0):
    """Historic count of an error counter: flat across captures, 0 right after a reset (age < 1 h)."""
    return p.hist.get(name, default) if age > 3600 else 0


U64_WRAP = re.compile(r"^(rx|tx)_(bytes_phy|prio\d_bytes)$")


def at_age(h, age):
    """h as one capture whose counters (driver and firmware) are `age` seconds old."""
    c = copy.copy(h)
    c.times, c.ages, c.fw_ages, c.uptimes, c.carrier = [0], [age], [age], [age + 55], h.carrier[-1:]
    return c


def mlx5_eth_vals(h, p, i, wrap=True):
    """Every name of the mlx5e `ethtool -S` template at capture i. With h.u64_wrap, the 64-bit
    byte counters get an offset that puts 2^64 halfway between their values at t1 and t2."""
    if h.wrap_ages and wrap:
        v = mlx5_eth_vals(h, p, i, wrap=False)
        v1, v2 = (mlx5_eth_vals(at_age(h, a), p, 0, wrap=False) for a in h.wrap_ages)
        for n in v:
            if U64_WRAP.match(n) and v2[n] > v1[n]:
                v[n] = (v[n] + U64 - (v1[n] + v2[n]) // 2) % U64
        return v
    age, fw = h.ages[i], h.fw_ages[i]
    up_now = p.is_up(i)
    rx, tx = traffic(p, age, i)
    rxf, txf = traffic(p, fw, i)
    pk = pkt_bytes(p)
    cabled = up_now or any(p.is_up(j) for j in range(i))
    v = {}
    for n, tv in mc.MLX5_ETHTOOL:
        if not cabled:
            v[n] = 0
        elif ERRISH.search(n):
            v[n] = hist(p, n, age)
        else:
            v[n] = template_scaled(tv, age)
    if not cabled:
        return v
    other = 0.03  # non-RoCE share on the wire (TCP, LLDP)
    v.update({"rx_bytes_phy": int(rxf * (1 + other)) , "tx_bytes_phy": int(txf * (1 + other)),
              "rx_packets_phy": rxf // pk, "tx_packets_phy": txf // pk,
              "rx_vport_rdma_unicast_bytes": rx, "tx_vport_rdma_unicast_bytes": tx,
              "rx_vport_rdma_unicast_packets": rx // pk, "tx_vport_rdma_unicast_packets": tx // pk,
              "rx_4096_to_8191_bytes_phy" if pk > 4000 else "rx_1024_to_1518_bytes_phy": rxf // pk,
              "rx_bytes": int(rx * other), "tx_bytes": int(tx * other), "rx_packets": int(rx * other) // 1400,
              "tx_packets": int(tx * other) // 1400, "rx_vport_unicast_bytes": int(rx * other),
              "tx_vport_unicast_bytes": int(tx * other), "rx_vport_unicast_packets": int(rx * other) // 1400,
              "tx_vport_unicast_packets": int(tx * other) // 1400,
              "link_down_events_phy": hist(p, "link_down_events_phy", fw, 1),
              "rx_buffer_passed_thres_phy": int(p.pause_rx * 0.1 * fw)})
    prio = p.pfc_prio if p.pfc_prio is not None else 0
    for q in range(8):
        for d, b in (("rx", rxf), ("tx", txf)):
            if q == prio:
                v["%s_prio%d_bytes" % (d, q)] = b
                v["%s_prio%d_packets" % (d, q)] = b // pk
            elif q == 0:
                v["%s_prio0_bytes" % d] = int(b * other)
                v["%s_prio0_packets" % d] = int(b * other) // 1400
            else:
                v["%s_prio%d_bytes" % (d, q)] = v["%s_prio%d_packets" % (d, q)] = 0
    g = "prio%d" % p.pfc_prio if p.pfc_prio is not None else "global"
    v["rx_%s_pause" % g] = int(p.pause_rx * fw)
    v["rx_%s_pause_duration" % g] = int(p.pause_rx * fw * p.pause_us)
    v["rx_%s_pause_transition" % g] = int(p.pause_rx * fw / 2)
    v["tx_%s_pause" % g] = int(p.pause_tx * fw)
    v["tx_%s_pause_duration" % g] = int(p.pause_tx * fw * p.pause_us)
    if p.pfc_prio is None:
        v["rx_pause_ctrl_phy"], v["tx_pause_ctrl_phy"] = v["rx_global_pause"], v["tx_global_pause"]
    return v


MLX5_Q32 = {"rx_write_requests", "rx_read_requests", "rx_atomic_requests", "rx_dct_connect", "out_of_buffer",
            "out_of_sequence", "duplicate_request", "rnr_nak_retry_err", "packet_seq_err", "implied_nak_seq_err",
            "local_ack_timeout_err", "resp_local_length_error", "resp_cqe_error", "req_cqe_error",
            "req_remote_invalid_request", "req_remote_access_errors", "resp_remote_access_errors",
            "resp_cqe_flush_error", "req_cqe_flush_error", "req_transport_retries_exceeded",
            "req_rnr_retries_exceeded", "roce_adp_retrans", "roce_adp_retrans_to", "roce_slow_restart",
            "roce_slow_restart_cnps", "roce_slow_restart_trans"}


def mlx5_hwc_true(h, p, i):
    """mlx5 hw_counters before the 32-bit truncation."""
    age = h.ages[i]
    rx, tx = traffic(p, age, i)
    v = {n: hist(p, n, age) for n, _ in mc.MLX5_HWC}
    v.update({"lifespan": 10, "rx_write_requests": rx // 65536, "rx_read_requests": rx // 65536 // 9,
              "req_cqe_flush_error": hist(p, "req_cqe_flush_error", age, 12),
              "resp_cqe_flush_error": hist(p, "resp_cqe_flush_error", age, 14)})
    if p.link_layer == "Ethernet" and traffic(p, age, i)[0]:
        ecn = p.ecn * age
        v.update({"np_ecn_marked_roce_packets": int(ecn), "np_cnp_sent": int(ecn * p.cnp_ratio),
                  "rp_cnp_handled": int(p.cnp_handled * age)})
    else:
        for n in ("np_ecn_marked_roce_packets", "np_cnp_sent", "rp_cnp_handled", "rp_cnp_ignored", "rx_icrc_encapsulated"):
            v.pop(n, None)  # not on an IB port (cc counters are RoCE only)
    return v


def mlx5_hwc(h, p):
    """Per capture, the mlx5 hw_counters as read (Q counters 32-bit)."""
    per = [mlx5_hwc_true(h, p, i) for i in range(len(h.times))]
    for c in per:
        for n in h.hwc_absent:
            c.pop(n, None)
    for n in MLX5_Q32:
        if n in per[0]:
            for i, val in enumerate(q32(h, n, [c[n] for c in per])):
                per[i][n] = val
    return per


PMA_WIDTH = {"symbol_error": 16, "link_error_recovery": 8, "link_downed": 8, "port_rcv_errors": 16,
             "port_rcv_remote_physical_errors": 16, "port_rcv_switch_relay_errors": 16, "port_xmit_discards": 16,
             "port_xmit_constraint_errors": 8, "port_rcv_constraint_errors": 8, "local_link_integrity_errors": 4,
             "excessive_buffer_overrun_errors": 4, "VL15_dropped": 16, "port_xmit_wait": 32}


def pma(h, p, i):
    """IB PMA counters/ (mlx5: 64-bit data/packets, data in 4-byte units; firmware-kept)."""
    fw = h.fw_ages[i]
    rx, tx = traffic(p, fw, i)
    pk = pkt_bytes(p)
    v = {n: hist(p, n, fw) for n in mf.MLX5_COUNTERS}
    v.update({"port_rcv_data": rx // 4, "port_xmit_data": tx // 4, "port_rcv_packets": rx // pk,
              "port_xmit_packets": tx // pk, "unicast_rcv_packets": rx // pk, "unicast_xmit_packets": tx // pk,
              "multicast_rcv_packets": int(fw * 0.2), "multicast_xmit_packets": int(fw * 0.05)})
    if p.link_layer == "InfiniBand":  # credit waits on a busy IB fabric, in ticks; 32-bit, saturates
        v["port_xmit_wait"] = min(int(p.pause_rx * fw * 40), U32 - 1)
    return v


def bnxt_eth(h, p, i):
    """bnxt_en `ethtool -S` text: the shared case's template (rings + port stats), every value
    recomputed for this host (ring counters from the host's traffic, errors historic)."""
    age, rx, tx, pk = port_now(h, p, i)
    cabled = traffic(p, age, i)[0] > 0
    prio = p.pfc_prio
    out = []
    for line in mc.BNXT_ETHTOOL_TXT.splitlines():
        m = re.match(r"^(\s+(?:\[\d+\]: )?)(\S+): (\d+)$", line)
        if not m:
            out.append(line)
            continue
        lead, n, tv = m.group(1), m.group(2), int(m.group(3))
        ring = "[" in lead
        if not cabled:
            val = 0
        elif ring:
            val = 0 if ERRISH.search(n) else template_scaled(tv, age) // 8
        elif ERRISH.search(n) or re.search(r"pfc|pause|duration|transitions|threshold|bits", n):
            val = hist(p, n, age)
        else:
            val = template_scaled(tv, age)
        out.append("%s%s: %d" % (lead, n, val))
    if not cabled:
        return "\n".join(out) + "\n"
    v = {"rx_bytes": int(rx * 1.03), "tx_bytes": int(tx * 1.03), "rx_good_frames": rx // pk, "tx_good_frames": tx // pk,
         "rx_total_frames": rx // pk, "tx_total_frames": tx // pk, "rx_ucast_frames": rx // pk,
         "tx_ucast_frames": tx // pk, "rx_4096b_9216b_frames": rx // pk, "tx_4096b_9216b_frames": tx // pk,
         "link_down_events": hist(p, "link_down_events", age, 1), "rx_bits": rx * 8}
    cos = 1 if prio is not None else 0
    for c in range(8):
        v["rx_bytes_cos%d" % c] = rx if c == cos else int(rx * 0.03) if c == 0 else 0
        v["tx_bytes_cos%d" % c] = tx if c == cos else int(tx * 0.03) if c == 0 else 0
        v["rx_packets_cos%d" % c] = v["rx_bytes_cos%d" % c] // pk
        v["tx_packets_cos%d" % c] = v["tx_bytes_cos%d" % c] // pk
    for q in range(8):
        on = q == prio
        v["rx_bytes_pri%d" % q] = rx if on else (int(rx * 0.03) if q == 0 else 0)
        v["tx_bytes_pri%d" % q] = tx if on else (int(tx * 0.03) if q == 0 else 0)
        v["rx_packets_pri%d" % q] = v["rx_bytes_pri%d" % q] // pk
        v["tx_packets_pri%d" % q] = v["tx_bytes_pri%d" % q] // pk
        v["rx_pfc_ena_frames_pri%d" % q] = int(p.pause_rx * age) if on else 0
        v["tx_pfc_ena_frames_pri%d" % q] = int(p.pause_tx * age) if on else 0
        v["pfc_pri%d_rx_duration_us" % q] = int(p.pause_rx * age * p.pause_us) if on else 0
        v["pfc_pri%d_tx_duration_us" % q] = int(p.pause_tx * age * p.pause_us) if on else 0
        v["pfc_pri%d_rx_transitions" % q] = int(p.pause_rx * age / 2) if on else 0
        v["pfc_pri%d_tx_transitions" % q] = int(p.pause_tx * age / 2) if on else 0
    v["rx_pfc_frames"] = int(p.pause_rx * age) if prio is not None else 0
    v["tx_pfc_frames"] = int(p.pause_tx * age) if prio is not None else 0
    text = "\n".join(out) + "\n"
    return re.sub(r"^(\s+)(\S+): (\d+)$", lambda m: "%s%s: %d" % (m.group(1), m.group(2), v.get(m.group(2), int(m.group(3)))),
                  text, flags=re.M)


def bnxt_hwc(h, p, i):
    age, rx, tx, pk = port_now(h, p, i)
    v = {n: hist(p, n, age) for n, _ in mc.BNXT_HWC}
    if rx:
        v.update({"active_qps": 130, "active_cqs": 66, "active_mrs": 520, "active_pds": 3, "active_ahs": 2,
                  "rx_bytes": rx, "tx_bytes": tx, "rx_pkts": rx // pk, "tx_pkts": tx // pk,
                  "rx_roce_good_bytes": rx, "rx_roce_good_pkts": rx // pk, "rx_write_req": rx // 65536,
                  "tx_write_req": tx // 65536, "rx_read_req": rx // 590000, "tx_read_req": tx // 590000,
                  "rx_read_resp": tx // 590000, "tx_read_resp": rx // 590000, "rx_send_req": rx // 2000000,
                  "tx_send_req": tx // 2000000})
    if h.bnxt_cc:  # newer kernels' bnxt_re names (CNP and ECN counters, RoCE-only traffic)
        v.update({"tx_roce_only_pkts": tx // pk, "tx_roce_only_bytes": tx, "rx_roce_only_pkts": rx // pk,
                  "rx_roce_only_bytes": rx, "rx_ecn_marked_pkts": int(p.ecn * age) if rx else 0,
                  "tx_cnp_pkts": int(p.ecn * p.cnp_ratio * age) if rx else 0,
                  "rx_cnp_pkts": int(p.cnp_handled * age) if rx else 0})
    v["lifespan"] = 10
    return v


def ice_vals(h, p, i):
    age, rx, tx, pk = port_now(h, p, i)
    v = {}
    for n, tv in mc.ICE_ETHTOOL:
        v[n] = hist(p, n, age) if ERRISH.search(n) else template_scaled(tv, age)
    if not rx:
        return {n: 0 for n in v}
    v.update({"rx_bytes.nic": int(rx * 1.03), "tx_bytes.nic": int(tx * 1.03), "rx_unicast.nic": rx // pk,
              "tx_unicast.nic": tx // pk, "rx_size_big.nic": rx // pk, "tx_size_big.nic": tx // pk,
              "rx_bytes": int(rx * 0.03), "tx_bytes": int(tx * 0.03), "rx_unicast": int(rx * 0.03) // 1400,
              "tx_unicast": int(tx * 0.03) // 1400})
    for q in range(2):
        v["rx_queue_%d_bytes" % q], v["tx_queue_%d_bytes" % q] = int(rx * 0.015), int(tx * 0.015)
        v["rx_queue_%d_packets" % q], v["tx_queue_%d_packets" % q] = int(rx * 0.015) // 1400, int(tx * 0.015) // 1400
    if p.pfc_prio is not None:
        q = p.pfc_prio
        v["rx_priority_%d_xoff.nic" % q] = int(p.pause_rx * age)
        v["rx_priority_%d_xon.nic" % q] = int(p.pause_rx * age)
        v["tx_priority_%d_xoff.nic" % q] = int(p.pause_tx * age)
        v["tx_priority_%d_xon.nic" % q] = int(p.pause_tx * age)
    return v


def irdma_hwc(h, p, i):
    age, rx, tx, pk = port_now(h, p, i)
    v = {n: hist(p, n, age) for n, _ in mc.IRDMA_HWC}
    if rx:
        v.update({"ip4InOctets": rx, "ip4OutOctets": tx, "ip4InPkts": rx // pk, "ip4OutPkts": tx // pk,
                  "RxUDP": rx // pk, "TxUDP": tx // pk, "iwInRdmaWrites": rx // 65536, "iwOutRdmaWrites": tx // 65536,
                  "iwInRdmaReads": rx // 1240000, "iwOutRdmaReads": tx // 1240000, "iwInRdmaSends": rx // 3700000,
                  "iwOutRdmaSends": tx // 3700000, "RxECNMrkd": int(p.ecn * age), "cnpSent": int(p.ecn * p.cnp_ratio * age),
                  "cnpHandled": int(p.cnp_handled * age), "ip4InMcastPkts": int(age * 0.1)})
    v["lifespan"] = 10
    return v


RXE_NAMES = sorted(mf.RXE_HW_COUNTERS)


def rxe_hwc(h, p, i):
    age, rx, tx, pk = port_now(h, p, i)
    v = {n: 0 for n in RXE_NAMES}
    v.update({"lifespan": 10, "rcvd_pkts": rx // pk, "sent_pkts": tx // pk, "rdma_sends": tx // pk // 3,
              "rdma_recvs": rx // pk // 3, "ack_deferred": int(rx // pk * 0.001)})
    return v


def netdev_stats(h, p, i):
    """Kernel netdev statistics: L2 traffic only (RoCE bypasses the netdev on these drivers)."""
    age = h.ages[i]
    rx, tx = traffic(p, age, i)
    if p.link_layer == "InfiniBand":
        rx, tx = rx * 0.002, tx * 0.002  # IPoIB: a little
    elif h.driver == "rxe":  # rxe sends RoCE through the netdev: it counts everything
        rx, tx = rx * 1.0, tx * 1.0
    else:
        rx, tx = rx * 0.03, tx * 0.03
    return {"rx_bytes": int(rx), "tx_bytes": int(tx), "rx_packets": int(rx) // 1400, "tx_packets": int(tx) // 1400,
            "rx_errors": 0, "tx_errors": 0, "rx_dropped": hist(p, "rx_dropped", age), "tx_dropped": 0}


# ================================================================= bundle text
def uptime_text(clock_s, up_s, users=2, load=(3.1, 3.02, 2.95)):
    """`uptime` as procps prints it."""
    hh, mm, ss = (clock_s // 3600) % 24, (clock_s // 60) % 60, clock_s % 60
    d, rem = divmod(int(up_s), DAY)
    h_, m_ = rem // 3600, (rem // 60) % 60
    parts = []
    if d:
        parts.append("%d day%s" % (d, "" if d == 1 else "s"))
    parts.append("%2d:%02d" % (h_, m_) if h_ else "%d min" % m_)
    return " %02d:%02d:%02d up %s,  %d users,  load average: %.2f, %.2f, %.2f\n" % (
        hh, mm, ss, ",  ".join(parts), users, *load)


def ip_s_s(h, p, i, idx):
    s = netdev_stats(h, p, i)
    text = mc.ip_s_s_link(p.mc_port(i, "mlx5"), s["rx_bytes"], s["rx_packets"], s["tx_bytes"], s["tx_packets"],
                          carrier=h.carrier[i] if p.is_up(i) else 1)
    text = text.replace("4: %s:" % p.netdev, "%d: %s:" % (idx, p.netdev), 1)
    if not p.is_up(i):
        text = text.replace("<BROADCAST,MULTICAST,UP,LOWER_UP>", "<NO-CARRIER,BROADCAST,MULTICAST,UP>").replace(
            "state UP", "state DOWN")
    return text


IB_PORT_FIELDS = {"sm_lid": "\t\t\t%(sm_lid)d", "port_lid": "\t\t%(lid)d", "active_mtu": "\t\t4096 (5)",
                  "port_cap_flags": "\t\t0xa651e848", "max_vl_num": "\t\t4 (3)", "pkey_tbl_len": "\t\t128",
                  "gid_tbl_len": "\t\t8", "subnet_timeout": "\t\t18"}


def ib_devinfo(text, ports):
    """ibv_devinfo -v of ports on an InfiniBand link layer: LID, SM LID, IB GIDs (no RoCE type)."""
    out = []
    lid_iter = iter(ports)
    p = None
    for line in text.splitlines():
        if line.startswith("hca_id:"):
            p = next(lid_iter)
        field = line.strip().split(":")[0]
        if field == "link_layer":
            line = line.replace("Ethernet", "InfiniBand")
        elif field in IB_PORT_FIELDS:  # an IB port's values (active_mtu: the subnet's, not IPoIB's)
            line = "\t\t\t%s:%s" % (field, IB_PORT_FIELDS[field] % {"sm_lid": p.sm_lid, "lid": p.lid})
        elif "GID[" in line:
            if "GID[  0]" in line:
                out.append("\t\t\tGID[  0]:\t\tfe80:0000:0000:0000:%s" % guid_of(p, "mlx5"))
            continue
        out.append(line)
    return "\n".join(out) + "\n"


def guid_of(p, driver):
    return mc.node_guid_from_mac(p.mac, "mlx5" if driver == "mlx5" else "other")


def ib_ip_link(ports, i):
    out = ["1: lo: <LOOPBACK,UP,LOWER_UP> mtu 65536 qdisc noqueue state UNKNOWN mode DEFAULT group default qlen 1000",
           "    link/loopback 00:00:00:00:00:00 brd 00:00:00:00:00:00 promiscuity 0 minmtu 0 maxmtu 0 addrgenmode eui64 numtxqueues 1 numrxqueues 1 gso_max_size 65536 gso_max_segs 65535 "]
    for k, p in enumerate(ports):
        g = guid_of(p, "mlx5").replace(":", "")
        hw = ":".join(g[j:j + 2] for j in range(0, 16, 2))
        flags, st = ("<BROADCAST,MULTICAST,UP,LOWER_UP>", "UP") if p.is_up(i) else ("<NO-CARRIER,BROADCAST,MULTICAST,UP>", "DOWN")
        out.append("%d: %s: %s mtu %d qdisc mq state %s mode DEFAULT group default qlen 256"
                   % (k + 4, p.netdev, flags, p.mtu, st))
        out.append("    link/infiniband 00:00:10:29:fe:80:00:00:00:00:00:00:%s brd 00:ff:ff:ff:ff:12:40:1b:ff:ff:00:00:00:00:00:00:ff:ff:ff:ff promiscuity 0 minmtu 68 maxmtu 4092 "
                   "ipoib pkey  0xffff mode datagram umcast 0000 addrgenmode eui64 numtxqueues 256 numrxqueues 32 gso_max_size 65536 gso_max_segs 65535 parentbus pci parentdev %s " % (hw, p.bdf))
    return "\n".join(out) + "\n"


def rdma_link_text(h, i):
    out = []
    for p in h.ports:
        up = p.is_up(i)
        st = "state ACTIVE physical_state LINK_UP" if up else "state DOWN physical_state %s" % (
            "POLLING" if p.link_layer == "InfiniBand" else "DISABLED")
        if p.link_layer == "InfiniBand":
            out.append("link %s/1 subnet_prefix fe80:0000:0000:0000 lid %d sm_lid %d lmc 0 %s " % (p.dev, p.lid, p.sm_lid, st))
        else:
            out.append("link %s/1 %s netdev %s " % (p.dev, st, p.netdev))
    return "\n".join(out) + "\n"


def lspci_text(h, i):
    """lspci -vv of every bridge above the NIC functions and the functions themselves."""
    seen, out = set(), []
    for p in h.ports:
        chain = p.chain
        for k, b in enumerate(chain):
            if b.bdf in seen:
                continue
            seen.add(b.bdf)
            sec = (chain[k + 1].bdf if k + 1 < len(chain) else p.bdf).split(":")[1]
            sub = p.bdf.split(":")[1]
            prim = b.bdf.split(":")[1]
            out.append(mc.lspci_bridge(b.bdf, b.name, b.kind, prim, sec, sub, b.cap, b.sta, port_no=k + 1,
                                       slot=(k + 1) if "Slot" in b.kind else None))
        out.append(mc.lspci_nic(p.bdf, h.nic, p.fn_cap, p.fn_sta))
    return "".join(out)


def pcie_gbps(speed, width):
    return PCIE_GBPS[speed] * width


def dmesg_text(h, i):
    """`dmesg` since boot: the NIC drivers' probe lines with pcie_print_link_status(), which names
    a limiting device only when the path is slower than the function's own capability."""
    up = h.uptimes[i]
    drvname = {"mlx5": "mlx5_core", "bnxt": "bnxt_en", "irdma": "ice"}[h.driver]
    out = ["[    0.000000] Linux version 6.8.0-51-generic (buildd@lcy02-amd64-091) (x86_64-linux-gnu-gcc-13 (Ubuntu 13.2.0-23ubuntu4) 13.2.0) #52-Ubuntu SMP PREEMPT_DYNAMIC"]
    for k, p in enumerate(h.ports):
        t = 4.1 + k * 0.35
        # pcie_bandwidth_available(): from the function up, the first device whose link is slower
        bdf, sta = p.bdf, p.fn_sta
        for b in reversed(p.chain):
            if pcie_gbps(*b.sta) < pcie_gbps(*sta):
                bdf, sta = b.bdf, b.sta
        avail = pcie_gbps(*sta)
        cap = pcie_gbps(*p.fn_cap)
        spd = lambda x: "%s.0 GT/s PCIe x%d" % (x[0][:-4], x[1])
        line = "[%12.6f] %s %s: %.3f Gb/s available PCIe bandwidth" % (t, drvname, p.bdf, avail)
        if avail < cap - 0.01:
            line += ", limited by %s link at %s (capable of %.3f Gb/s with %s link)" % (spd(sta), bdf, cap, spd(p.fn_cap))
        else:
            line += " (%s link)" % spd(p.fn_sta)
        out.append("[%12.6f] %s %s: firmware version: %s" % (t - 0.2, drvname, p.bdf, HCA.get(h.nic, ("", "", "?"))[2]))
        out.append(line)
    out.append("[%12.6f] systemd-journald[812]: Time spent on flushing to /var is 41.203ms for 1211 entries." % min(up, 9.5))
    return "\n".join(out) + "\n"


def capture(h, i):
    """The files of capture i."""
    f = {}
    kind = h.driver
    info_kind = {"cx6lx": "mlx5lx", "cx7": "mlx5cx7", "cx7ib": "mlx5cx7", "cx6vpi": "mlx5ib", "cx6sd": "mlx5ib"}.get(h.nic)
    mports = [p.mc_port(i, kind) for p in h.ports]
    ib = any(p.link_layer == "InfiniBand" for p in h.ports)
    for p, mp in zip(h.ports, mports):
        hw = hw_counters_at(h, p, i)
        f["hw_counters-%s.txt" % p.dev] = mc.hwc_listing(p.dev, hw, [(n, 0) for n in hw])
        if h.driver != "rxe" and not ib:
            f["ethtool-S-%s.txt" % p.netdev] = ethtool_text(h, p, i)
        if ib:
            f["counters-%s.txt" % p.dev] = mc.hwc_listing(p.dev, pma(h, p, i), [(n, 0) for n in pma(h, p, i)],
                                                          counters_dir="counters")
        elif h.driver == "mlx5" and p.is_up(i):
            f["mlnx_qos-%s.txt" % p.netdev] = mc.mlnx_qos((p.pfc_prio,) if p.pfc_prio is not None else (), h.trust)
        if h.driver != "rxe" and not ib:
            f["ethtool-i-%s.txt" % p.netdev] = mc.ethtool_i(mp, kind=info_kind)
    # A down Ethernet RDMA port reports DOWN/DISABLED (mlx5_query_port_roce, bnxt_re, irdma and rxe
    # query_port: LINK_UP only with carrier, else DISABLED); POLLING is InfiniBand training.
    dv = mc.devinfo(mports, verbose=True, kind=info_kind)
    f["ibv_devinfo-v.txt"] = ib_devinfo(dv, h.ports) if ib else dv.replace("POLLING (2)", "DISABLED (3)")
    if ib:
        f["ip-d-link.txt"] = ib_ip_link(h.ports, i)
    else:
        f["ip-d-link.txt"] = mc.ip_d_link(mports)
        f["ip-s-s-link.txt"] = "".join(ip_s_s(h, p, i, k + 2) for k, p in enumerate(h.ports))
    f["rdma-link.txt"] = rdma_link_text(h, i)
    if any(p.chain for p in h.ports):
        f["lspci-vv.txt"] = lspci_text(h, i)
    if h.dmesg:
        f["dmesg.txt"] = dmesg_text(h, i)
    clock = TS0 + h.times[i]
    f["uptime.txt"] = uptime_text(clock % DAY, h.uptimes[i])
    f["timestamp"] = "%d\n" % clock
    if h.hostname:
        f["hostname"] = h.hostname + "\n"
    return f


# ================================================================= sysfs tree (state at the last capture)
def pci_path(p):
    """devices/pci0000:XX/<root>/<bridges...>/<function>"""
    dom = (p.chain[0].bdf if p.chain else p.bdf).split(":")[1]
    parts = ["devices", "pci0000:%s" % dom] + [b.bdf for b in p.chain] + [p.bdf]
    return "/".join(parts)


def hw_counters_at(h, p, i):
    """The port's hw_counters at capture i, by driver."""
    if h.driver == "mlx5":
        return mlx5_hwc(h, p)[i]
    return {"bnxt": bnxt_hwc, "irdma": irdma_hwc, "rxe": rxe_hwc}[h.driver](h, p, i)


def ethtool_text(h, p, i):
    """`ethtool -S <netdev>` at capture i (Ethernet NICs with a driver of their own; not rxe/IPoIB)."""
    if h.driver == "mlx5":
        return mc.mlx5_ethtool(mlx5_eth_vals(h, p, i), pfc_prios=(p.pfc_prio,) if p.pfc_prio is not None else (),
                               global_pause=p.pfc_prio is None)
    return bnxt_eth(h, p, i) if h.driver == "bnxt" else mc.ice_ethtool(ice_vals(h, p, i))


def write_pcie(sysr, h, p, done):
    """The PCI function and its bridges (each once); returns the function's path under sysr."""
    if h.driver == "rxe":
        mf.pci_dir(sysr, "devices/pci0000:00/0000:00:03.0", "Unknown", "Unknown", 0, 0, numa=-1,
                   ids=("0x1af4", "0x1000", "0x020000"))
        return "devices/pci0000:00/0000:00:03.0/virtio0"
    path = "devices/pci0000:%s" % (p.chain[0].bdf if p.chain else p.bdf).split(":")[1]
    for b in p.chain:
        path += "/" + b.bdf
        if b.bdf not in done:
            done.add(b.bdf)
            mf.pci_dir(sysr, path, SYSFS_SPEED[b.sta[0]], SYSFS_SPEED[b.cap[0]], b.sta[1], b.cap[1],
                       numa=p.numa, ids=b.ids)
    func = path + "/" + p.bdf
    drv = {"mlx5": "mlx5_core", "bnxt": "bnxt_en", "irdma": "ice"}[h.driver]
    mf.pci_dir(sysr, func, SYSFS_SPEED[p.fn_sta[0]], SYSFS_SPEED[p.fn_cap[0]], p.fn_sta[1], p.fn_cap[1],
               numa=p.numa, ids=PCI_IDS[h.nic], driver=drv)
    return func


def write_netdev(sysr, h, p, i, func):
    up = p.is_up(i)
    mf.netdev(sysr, func, p.netdev, p.mtu, "up" if up else "down", h.carrier[i] if up else 1,
              netdev_stats(h, p, i), func if h.driver != "rxe" else None)
    nd = sysr / func / "net" / p.netdev
    if p.link_layer == "InfiniBand":  # IPoIB: 20-byte address (QPN + port GID), ARPHRD_INFINIBAND
        g = guid_of(p, "mlx5").replace(":", "")
        mf.write(nd / "address", "00:00:10:29:fe:80:00:00:00:00:00:00:" + ":".join(g[j:j + 2] for j in range(0, 16, 2)))
        mf.write(nd / "type", "32")
    else:
        mf.write(nd / "address", p.mac)


def write_rdma(sysr, h, p, i, func):
    """class/infiniband/<dev>: device attributes and port 1 (state, rate, GIDs, counters)."""
    up = p.is_up(i)
    ibdir = ("devices/virtual/infiniband/%s" % p.dev) if h.driver == "rxe" else "%s/infiniband/%s" % (func, p.dev)
    d = sysr / ibdir
    guid = guid_of(p, h.driver)
    hca = HCA.get(h.nic, ("", None, ""))
    mf.write(d / "node_guid", guid)
    mf.write(d / "sys_image_guid", guid_of(h.ports[0], h.driver))
    mf.write(d / "fw_ver", hca[2])  # rxe: empty, it has no get_dev_fw_str
    mf.write(d / "node_type", "1: CA")
    for attr, val in (("hca_type", hca[0]), ("board_id", hca[1])):
        if val:
            mf.write(d / attr, val)
    mf.write(d / "node_desc", "%s %s" % (h.hostname or h.name, p.dev))
    if h.driver == "rxe":
        mf.write(d / "parent", p.netdev)
    else:
        mf.rel_link(sysr, "%s/device" % ibdir, func)
    ll, _ = mc.gid_from_mac(p.mac)
    if p.link_layer == "InfiniBand":
        gids = []  # written below: an IB GID has a type but no netdev
    elif h.driver == "rxe":  # rxe registers RoCE v2 GIDs only (tests/fixtures rxe_mtu1500)
        gids = mf.roce_gids(ll, mf.ipv4_gid(*map(int, p.ip.split("."))), v1=False)
    else:
        gids = [(ll, mf.V1), (ll, mf.V2)]
        if p.ip and (up or any(p.is_up(j) for j in range(i))):
            gids += [(mf.ipv4_gid(*map(int, p.ip.split("."))), t) for t in (mf.V1, mf.V2)]
    state = "4: ACTIVE" if up else "1: DOWN"
    phys = "5: LinkUp" if up else "2: Polling" if p.link_layer == "InfiniBand" else "3: Disabled"  # see capture()
    rate = RATE[p.speed] if up or h.driver != "mlx5" else "10 Gb/sec (4X SDR)"  # mlx5: no speed while down
    pdir = d / "ports" / "1"
    mf.rdma_port(pdir, state, phys, rate, gids, p.netdev, pma(h, p, i) if h.driver == "mlx5" else None,
                 hw_counters_at(h, p, i))
    if p.link_layer == "InfiniBand":
        for f, val in (("link_layer", "InfiniBand"), ("lid", "0x%x" % p.lid), ("sm_lid", "0x%x" % p.sm_lid),
                       ("cap_mask", "0xa651e848"), ("gids/0", "fe80:0000:0000:0000:" + guid),
                       ("gid_attrs/types/0", mf.V1)):
            mf.write(pdir / f, val)
    mf.rel_link(sysr, "class/infiniband/%s" % p.dev, ibdir)


def write_tree(h, out: Path):
    """out/<host>/sys as the kernel lays it out, at the last capture, and the recordings beside it:
    ethtool/<if>.txt (`ethtool -S`) and dcb/<if>.hex (PFC on the port's priority, trust dscp)."""
    i = len(h.times) - 1
    top = out / h.name
    sysr = top / "sys"
    (sysr / "class" / "infiniband").mkdir(parents=True, exist_ok=True)
    (sysr / "class" / "net").mkdir(parents=True, exist_ok=True)
    done = set()
    for p in h.ports:
        func = write_pcie(sysr, h, p, done)
        write_netdev(sysr, h, p, i, func)
        write_rdma(sysr, h, p, i, func)
        if h.driver != "rxe" and p.link_layer == "Ethernet":
            mf.write(top / "ethtool" / ("%s.txt" % p.netdev), ethtool_text(h, p, i))
            if p.is_up(i):
                mf.write(top / "dcb" / ("%s.hex" % p.netdev),
                         "# DCB_CMD_IEEE_GET reply (tests/zoo/make_zoo.py via make_dcb_recordings.reply)\n"
                         + dcbrec.hexlines(dcbrec.reply(p.netdev, True, p.pfc_prio)))


def write_bundle(h, out: Path):
    for i in range(len(h.times)):
        d = out / h.name / "bundle" / ("t%d" % i)
        d.mkdir(parents=True, exist_ok=True)
        for fn, text in capture(h, i).items():
            (d / fn).write_text(text)


# ================================================================= moving counters for the agent
def live_copy(h, elapsed):
    """h `elapsed` seconds after its last capture, its traffic going on (a second 'capture'). A
    host whose counters wrap in its bundle wraps here too, 30 s after the start; one whose driver
    was reloaded between captures reloads again 20 s after the start (driver counters restart,
    firmware-kept ones go on, the netdev's carrier count restarts)."""
    last = len(h.times) - 1
    c = copy.copy(h)
    c.times = [h.times[last], h.times[last] + elapsed]
    c.ages = [h.ages[last], h.ages[last] + elapsed]
    c.fw_ages = [h.fw_ages[last], h.fw_ages[last] + elapsed]
    c.uptimes = [h.uptimes[last], h.uptimes[last] + elapsed]
    c.carrier = [h.carrier[last]] * 2
    reloads = any(h.ages[k] < h.ages[k - 1] and h.uptimes[k] > h.uptimes[k - 1] for k in range(1, len(h.times)))
    if reloads and elapsed >= 20:  # a host whose bundle shows a driver reload reloads again 20 s in
        c.ages = [h.ages[last], elapsed - 20 + 5]
        c.carrier = [h.carrier[last], 1]
    if h.wrap_ages:
        c.wrap_ages = (h.ages[last], h.ages[last] + 60)
    if h.q32_offset:
        p = h.ports[0]
        v0, v60 = (mlx5_hwc_true(at_age(h, a), p, 0) for a in (h.ages[last], h.ages[last] + 60))
        c.q32_offset = {n: U32 - (v60[n] - v0[n]) // 2 for n in h.q32_offset}
    return c


def tree_files(h, out):
    """{path: text} of h's tree (write_tree with the writes collected, links left alone)."""
    files = {}
    saved = mf.write, mf.rel_link
    mf.write = lambda path, text: files.__setitem__(Path(path), text if text.endswith("\n") else text + "\n")
    mf.rel_link = lambda *a: None
    try:
        write_tree(h, out)
    finally:
        mf.write, mf.rel_link = saved
    return files


class LiveWriter:
    """Rewrites the zoo's trees as time passes: only files whose text changed, each atomically
    (a temporary file renamed over it), so a reader never sees a half-written counter."""

    def __init__(self, out, names):
        hosts = {h.name: h for h in zoo()}
        self.out, self.hosts, self.cache = Path(out), [hosts[n] for n in names], {}

    def update(self, elapsed):
        n = 0
        for h in self.hosts:
            for path, text in tree_files(live_copy(h, elapsed), self.out).items():
                if self.cache.get(path) != text:
                    tmp = path.with_name(path.name + ".zoo-tmp")
                    tmp.write_text(text)
                    os.replace(tmp, path)
                    self.cache[path] = text
                    n += 1
        return n


# ================================================================= the zoo
def zoo():
    HOSTS.clear()
    G4x16 = ("16GT/s", 16)
    cx6 = lambda tag, n=1, **kw: [ZPort("mlx5_%d" % k, "ens1f%dnp%d" % (k, k), mac_for(tag, k), "0000:3b:00.%d" % k,
                                        "10.%d.%d.%d" % (20 + k, tag, 11), chain=[root(0x3a)], **kw) for k in range(n)]

    host("mlx5-cx6dx-pfc3-ecn", "ConnectX-6 Dx 100GbE, RoCE on PFC priority 3 (trust dscp), ECN marks answered by CNPs, MTU 9000",
         "NVIDIA RoCE configuration guides (mlnx_qos --trust dscp --pfc 0,0,0,1,0,0,0,0); counters per en_stats.c / counters.c",
         "mlx5", "cx6dx", cx6(0x01, rx_gbps=62, tx_gbps=58, ecn=900))
    host("mlx5-x8-card-x16-slot", "ConnectX-6 Lx 2x25GbE (a PCIe Gen4 x8 card, LnkCap x8) in an x16 slot: the link runs x8, the card's maximum",
         "issue 26 class 3; ConnectX-6 Lx product brief (PCIe Gen 4.0 x8); lspci LnkCap of the card x8, root port x16",
         "mlx5", "cx6lx", [ZPort("mlx5_%d" % k, "ens2f%dnp%d" % (k, k), mac_for(0x02, k), "0000:5e:00.%d" % k, "10.%d.2.12" % (20 + k),
                                 speed=25, rx_gbps=18, tx_gbps=17, fn_cap=("16GT/s", 8),
                                 chain=[root(0x5d, cap=G4x16, sta=("16GT/s", 8))]) for k in range(2)],
         dmesg=True)
    host("mlx5-behind-switch-gen4x16", "ConnectX-6 Dx x16 behind a PCIe switch (PEX 88096) whose uplink is x16 Gen4, all links at 16 GT/s x16",
         "GPU servers with NICs behind PCIe switches (DGX-A100-like topology, lspci -t); Broadcom PEX88000 brief",
         "mlx5", "cx6dx", [ZPort("mlx5_0", "ens5f0np0", mac_for(0x03), "0000:15:00.0", "10.20.3.13", rx_gbps=90, tx_gbps=88,
                                 chain=[root(0x10), Bridge("0000:11:00.0", "Upstream Port", G4x16, G4x16, *SWITCH),
                                        Bridge("0000:12:08.0", "Downstream Port (Slot+)", G4x16, G4x16, *SWITCH)])],
         dmesg=True)
    host("mlx5-switch-gen5-on-gen4-root", "ConnectX-7 (Gen5 x16) behind a Gen5 switch whose upstream port trained at 16 GT/s x16 under a Gen4 root port: each link at the lower end's maximum",
         "issue 26 class 3 (compare against the lower of the two ends); PCIe base spec link training",
         "mlx5", "cx7", [ZPort("mlx5_0", "ens6np0", mac_for(0x04), "0000:1a:00.0", "10.20.4.14", speed=200, rx_gbps=150, tx_gbps=140,
                               fn_cap=("32GT/s", 16), fn_sta=("32GT/s", 16),
                               chain=[root(0x16, cap=G4x16), Bridge("0000:17:00.0", "Upstream Port", ("32GT/s", 16), G4x16, *SWITCH5),
                                      Bridge("0000:18:00.0", "Downstream Port (Slot+)", ("32GT/s", 16), ("32GT/s", 16), *SWITCH5)])],
         dmesg=True)
    host("mlx5-socket-direct-x8-halves", "ConnectX-6 Socket Direct: two x8 halves on two sockets (each function LnkCap x8 on an x8 root port), both ports up",
         "NVIDIA ConnectX-6 Socket Direct user manual (2x PCIe x8, one per CPU)",
         "mlx5", "cx6sd", [ZPort("mlx5_%d" % k, "ens%df0np0" % (3 + k), mac_for(0x05, k), "0000:%02x:00.0" % b, "10.%d.5.15" % (20 + k),
                                 rx_gbps=40, tx_gbps=38, fn_cap=("16GT/s", 8), numa=k,
                                 chain=[Bridge("0000:%02x:02.0" % (b - 1), "Root Port (Slot+)", ("16GT/s", 8), ("16GT/s", 8))])
                           for k, b in enumerate((0x3b, 0xb1))],
         dmesg=True)
    host("mlx5-bifurcated-x8x8", "x16 slot bifurcated x8x8 with two x8 ConnectX-6 Dx functions (OCP 3.0 dual-x8), each trained x8 of x8",
         "OCP NIC 3.0 spec (bifurcated x8x8 host interface); BIOS IIO bifurcation settings",
         "mlx5", "cx6dx", [ZPort("mlx5_%d" % k, "ens7f%dnp%d" % (k, k), mac_for(0x06, k), "0000:%02x:00.0" % (0x4b + k), "10.%d.6.16" % (20 + k),
                                 rx_gbps=35, tx_gbps=33, fn_cap=("16GT/s", 8),
                                 chain=[Bridge("0000:4a:%02x.0" % (2 + k), "Root Port (Slot+)", ("16GT/s", 8), ("16GT/s", 8))])
                           for k in range(2)])
    host("mlx5-dual-port-one-uncabled", "dual-port ConnectX-6 Dx, port 2 never cabled (DOWN/DISABLED, no carrier, no traffic, link-local GIDs)",
         "openucx/ucx #2534 (ibdev2netdev '(Down)' second port); shared h3-mlx5-dualport-uncabled-rdmastat-wrap",
         "mlx5", "cx6dx", [cx6(0x07, 1, rx_gbps=50, tx_gbps=48)[0],
                           ZPort("mlx5_1", "ens1f1np1", mac_for(0x07, 1), "0000:3b:00.1", None, mtu=1500, up=False, chain=[root(0x3a)])])
    host("mlx5-rebooted-between-captures", "ConnectX-6 Dx host rebooted between t0 and t1 (uptime 41 days, then 4 min): every counter restarts from 0",
         "issue 26 class 3 (reboot); shared h1-irdma-ice-recent-reboot, here on mlx5",
         "mlx5", "cx6dx", cx6(0x09, rx_gbps=45, tx_gbps=44, hist={"local_ack_timeout_err": 31, "out_of_sequence": 120,
                                                                     "rx_discards_phy": 812, "link_down_events_phy": 3}),
         times=(0, 900, 960), uptimes=[41 * DAY, 240, 300], ages=[41 * DAY - 55, 185, 245], carrier_changes=[6, 2, 2])
    host("mlx5-warm-reboot-phy-kept", "ConnectX-6 Dx after a warm reboot between t0 and t1: uptime falls, driver counters restart, the firmware-kept *_phy and PMA counters go on (a mix)",
         "issue 26 class 3 ('firmware-kept counters (mlx5 *_phy, IB PMA) can survive a warm reboot ... expect a mix')",
         "mlx5", "cx6dx", cx6(0x18, rx_gbps=52, tx_gbps=50, hist={"rx_discards_phy": 96, "local_ack_timeout_err": 4}),
         times=(0, 600, 630), uptimes=[17 * DAY, 200, 230], ages=[17 * DAY - 55, 145, 175],
         fw_ages=[17 * DAY - 55, 17 * DAY + 545, 17 * DAY + 575], carrier_changes=[4, 2, 2])
    host("mlx5-driver-reload", "ConnectX-6 Dx whose driver was reloaded between t0 and t1 (no reboot: uptime grows): driver counters restart, firmware *_phy / PMA counters keep counting",
         "issue 26 class 3 (counters falling with no reboot evidence: a driver reload; firmware-kept counters survive); mlx5 Q counters are per driver instance",
         "mlx5", "cx6dx", cx6(0x0a, rx_gbps=30, tx_gbps=29, hist={"local_ack_timeout_err": 7, "req_cqe_flush_error": 40}),
         times=(0, 300, 330), uptimes=[12 * DAY, 12 * DAY + 300, 12 * DAY + 330], ages=[12 * DAY - 55, 120, 150],
         fw_ages=[12 * DAY - 55, 12 * DAY + 245, 12 * DAY + 275], carrier_changes=[4, 2, 2])
    host("mlx5-q32-wrap", "ConnectX-6 Dx at ~80 Gb/s of 64 KiB RDMA writes: the 32-bit Q counter rx_write_requests wraps between t1 and t2 (4,294,0xx,xxx -> small)",
         "mlx5 counters.c (Q counters read as be32); shared h3-mlx5-dualport-uncabled-rdmastat-wrap",
         "mlx5", "cx6dx", cx6(0x0b, rx_gbps=80, tx_gbps=76),
         q32_offset={"rx_write_requests": U32 - 6_000_000, "rx_read_requests": U32 - 400_000})
    host("mlx5-u64-near-wrap", "ConnectX-6 Dx whose 64-bit byte counters start near 2^64 (firmware-kept *_phy and prio byte counters) and wrap between t1 and t2",
         "issue 26 class 3 (wraps: 64-bit counters do not wrap in practice; a fall without reset evidence is at most a note)",
         "mlx5", "cx6dx", cx6(0x0c, rx_gbps=60, tx_gbps=57), u64_wrap=True)
    host("mlx5-incast-pause-bursts", "ConnectX-6 Dx receiver of a normal incast: it sends PFC pause bursts on priority 3 (~300 frames/s, 1.5 ms/s paused), 40k CE marks/s answered by CNPs coalesced per QP (0.4 per mark), few CNPs handled (it sends little), no drops",
         "Intel 800 Series flow control guide (XOFF from bursts is expected); shared pause-burst-ok; NVIDIA ECN docs (np_min_time_between_cnps: at most one CNP per QP per window)",
         "mlx5", "cx6dx", cx6(0x0d, rx_gbps=88, tx_gbps=12, pause_rx=10, pause_tx=300, pause_us=5.0, ecn=40000,
                                      cnp_ratio=0.4, cnp_handled=150))
    host("mlx5-uptime-400d", "ConnectX-6 Dx up 400 days: byte counters near 10^17, historic errors (discards, ACK timeouts, 3 link downs) that do not move",
         "shared h3-healthy-uptime-400d; issue 26 zoo list",
         "mlx5", "cx6dx", cx6(0x0e, rx_gbps=25, tx_gbps=24, hist={"rx_discards_phy": 48211, "local_ack_timeout_err": 18234,
                                                                   "req_transport_retries_exceeded": 57, "link_down_events_phy": 3,
                                                                   "out_of_sequence": 2210, "packet_seq_err": 1802,
                                                                   "rx_dropped": 120}),
         uptime0=400 * DAY, carrier_changes=6)
    host("mlx5-ib-hdr-sm", "ConnectX-6 VPI on an InfiniBand HDR 200 Gb/s fabric with a subnet manager (LID 0x1a, SM LID 1), IPoIB ib0 MTU 2044",
         "ibv_devinfo / rdma link output of IB hosts (linux-rdma mailing list, OpenSM docs); PMA counters per core sysfs.c",
         "mlx5", "cx6vpi", [ZPort("mlx5_0", "ib0", mac_for(0x0f), "0000:3b:00.0", None, speed=200, mtu=2044, rx_gbps=120, tx_gbps=115,
                                  pfc_prio=None, link_layer="InfiniBand", lid=0x1a, sm_lid=1, ecn=0, pause_rx=20, pause_tx=0,
                                  chain=[root(0x3a)])])
    host("mlx5-ib-dual-port-one-uncabled", "dual-port ConnectX-6 VPI on InfiniBand HDR: port 1 ACTIVE (LID 0x21, SM LID 1), port 2 never cabled: DOWN/Polling, LID 0, no traffic",
         "IB HCAs with one port in use (ibstat 'State: Down, Physical state: Polling'); OpenSM assigns LIDs only to ports that are up",
         "mlx5", "cx6vpi", [ZPort("mlx5_0", "ib0", mac_for(0x1c, 0), "0000:3b:00.0", None, speed=200, mtu=2044, rx_gbps=90, tx_gbps=88,
                                  pfc_prio=None, link_layer="InfiniBand", lid=0x21, sm_lid=1, ecn=0, pause_rx=10, pause_tx=0,
                                  chain=[root(0x3a)]),
                            ZPort("mlx5_1", "ib1", mac_for(0x1c, 1), "0000:3b:00.1", None, speed=200, mtu=2044, up=False,
                                  pfc_prio=None, link_layer="InfiniBand", lid=0, sm_lid=0, ecn=0, pause_rx=0, pause_tx=0,
                                  chain=[root(0x3a)])])
    host("mlx5-ib-ndr-400g-busy", "ConnectX-7 on InfiniBand NDR 400 Gb/s at ~330 Gb/s (busy AI training), SM LID 1, IPoIB ib0 MTU 4092",
         "NVIDIA ConnectX-7 NDR user manual; NCCL all-reduce bus bandwidth on NDR",
         "mlx5", "cx7ib", [ZPort("mlx5_0", "ib0", mac_for(0x10), "0000:1a:00.0", None, speed=400, mtu=4092, rx_gbps=330, tx_gbps=328,
                                 pfc_prio=None, link_layer="InfiniBand", lid=0x2b, sm_lid=1, ecn=0, pause_rx=200, pause_tx=0,
                                 fn_cap=("32GT/s", 16), chain=[root(0x16, cap=("32GT/s", 16))])])
    host("mlx5-cx7-400g-busy", "ConnectX-7 400GbE RoCE at ~360 Gb/s in, 350 out, PFC 3 with light pause, DCQCN active",
         "shared h1-healthy-busy-cx7-200g scaled to 400 GbE; ConnectX-7 (PCIe Gen5 x16)",
         "mlx5", "cx7", [ZPort("mlx5_0", "ens1np0", mac_for(0x11), "0000:1a:00.0", "10.20.17.11", speed=400, rx_gbps=360, tx_gbps=350,
                               pause_rx=30, pause_tx=20, ecn=60000, fn_cap=("32GT/s", 16), chain=[root(0x16, cap=("32GT/s", 16))])])
    host("mlx5-cx7-200g-busy", "ConnectX-7 200GbE RoCE at ~175 Gb/s, PFC 3, ECN/CNP",
         "shared h1-healthy-busy-cx7-200g (same shape, generated)",
         "mlx5", "cx7", [ZPort("mlx5_0", "ens1np0", mac_for(0x12), "0000:1a:00.0", "10.20.18.11", speed=200, rx_gbps=175, tx_gbps=170,
                               pause_rx=20, pause_tx=5, ecn=20000, fn_cap=("32GT/s", 16), chain=[root(0x16, cap=("32GT/s", 16))])])
    host("mlx5-idle", "ConnectX-6 Dx idle: link up, a few LLDP/ARP frames, no RoCE traffic between captures",
         "any idle node of a cluster between jobs",
         "mlx5", "cx6dx", cx6(0x13, rx_gbps=0.0001, tx_gbps=0.0001, pause_rx=0, pause_tx=0, ecn=0))
    host("mlx5-pfc3-trust-pcp", "ConnectX-6 Dx on a VLAN-tagged RoCE fabric: trust pcp, PFC on priority 3, ECN/CNP",
         "NVIDIA RoCE configuration guides (trust pcp with VLAN egress priority maps on older fabrics)",
         "mlx5", "cx6dx", cx6(0x19, rx_gbps=44, tx_gbps=43), trust="pcp")
    host("mlx5-dual-port-second-idle", "dual-port ConnectX-6 Dx, both ports ACTIVE; port 2 is cabled and up but carries no traffic (kept for storage failover)",
         "common dual-rail hosts where one rail is idle between jobs",
         "mlx5", "cx6dx", [cx6(0x1a, 2, rx_gbps=64, tx_gbps=61)[0],
                           cx6(0x1a, 2, rx_gbps=0.00005, tx_gbps=0.00005, pause_rx=0, pause_tx=0, ecn=0)[1]])
    host("mlx5-kernel-5.4-counters", "ConnectX-5 era counter set: a 5.4 kernel's mlx5 hw_counters without req_*_retries_exceeded, roce_adp_* / roce_slow_restart*, rx_icrc_encapsulated",
         "drivers/infiniband/hw/mlx5 main.c of v5.4 (counters were split into counters.c in 5.9; the enhanced and roce_accl groups came later)",
         "mlx5", "cx6dx", cx6(0x1b, rx_gbps=36, tx_gbps=35),
         hwc_absent=("req_transport_retries_exceeded", "req_rnr_retries_exceeded", "roce_adp_retrans", "roce_adp_retrans_to",
                     "roce_slow_restart", "roce_slow_restart_cnps", "roce_slow_restart_trans", "rx_icrc_encapsulated"))
    host("mlx5-global-pause-light", "ConnectX-6 Dx with 802.3x link pause on (PFC off), RoCE lossless by global pause, light pause (a few frames/s)",
         "make_cases c5-healthy-global-pause-light; en_stats.c 'global' pause group",
         "mlx5", "cx6dx", cx6(0x15, pfc_prio=None, pause_rx=3, pause_tx=1, rx_gbps=40, tx_gbps=39))
    host("mlx5-single-capture", "one capture of a healthy dual-port ConnectX-6 Dx with port 2 never cabled",
         "issue 26 class 3 (a single capture of a healthy dual-port host exits 2 only because link_flap needs two captures)",
         "mlx5", "cx6dx", [cx6(0x16, 1, rx_gbps=50, tx_gbps=48)[0],
                           ZPort("mlx5_1", "ens1f1np1", mac_for(0x16, 1), "0000:3b:00.1", None, mtu=1500, up=False, chain=[root(0x3a)])],
         times=(0,))
    host("mlx5-hostname-three-captures", "ConnectX-6 Dx with hostname files and five captures 10 s apart (watch-style collection), steady traffic",
         "issue 12 class 1 collection scripts", "mlx5", "cx6dx", cx6(0x17, rx_gbps=70, tx_gbps=66), times=(0, 10, 20, 30, 40),
         hostname="gpu-z17")
    host("bnxt-p2100g-pfc3", "Broadcom BCM57508 P2100G 100GbE (bnxt_en + bnxt_re with the newer kernels' CNP/ECN hw_counters), RoCE on PFC 3, ECN marks answered by CNPs, ~70 Gb/s",
         "Broadcom RoCE configuration guide (bnxt_setupcc.sh, PFC on priority 3); bnxt_ethtool.c / bnxt_re hw_counters.c",
         "bnxt", "bcm57508", [ZPort("bnxt_re0", "ens2f0np0", mac_for(0x20, 0, "00:0a:f7"), "0000:41:00.0", "10.50.20.1",
                                    rx_gbps=70, tx_gbps=68, chain=[root(0x40)])], bnxt_cc=True)
    host("bnxt-dual-port-one-uncabled", "Broadcom P2100G dual-port, bnxt_re1 never cabled (DOWN/DISABLED, zero counters)",
         "make_cases c10-bnxt-dual-port-one-uncabled; Broadcom P2100G user guide",
         "bnxt", "bcm57508", [ZPort("bnxt_re0", "ens2f0np0", mac_for(0x21, 0, "00:0a:f7"), "0000:41:00.0", "10.50.21.1",
                                    rx_gbps=40, tx_gbps=38, chain=[root(0x40)]),
                              ZPort("bnxt_re1", "ens2f1np1", mac_for(0x21, 1, "00:0a:f7"), "0000:41:00.1", None, mtu=1500,
                                    up=False, chain=[root(0x40)])])
    host("bnxt-57414-25g-x8", "Broadcom BCM57414 2x25G OCP (PCIe Gen3 x8 card, LnkCap x8) on a Gen4 x16 root port: trained 8 GT/s x8, the card's maximum",
         "Broadcom BCM57414 product brief (PCIe 3.0 x8); issue 26 class 3 (speed as well as width: the lower of both ends)",
         "bnxt", "bcm57414", [ZPort("bnxt_re%d" % k, "ens3f%dnp%d" % (k, k), mac_for(0x22, k, "00:0a:f7"), "0000:61:00.%d" % k,
                                    "10.%d.22.1" % (50 + k), speed=25, rx_gbps=20, tx_gbps=19, fn_cap=("8GT/s", 8),
                                    chain=[root(0x60, cap=G4x16, sta=("8GT/s", 8))]) for k in range(2)],
         dmesg=True)
    host("bnxt-rebooted", "Broadcom BCM57508 host rebooted between t0 and t1 (uptime 20 days, then 3 min)",
         "issue 26 class 3 (reboot), bnxt shape", "bnxt", "bcm57508",
         [ZPort("bnxt_re0", "ens2f0np0", mac_for(0x23, 0, "00:0a:f7"), "0000:41:00.0", "10.50.23.1", rx_gbps=55, tx_gbps=50,
                hist={"to_retransmits": 14, "seq_err_naks_rcvd": 37}, chain=[root(0x40)])], bnxt_cc=True,
         times=(0, 700, 760), uptimes=[20 * DAY, 180, 240], ages=[20 * DAY - 55, 125, 185], carrier_changes=[8, 2, 2])
    host("irdma-e810-pfc3", "Intel E810-C 100GbE (ice + irdma), RoCEv2 on PFC priority 3 (DCB in firmware/willing), ECN answered by CNPs",
         "Intel E810 RDMA configuration guide (RoCEv2, PFC on TC with priority 3); ice_ethtool.c / irdma verbs.c; shared i2-irdma-ice-healthy",
         "irdma", "e810", [ZPort("irdma0", "ens5f0", mac_for(0x30, 0, "b4:96:91"), "0000:b1:00.0", "10.60.30.1", rx_gbps=60, tx_gbps=58,
                                 chain=[root(0xb0)])])
    host("irdma-e810-driver-reload", "Intel E810 whose ice/irdma drivers were reloaded between t0 and t1 (no reboot): every .nic and irdma counter restarts",
         "issue 26 class 3 (driver reload); ice resets its stats on probe", "irdma", "e810",
         [ZPort("irdma0", "ens5f0", mac_for(0x31, 0, "b4:96:91"), "0000:b1:00.0", "10.60.31.1", rx_gbps=40, tx_gbps=38, chain=[root(0xb0)])],
         times=(0, 300, 360), uptimes=[5 * DAY, 5 * DAY + 300, 5 * DAY + 360], ages=[5 * DAY - 55, 90, 150],
         carrier_changes=[5, 2, 2])
    host("irdma-e810-dual-port-one-uncabled", "Intel E810-C dual-port, port 2 (irdma1, ens5f1) never cabled: DOWN/DISABLED, no carrier, zero counters",
         "Intel E810-C-Q2 (two QSFP28 ports, one RDMA device per PF); issue 26 class 3 (uncabled ports)", "irdma", "e810",
         [ZPort("irdma0", "ens5f0", mac_for(0x33, 0, "b4:96:91"), "0000:b1:00.0", "10.60.33.1", rx_gbps=45, tx_gbps=44,
                chain=[root(0xb0)]),
          ZPort("irdma1", "ens5f1", mac_for(0x33, 1, "b4:96:91"), "0000:b1:00.1", None, mtu=1500, up=False, chain=[root(0xb0)])])
    host("irdma-e810-25g-idle", "Intel E810-XXV 25GbE, RoCEv2 idle (link up, no traffic), MTU 9000",
         "idle storage initiator between NVMe-oF/RDMA jobs", "irdma", "e810",
         [ZPort("irdma0", "ens6f0", mac_for(0x32, 0, "b4:96:91"), "0000:b1:00.0", "10.60.32.1", speed=25, rx_gbps=0.0002,
                tx_gbps=0.0002, pause_rx=0, pause_tx=0, ecn=0, chain=[root(0xb0)])])
    host("rxe-virtio-9000", "Soft-RoCE rxe0 on virtio eth0 with MTU 9000 (active_mtu 4096)",
         "tests/lab guests with jumbo frames; rxe", "rxe", None,
         [ZPort("rxe0", "eth0", "52:54:00:12:34:57", "0000:00:03.0", "10.99.0.12", speed=2.5, mtu=9000, rx_gbps=0.8, tx_gbps=0.8,
                pfc_prio=None, pause_rx=0, pause_tx=0, ecn=0)])
    return HOSTS


def check_plausible(h):
    """The zoo's own guard: every host stays a healthy one. Between captures of one counter segment:
    RoCE below 95 % of line rate, paused under 1 % of the time, CNPs sent no more than CE marks,
    uptime and counter age consistent, captures in time order. AssertionError names the host."""
    assert h.times == sorted(h.times), h.name
    for i in range(len(h.times)):  # driver counters start after boot; firmware ones no later
        assert h.ages[i] <= h.uptimes[i] and h.ages[i] <= h.fw_ages[i], (h.name, i, "counter ages")
    for p in h.ports:
        assert p.rx_gbps < 0.95 * p.speed and p.tx_gbps < 0.95 * p.speed, (h.name, p.dev, "above line rate")
        assert (p.pause_rx + p.pause_tx) * p.pause_us < 1e4, (h.name, p.dev, "paused 1 % of the time or more")
        assert p.cnp_ratio <= 1, (h.name, p.dev)
        if p.chain:  # the PCIe path carries the port: available bandwidth above the line rate
            path = min([pcie_gbps(*b.sta) for b in p.chain] + [pcie_gbps(*p.fn_sta)])
            assert path > p.speed * 1.05, (h.name, p.dev, "PCIe path below line rate")


def main(argv):
    hosts = zoo()
    for h in hosts:
        check_plausible(h)
    names = [h.name for h in hosts]
    assert len(names) == len(set(names)), "host names must be unique"
    if argv[1:] == ["--list"]:
        for h in hosts:
            print("%-34s %s" % (h.name, h.what))
        return 0
    if argv[1:] == ["--markdown"]:  # the table of README.md
        print("| host | driver, NIC | captures | what | shape from |\n|---|---|---|---|---|")
        for h in hosts:
            print("| `%s` | %s %s | %d | %s | %s |" % (h.name, h.driver, h.nic or "virtio", len(h.times), h.what, h.source))
        return 0
    if len(argv) != 2:
        print(__doc__, file=sys.stderr)
        return 2
    out = Path(argv[1])
    for h in hosts:
        shutil.rmtree(out / h.name, ignore_errors=True)
        write_tree(h, out)
        write_bundle(h, out)
    (out / "hosts.json").write_text(json.dumps(
        [{"name": h.name, "what": h.what, "captures": len(h.times), "driver": h.driver,
          "devices": [p.dev for p in h.ports]} for h in hosts], indent=1) + "\n")
    print("wrote %d hosts to %s" % (len(hosts), out))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
