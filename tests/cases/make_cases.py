#!/usr/bin/env python3
"""Writes the issue-12 cases of tests/cases (the ones not copied from ../shared/cases).

Each case is a directory of capture directories holding text shaped like what operators paste
(ethtool -S, hw_counters listings, ibv_devinfo, lspci -vv, ip -d link, ...). The long outputs
(the mlx5/bnxt/ice `ethtool -S` name order, the ibv_devinfo -v capability block) are taken from
the shared cases copied beside this script, so counter names stay the drivers' own
(en_stats.c, bnxt_ethtool.c, ice_ethtool.c, mlx5 counters.c, bnxt_re hw_counters.c, irdma).
Numbers are consistent: counters are cumulative, rates fit the link speed and the time between
captures, mlx5 *_pause_duration and bnxt pfc_pri*_duration_us are microseconds.

Run from anywhere: python3 tests/cases/make_cases.py  (rewrites only the cases it owns and
their EXPECTED lines between the '# generated' markers).
"""
import ipaddress
import os
import re
import shutil

HERE = os.path.dirname(os.path.abspath(__file__))
CASES = []  # (id, class, exit, regex, neg)


def read(rel):
    with open(os.path.join(HERE, rel)) as f:
        return f.read()


# ---------------------------------------------------------------- templates from shared cases
def names_values(text):
    out = []
    for line in text.splitlines():
        m = re.match(r"^\s+(\S.*?):\s+(\d+)\s*$", line)
        if m:
            out.append((m.group(1), int(m.group(2))))
    return out


MLX5_ETHTOOL = [(n, v) for n, v in names_values(read("c10-host-tx-pfc-pause/t0/ethtool_S.txt"))
                if not re.match(r"^(ch\d|rx\d|tx\d)", n)]
BNXT_ETHTOOL_TXT = read("b1-bnxt-tx-pfc-storm/t0/ethtool-S-ens2f0np0.txt")
ICE_ETHTOOL = names_values(read("i2-irdma-ice-healthy/t0/ethtool-S-ens5f0.txt"))
MLX5_HWC = [(l.rsplit("/", 1)[1].split(":")[0], int(l.rsplit(":", 1)[1]))
            for l in read("c10-host-tx-pfc-pause/t0/hwc.txt").splitlines()]
BNXT_HWC = [(l.rsplit("/", 1)[1].split(":")[0], int(l.rsplit(":", 1)[1]))
            for l in read("b1-bnxt-tx-pfc-storm/t0/hw_counters.txt").splitlines()]
IRDMA_HWC = [(l.rsplit("/", 1)[1].split(":")[0], int(l.rsplit(":", 1)[1]))
             for l in read("i2-irdma-ice-healthy/t0/hw_counters-irdma1.txt").splitlines()]
DEVINFO_CAPS = read("c04-pcie-gen3x8-slot/t0/ibv_devinfo-v.txt").split("\t\tport:")[0].splitlines()[10:]


# ---------------------------------------------------------------- small helpers
def gid_from_mac(mac):
    b = [int(x, 16) for x in mac.split(":")]
    b[0] ^= 0x02
    eui = b[:3] + [0xff, 0xfe] + b[3:]
    long = "fe80:0000:0000:0000:" + ":".join("%02x%02x" % (eui[i], eui[i + 1]) for i in range(0, 8, 2))
    return long, str(ipaddress.IPv6Address(long))


def node_guid_from_mac(mac, driver):
    b = [int(x, 16) for x in mac.split(":")]
    if driver == "mlx5":  # ConnectX: OUI + 03:00 + NIC bytes (b8ce:f603:0012:3456 style)
        g = b[:3] + [0x03, 0x00] + b[3:]
        g = g[:8] if len(g) >= 8 else g + [0]
        return "%02x%02x:%02x%02x:%02x%02x:%02x%02x" % tuple(b[:3] + [0x03, 0x00] + b[3:6])
    b[0] ^= 0x02  # bnxt_re / irdma: EUI-64 of the MAC
    return "%02x%02x:%02xff:fe%02x:%02x%02x" % tuple(b)


def ip_hex(ip):
    a = [int(x) for x in ip.split(".")]
    return "%02x%02x:%02x%02x" % tuple(a)


SPEEDS = {  # Gb/s -> (active_width, active_speed) as ibv_devinfo prints them
    25: ("1X (1)", "25.0 Gbps (32)"), 50: ("2X (16)", "25.0 Gbps (32)"),
    100: ("4X (2)", "25.0 Gbps (32)"), 200: ("4X (2)", "50.0 Gbps (64)"),
    400: ("4X (2)", "100.0 Gbps (128)"),
}
MTU_CODE = {256: 1, 512: 2, 1024: 3, 2048: 4, 4096: 5}


def active_mtu_for(netdev_mtu):
    rem = netdev_mtu - 96  # include/rdma/ib_addr.h iboe_get_mtu()
    return max([m for m in MTU_CODE if m <= rem] or [256])


class Port:
    def __init__(self, dev, netdev, mac, bdf, ip=None, mtu=9000, speed=100, state="up",
                 driver="mlx5", altname=None, port=1):
        self.dev, self.netdev, self.mac, self.bdf, self.ip = dev, netdev, mac, bdf, ip
        self.mtu, self.speed, self.state, self.driver, self.port = mtu, speed, state, driver, port
        self.altname = altname or self._altname()

    def _altname(self):
        bus, rest = self.bdf.split(":")[1], self.bdf.split(":")[2]
        slot, fn = rest.split(".")
        tail = self.netdev[len(self.netdev.rstrip("0123456789")) - 0:]
        np = re.search(r"(np\d+)$", self.netdev)
        return "enp%ds%df%s%s" % (int(bus, 16), int(slot, 16), fn, np.group(1) if np else "")


DRIVER_INFO = {
    "mlx5": dict(vendor="0x02c9", part="4125", board="MT_0000000359", fw="22.39.2048", hw="0x0",
                 netdrv="mlx5_core", netver="24.10-1.1.4", netfw="22.39.2048 (MT_0000000359)"),
    "mlx5cx7": dict(vendor="0x02c9", part="4129", board="MT_0000000838", fw="28.39.2048", hw="0x0",
                    netdrv="mlx5_core", netver="6.8.0-51-generic", netfw="28.39.2048 (MT_0000000838)"),
    "bnxt": dict(vendor="0x14e4", part="5968", board="BCM957508-P2100G", fw="227.1.111.0", hw="0x0",
                 netdrv="bnxt_en", netver="6.8.0-51-generic", netfw="227.0.131.0/pkg 227.1.111.0"),
    "irdma": dict(vendor="0x8086", part="5522", board=None, fw="1.71", hw="0x2",
                  netdrv="ice", netver="6.8.0-51-generic", netfw="4.40 0x8001c967 1.3534.0"),
}


def devinfo(ports, verbose=True, kind=None):
    """ibv_devinfo [-v] text for the RDMA devices of `ports` (one port each)."""
    out = []
    for p in ports:
        info = DRIVER_INFO[kind or p.driver]
        guid = node_guid_from_mac(p.mac, p.driver)
        out.append("hca_id:\t%s" % p.dev)
        out.append("\ttransport:\t\t\tInfiniBand (0)")
        out.append("\tfw_ver:\t\t\t\t%s" % info["fw"])
        out.append("\tnode_guid:\t\t\t%s" % guid)
        out.append("\tsys_image_guid:\t\t\t%s" % guid)
        out.append("\tvendor_id:\t\t\t%s" % info["vendor"])
        out.append("\tvendor_part_id:\t\t\t%s" % info["part"])
        out.append("\thw_ver:\t\t\t\t%s" % info["hw"])
        if info["board"]:
            out.append("\tboard_id:\t\t\t%s" % info["board"])
        out.append("\tphys_port_cnt:\t\t\t1")
        if verbose:
            out.extend(DEVINFO_CAPS)
        up = p.state == "up"
        amtu = active_mtu_for(p.mtu)
        out.append("\t\tport:\t1")
        out.append("\t\t\tstate:\t\t\t%s" % ("PORT_ACTIVE (4)" if up else "PORT_DOWN (1)"))
        out.append("\t\t\tmax_mtu:\t\t4096 (5)")
        out.append("\t\t\tactive_mtu:\t\t%d (%d)" % (amtu, MTU_CODE[amtu]))
        out.append("\t\t\tsm_lid:\t\t\t0")
        out.append("\t\t\tport_lid:\t\t0")
        out.append("\t\t\tport_lmc:\t\t0x00")
        out.append("\t\t\tlink_layer:\t\tEthernet")
        if verbose:
            w, s = SPEEDS[p.speed]
            out += ["\t\t\tmax_msg_sz:\t\t0x40000000", "\t\t\tport_cap_flags:\t\t0x04010000",
                    "\t\t\tport_cap_flags2:\t0x0000", "\t\t\tmax_vl_num:\t\tinvalid value (0)",
                    "\t\t\tbad_pkey_cntr:\t\t0x0", "\t\t\tqkey_viol_cntr:\t\t0x0", "\t\t\tsm_sl:\t\t\t0",
                    "\t\t\tpkey_tbl_len:\t\t1", "\t\t\tgid_tbl_len:\t\t255", "\t\t\tsubnet_timeout:\t\t0",
                    "\t\t\tinit_type_reply:\t0"]
            if up:
                out.append("\t\t\tactive_width:\t\t%s" % w)
                out.append("\t\t\tactive_speed:\t\t%s" % s)
                out.append("\t\t\tphys_state:\t\tLINK_UP (5)")
            else:
                out.append("\t\t\tactive_width:\t\t4X (2)")
                out.append("\t\t\tactive_speed:\t\t2.5 Gbps (1)")
                out.append("\t\t\tphys_state:\t\tPOLLING (2)")
            lg, sg = gid_from_mac(p.mac)
            out.append("\t\t\tGID[  0]:\t\t%s, RoCE v1" % lg)
            out.append("\t\t\tGID[  1]:\t\t%s, RoCE v2" % sg)
            if p.ip and up:
                out.append("\t\t\tGID[  2]:\t\t0000:0000:0000:0000:0000:ffff:%s, RoCE v1" % ip_hex(p.ip))
                out.append("\t\t\tGID[  3]:\t\t::ffff:%s, RoCE v2" % p.ip)
        out.append("")
    return "\n".join(out) + "\n"


MGMT = dict(netdev="eno1", mac="3c:ec:ef:10:22:31", bdf="0000:02:00.0", altname="enp2s0f0", mtu=1500)


def ip_d_link(ports, mgmt=False):
    out = ["1: lo: <LOOPBACK,UP,LOWER_UP> mtu 65536 qdisc noqueue state UNKNOWN mode DEFAULT group default qlen 1000",
           "    link/loopback 00:00:00:00:00:00 brd 00:00:00:00:00:00 promiscuity 0  allmulti 0 minmtu 0 maxmtu 0 addrgenmode eui64 numtxqueues 1 numrxqueues 1 gso_max_size 65536 gso_max_segs 65535 tso_max_size 524280 tso_max_segs 65535 gro_max_size 65536 "]
    idx = 2
    rows = []
    if mgmt:
        rows.append((MGMT["netdev"], MGMT["mac"], MGMT["bdf"], MGMT["altname"], MGMT["mtu"], True, 9216))
    for p in ports:
        rows.append((p.netdev, p.mac, p.bdf, p.altname, p.mtu, p.state == "up", 9978))
    for name, mac, bdf, alt, mtu, up, maxmtu in rows:
        flags = "<BROADCAST,MULTICAST,UP,LOWER_UP>" if up else "<NO-CARRIER,BROADCAST,MULTICAST,UP>"
        st = "UP" if up else "DOWN"
        out.append("%d: %s: %s mtu %d qdisc mq state %s mode DEFAULT group default qlen 1000" % (idx, name, flags, mtu, st))
        out.append("    link/ether %s brd ff:ff:ff:ff:ff:ff promiscuity 0  allmulti 0 minmtu 68 maxmtu %d addrgenmode eui64 numtxqueues 384 numrxqueues 63 gso_max_size 65536 gso_max_segs 65535 tso_max_size 524280 tso_max_segs 65535 gro_max_size 65536 parentbus pci parentdev %s " % (mac, maxmtu, bdf))
        out.append("    altname %s" % alt)
        idx += 1
    return "\n".join(out) + "\n"


def ip_s_s_link(p, rxb, rxp, txb, txp, crc=0, carrier=2, rx_dropped=0):
    return ("%d: %s: <BROADCAST,MULTICAST,UP,LOWER_UP> mtu %d qdisc mq state UP mode DEFAULT group default qlen 1000\n"
            "    link/ether %s brd ff:ff:ff:ff:ff:ff\n"
            "    RX:  bytes packets errors dropped  missed   mcast           \n"
            "    %d %d %6d %7d       0       0 \n"
            "    RX errors:  length    crc   frame    fifo overrun\n"
            "                     0 %6d       0       0       0 \n"
            "    TX:  bytes packets errors dropped carrier collsns           \n"
            "    %d %d      0       0       0       0 \n"
            "    TX errors: aborted   fifo  window heartbt transns\n"
            "                     0      0       0       0 %7d \n"
            "    altname %s\n") % (4, p.netdev, p.mtu, p.mac, rxb, rxp, crc, rx_dropped, crc, txb, txp, carrier, p.altname)


def ethtool_i(p, kind=None):
    info = DRIVER_INFO[kind or p.driver]
    return ("driver: %s\nversion: %s\nfirmware-version: %s\nexpansion-rom-version: \nbus-info: %s\n"
            "supports-statistics: yes\nsupports-test: yes\nsupports-eeprom-access: no\n"
            "supports-register-dump: no\nsupports-priv-flags: yes\n") % (
        info["netdrv"], info["netver"], info["netfw"], p.bdf)


def rdma_link(ports):
    out = []
    for p in ports:
        if p.state == "up":
            out.append("link %s/1 state ACTIVE physical_state LINK_UP netdev %s " % (p.dev, p.netdev))
        else:
            out.append("link %s/1 state DOWN physical_state POLLING netdev %s " % (p.dev, p.netdev))
    return "\n".join(out) + "\n"


def mlnx_qos(pfc_prios=(3,), trust="dscp"):
    en = ["1" if i in pfc_prios else "0" for i in range(8)]
    lines = ["DCBX mode: OS controlled", "Priority trust state: %s" % trust]
    if trust == "dscp":
        lines.append("dscp2prio mapping:")
        for p in range(8):
            lines.append("\tprio:%d dscp:%s," % (p, ",".join("%02d" % d for d in range(p * 8 + 7, p * 8 - 1, -1))))
    lines += ["default priority:", "Receive buffer size (bytes): 130944,130944,0,0,0,0,0,0,total_size=1027776",
              "Cable len: 7", "PFC configuration:", "\tpriority    0   1   2   3   4   5   6   7",
              "\tenabled     " + "   ".join(en) + "   ",
              "\tbuffer      " + "   ".join("1" if i in pfc_prios else "0" for i in range(8)) + "   "]
    for tc in range(8):
        bw = 40 if tc in pfc_prios else 8 if tc >= 5 else 9
        if pfc_prios and tc in pfc_prios:
            bw = 40
        lines.append("tc: %d ratelimit: unlimited, tsa: ets, bw: %d%%" % (tc, bw))
        lines.append("\t priority:  %d" % (1 if tc == 0 else 0 if tc == 1 else tc))
    return "\n".join(lines) + "\n"


# ---------------------------------------------------------------- counter listings
def mlx5_ethtool(vals, pfc_prios=(3,), global_pause=False):
    """mlx5e `ethtool -S` in en_stats.c order; pause groups only for enabled priorities / global."""
    out = ["NIC statistics:"]
    for n, v in MLX5_ETHTOOL:
        if re.match(r"^(rx|tx)_prio\d_pause", n):
            continue
        if n == "tx_pause_storm_warning_events":
            groups = (["global"] if global_pause else []) + ["prio%d" % p for p in pfc_prios]
            for g in groups:
                for nm in ("rx_%s_pause", "rx_%s_pause_duration", "tx_%s_pause", "tx_%s_pause_duration",
                           "rx_%s_pause_transition"):
                    name = nm % g
                    out.append("     %s: %d" % (name, vals.get(name, 0)))
        out.append("     %s: %d" % (n, vals.get(n, 0 if re.search(r"err|discard|drop|pause|stall|lane|corrected|symbol|down|module|oversize|jabber|fragment|undersize|range", n) else v)))
    return "\n".join(out) + "\n"


def mlx5_defaults(t, gbps=80.0, prio=3, base_b=2.41e16):
    """Cumulative mlx5 traffic counters at t seconds since a base, RoCE at `gbps` on `prio`;
    base_b: bytes received since the counters were last reset (keep it consistent with uptime)."""
    bps = gbps * 1e9 / 8
    pkt = 4160
    rxb = int(base_b + bps * t)
    txb = int(base_b * 0.93 + bps * 0.95 * t)
    v = {"rx_bytes_phy": rxb, "tx_bytes_phy": txb, "rx_packets_phy": rxb // pkt, "tx_packets_phy": txb // pkt,
         "rx_vport_rdma_unicast_bytes": int(rxb * 0.97), "tx_vport_rdma_unicast_bytes": int(txb * 0.97),
         "rx_vport_rdma_unicast_packets": int(rxb * 0.97) // pkt, "tx_vport_rdma_unicast_packets": int(txb * 0.97) // pkt,
         "rx_prio%d_bytes" % prio: int(rxb * 0.97), "tx_prio%d_bytes" % prio: int(txb * 0.97),
         "rx_prio%d_packets" % prio: int(rxb * 0.97) // pkt, "tx_prio%d_packets" % prio: int(txb * 0.97) // pkt,
         "rx_4096_to_8191_bytes_phy": int(rxb * 0.97) // pkt, "rx_multicast_phy": 91873, "tx_multicast_phy": 1913,
         "rx_broadcast_phy": 12877, "tx_broadcast_phy": 41}
    if prio != 0:
        v["rx_prio0_bytes"], v["tx_prio0_bytes"] = int(rxb * 0.03), int(txb * 0.03)
        v["rx_prio0_packets"], v["tx_prio0_packets"] = int(rxb * 0.03) // 1400, int(txb * 0.03) // 1400
    for k in ("rx_bytes", "tx_bytes", "rx_vport_unicast_bytes", "tx_vport_unicast_bytes"):
        v[k] = int((rxb if k.startswith("rx") else txb) * 0.03)
    for k in ("rx_packets", "tx_packets", "rx_vport_unicast_packets", "tx_vport_unicast_packets"):
        v[k] = int((rxb if k.startswith("rx") else txb) * 0.03) // 1400
    v["link_down_events_phy"] = 1
    return v


def hwc_listing(dev, vals, template, port=1, counters_dir="hw_counters"):
    return "".join("/sys/class/infiniband/%s/ports/%d/%s/%s:%d\n" % (dev, port, counters_dir, n, vals.get(n, 0 if n != "lifespan" else 10))
                   for n, _ in sorted(template))


def mlx5_hwc_defaults(t, gbps=80.0):
    req = int(4.2e9 + gbps * 1e9 / 8 / 65536 * t)
    return {"rx_write_requests": req, "rx_read_requests": req // 9, "duplicate_request": 12,
            "out_of_sequence": 17, "packet_seq_err": 9, "local_ack_timeout_err": 3, "req_cqe_error": 21,
            "req_cqe_flush_error": 388, "resp_cqe_error": 19, "resp_cqe_flush_error": 402,
            "np_ecn_marked_roce_packets": int(1882113 + 1800 * t), "np_cnp_sent": int(1790201 + 1750 * t),
            "rp_cnp_handled": int(1733870 + 1600 * t), "lifespan": 10}


def bnxt_ethtool(vals, zero=False):
    """bnxt_en `ethtool -S` in the shared case's order; zero=True: a port that never passed traffic."""
    out = []
    for line in BNXT_ETHTOOL_TXT.splitlines():
        m = re.match(r"^(\s+(?:\[\d+\]: )?)(\S+): (\d+)$", line)
        if not m:
            out.append(line)
            continue
        ring = "[" in m.group(1)
        name = m.group(2)
        if zero:
            out.append("%s%s: %d" % (m.group(1), name, vals.get(name, 0)))
        elif not ring and name in vals:
            out.append("%s%s: %d" % (m.group(1), name, vals[name]))
        elif not ring and re.search(r"pfc|pause|err|discard|fec|symbol|corrected|duration|transitions|down|threshold", name):
            out.append("%s%s: %d" % (m.group(1), name, 0))
        else:
            out.append(line)
    return "\n".join(out) + "\n"


def bnxt_defaults(t, gbps=80.0):
    bps = gbps * 1e9 / 8
    rxb = int(3.02e16 + bps * t)
    txb = int(3.02e16 + bps * 0.95 * t)
    return {"rx_bytes": rxb, "tx_bytes": txb, "rx_bytes_cos3": rxb - 2178302118337, "tx_bytes_cos3": txb - 2057308200117,
            "rx_bytes_pri3": rxb - 2178302118337, "tx_bytes_pri3": txb - 2057308200117,
            "rx_packets_cos3": rxb // 4150, "tx_packets_cos3": txb // 4150,
            "rx_packets_pri3": rxb // 4150, "tx_packets_pri3": txb // 4150,
            "rx_total_frames": rxb // 4150, "tx_total_frames": txb // 4150,
            "rx_good_frames": rxb // 4150, "tx_good_frames": txb // 4150,
            "rx_ucast_frames": rxb // 4150, "tx_ucast_frames": txb // 4150,
            "rx_4096b_9216b_frames": rxb // 4150, "tx_4096b_9216b_frames": txb // 4150,
            "rx_bits": rxb * 8, "link_down_events": 1}


def bnxt_hwc_defaults(t, gbps=80.0):
    rxb = int(3.02e16 + gbps * 1e9 / 8 * t)
    return {"active_qps": 258, "active_cqs": 66, "active_mrs": 1044, "active_pds": 3, "lifespan": 10,
            "rx_bytes": rxb, "tx_bytes": rxb, "rx_pkts": rxb // 4150, "tx_pkts": rxb // 4150,
            "rx_roce_good_bytes": rxb, "rx_roce_good_pkts": rxb // 4150,
            "rx_write_req": rxb // 66000, "tx_write_req": rxb // 66000, "rx_read_req": rxb // 830000,
            "tx_read_req": rxb // 830000, "rx_read_resp": rxb // 830000, "tx_read_resp": rxb // 830000,
            "rx_send_req": rxb // 2000000, "tx_send_req": rxb // 2000000}


def ice_ethtool(vals):
    out = ["NIC statistics:"]
    for n, v in ICE_ETHTOOL:
        if n in vals:
            v = vals[n]
        elif re.search(r"xon|xoff|crc|error|dropped|fault|oversize|undersize|jabber|fragment|illegal", n):
            v = 0
        out.append("     %s: %d" % (n, v))
    return "\n".join(out) + "\n"


def ice_defaults(t, gbps=60.0):
    bps = gbps * 1e9 / 8
    rxb = int(2.59e16 + bps * t)
    txb = int(2.59e16 + bps * 0.97 * t)
    return {"rx_bytes.nic": rxb, "tx_bytes.nic": txb, "rx_unicast.nic": rxb // 4150, "tx_unicast.nic": txb // 4150,
            "rx_size_big.nic": rxb // 4150, "tx_size_big.nic": txb // 4150}


def irdma_hwc_defaults(t, gbps=60.0):
    b = int(2.59e16 + gbps * 1e9 / 8 * t)
    return {"ip4InOctets": b, "ip4OutOctets": b, "ip4InPkts": b // 4150, "ip4OutPkts": b // 4150,
            "RxUDP": b // 4150, "TxUDP": b // 4150, "iwInRdmaWrites": b // 66000, "iwOutRdmaWrites": b // 66000,
            "iwInRdmaReads": b // 1240000, "iwOutRdmaReads": b // 1240000, "iwInRdmaSends": b // 3700000,
            "iwOutRdmaSends": b // 3700000, "RxECNMrkd": int(4118220 + 310 * t), "cnpSent": int(4002117 + 295 * t),
            "cnpHandled": int(3880004 + 280 * t), "lifespan": 10}


# ---------------------------------------------------------------- lspci -vv
def lspci_bridge(bdf, name, kind, prim, sec, sub, cap, sta, port_no=0, slot=None, driver="pcieport"):
    """A PCI bridge as lspci -vv prints it. kind: 'Root Port (Slot+)', 'Upstream Port', 'Downstream Port (Slot+)'.
    cap/sta: ('8GT/s', 16). sta may carry ' (downgraded)' marks computed here."""
    cs, cw = cap
    ss, sw = sta
    sd = " (downgraded)" if ss != cs else " (ok)"
    wd = " (downgraded)" if sw != cw else " (ok)"
    if kind.startswith("Root"):
        sd = wd = ""  # root ports print no (ok)/(downgraded) marks before lspci 3.7 on many distros
    lines = ["%s PCI bridge: %s" % (bdf[5:], name),
             "\tControl: I/O+ Mem+ BusMaster+ SpecCycle- MemWINV- VGASnoop- ParErr- Stepping- SERR- FastB2B- DisINTx+",
             "\tStatus: Cap+ 66MHz- UDF- FastB2B- ParErr- DEVSEL=fast >TAbort- <TAbort- <MAbort- >SERR- <PERR- INTx-",
             "\tLatency: 0, Cache Line Size: 64 bytes", "\tInterrupt: pin A routed to IRQ 35", "\tNUMA node: 0",
             "\tBus: primary=%s, secondary=%s, subordinate=%s, sec-latency=0" % (prim, sec, sub),
             "\tI/O behind bridge: [disabled] [16-bit]",
             "\tMemory behind bridge: e4000000-e6ffffff [size=48M] [32-bit]",
             "\tPrefetchable memory behind bridge: 20000000000-200047fffff [size=72M] [64-bit]",
             "\tSecondary status: 66MHz- FastB2B- ParErr- DEVSEL=fast >TAbort- <TAbort- <MAbort- <SERR- <PERR-",
             "\tBridgeCtl: Parity- SERR+ NoISA- VGA- VGA16- MAbort- >Reset- FastB2B-",
             "\t\tPriDiscTmr- SecDiscTmr- DiscTmrStat- DiscTmrSERREn-",
             "\tCapabilities: [40] Express (v2) %s, MSI 00" % kind,
             "\t\tDevCap:\tMaxPayload 512 bytes, PhantFunc 0", "\t\t\tExtTag+ RBE+",
             "\t\tDevCtl:\tCorrErr- NonFatalErr+ FatalErr+ UnsupReq-",
             "\t\t\tRlxdOrd- ExtTag+ PhantFunc- AuxPwr- NoSnoop-",
             "\t\t\tMaxPayload 256 bytes, MaxReadReq 128 bytes",
             "\t\tDevSta:\tCorrErr- NonFatalErr- FatalErr- UnsupReq- AuxPwr- TransPend-",
             "\t\tLnkCap:\tPort #%d, Speed %s, Width x%d, ASPM L1, Exit Latency L1 <16us" % (port_no, cs, cw),
             "\t\t\tClockPM- Surprise- LLActRep+ BwNot+ ASPMOptComp+",
             "\t\tLnkCtl:\tASPM Disabled; RCB 64 bytes, Disabled- CommClk+",
             "\t\t\tExtSynch- ClockPM- AutWidDis- BWInt- AutBWInt-",
             "\t\tLnkSta:\tSpeed %s%s, Width x%d%s" % (ss, sd, sw, wd),
             "\t\t\tTrErr- Train- SlotClk+ DLActive+ BWMgmt- ABWMgmt-"]
    if slot is not None:
        lines += ["\t\tSltCap:\tAttnBtn- PwrCtrl- MRL- AttnInd- PwrInd- HotPlug- Surprise-",
                  "\t\t\tSlot #%d, PowerLimit 75W; Interlock- NoCompl-" % slot]
    lines += ["\t\tLnkCtl2: Target Link Speed: %s, EnterCompliance- SpeedDis-" % cs,
              "\tCapabilities: [100 v1] Advanced Error Reporting",
              "\t\tUESta:\tDLP- SDES- TLP- FCP- CmpltTO- CmpltAbrt- UnxCmplt- RxOF- MalfTLP- ECRC- UnsupReq- ACSViol-",
              "\t\tCESta:\tRxErr- BadTLP- BadDLLP- Rollover- Timeout- AdvNonFatalErr-",
              "\tKernel driver in use: %s" % driver, ""]
    return "\n".join(lines) + "\n"


NICS = {
    "cx6dx": ("Ethernet controller: Mellanox Technologies MT2892 Family [ConnectX-6 Dx]", "Mellanox Technologies MT28841", "ConnectX-6 Dx Adapter", "mlx5_core"),
    "cx7": ("Ethernet controller: Mellanox Technologies MT2910 Family [ConnectX-7]", "Mellanox Technologies Device 0021", "NVIDIA ConnectX-7 Ethernet adapter card, 400GbE", "mlx5_core"),
    "bcm57508": ("Ethernet controller: Broadcom Inc. and subsidiaries BCM57508 NetXtreme-E 10Gb/25Gb/40Gb/50Gb/100Gb/200Gb Ethernet (rev 11)", "Broadcom Inc. and subsidiaries NetXtreme-E P2100G 2x100G PCIe NIC", "Broadcom P2100G 2x100G PCIe NIC", "bnxt_en"),
    "e810": ("Ethernet controller: Intel Corporation Ethernet Controller E810-C for QSFP (rev 02)", "Intel Corporation Ethernet Network Adapter E810-C-Q2", "Intel(R) Ethernet Network Adapter E810-C-Q2", "ice"),
}


def lspci_nic(bdf, nic, cap, sta):
    title, subsys, product, drv = NICS[nic]
    cs, cw = cap
    ss, sw = sta
    sd = " (downgraded)" if ss != cs else " (ok)"
    wd = " (downgraded)" if sw != cw else " (ok)"
    lines = ["%s %s" % (bdf[5:], title), "\tSubsystem: %s" % subsys,
             "\tControl: I/O- Mem+ BusMaster+ SpecCycle- MemWINV- VGASnoop- ParErr- Stepping- SERR- FastB2B- DisINTx+",
             "\tStatus: Cap+ 66MHz- UDF- FastB2B- ParErr- DEVSEL=fast >TAbort- <TAbort- <MAbort- >SERR- <PERR- INTx-",
             "\tLatency: 0, Cache Line Size: 64 bytes", "\tInterrupt: pin A routed to IRQ 66", "\tNUMA node: 0",
             "\tRegion 0: Memory at 20000000000 (64-bit, prefetchable) [size=32M]",
             "\tCapabilities: [60] Express (v2) Endpoint, MSI 00",
             "\t\tDevCap:\tMaxPayload 512 bytes, PhantFunc 0, Latency L0s unlimited, L1 unlimited",
             "\t\t\tExtTag+ AttnBtn- AttnInd- PwrInd- RBE+ FLReset+ SlotPowerLimit 75.000W",
             "\t\tDevCtl:\tCorrErr- NonFatalErr+ FatalErr+ UnsupReq+",
             "\t\t\tRlxdOrd+ ExtTag+ PhantFunc- AuxPwr- NoSnoop+ FLReset-",
             "\t\t\tMaxPayload 256 bytes, MaxReadReq 4096 bytes",
             "\t\tDevSta:\tCorrErr- NonFatalErr- FatalErr- UnsupReq- AuxPwr- TransPend-",
             "\t\tLnkCap:\tPort #0, Speed %s, Width x%d, ASPM not supported" % (cs, cw),
             "\t\t\tClockPM- Surprise- LLActRep- BwNot- ASPMOptComp+",
             "\t\tLnkCtl:\tASPM Disabled; RCB 64 bytes, Disabled- CommClk+",
             "\t\t\tExtSynch- ClockPM- AutWidDis- BWInt- AutBWInt-",
             "\t\tLnkSta:\tSpeed %s%s, Width x%d%s" % (ss, sd, sw, wd),
             "\t\t\tTrErr- Train- SlotClk+ DLActive- BWMgmt- ABWMgmt-",
             "\t\tLnkCtl2: Target Link Speed: %s, EnterCompliance- SpeedDis-" % cs,
             "\tCapabilities: [48] Vital Product Data", "\t\tProduct Name: %s" % product, "\t\tEnd",
             "\tCapabilities: [9c] MSI-X: Enable+ Count=64 Masked-",
             "\tCapabilities: [100 v1] Advanced Error Reporting",
             "\t\tUESta:\tDLP- SDES- TLP- FCP- CmpltTO- CmpltAbrt- UnxCmplt- RxOF- MalfTLP- ECRC- UnsupReq- ACSViol-",
             "\t\tCESta:\tRxErr- BadTLP- BadDLLP- Rollover- Timeout- AdvNonFatalErr-",
             "\tKernel driver in use: %s" % drv, "\tKernel modules: %s" % drv, ""]
    return "\n".join(lines) + "\n"


# ---------------------------------------------------------------- writing cases
def write_case(cid, cls, exit_code, regex, neg, source, captures, args=None):
    """captures: {dirname: {filename: text}}; text None skips the file."""
    d = os.path.join(HERE, cid)
    if os.path.isdir(d):
        shutil.rmtree(d)
    os.makedirs(d)
    for cap, files in captures.items():
        os.makedirs(os.path.join(d, cap))
        for fn, text in files.items():
            if text is None:
                continue
            with open(os.path.join(d, cap, fn), "w", newline="") as f:
                f.write(text)
    with open(os.path.join(d, "SOURCE"), "w") as f:
        f.write(source.strip() + "\n")
    if args:
        with open(os.path.join(d, "ARGS"), "w") as f:
            f.write(args + "\n")
    CASES.append((cid, cls, exit_code, regex, neg))


def crlf(text):
    return text.replace("\n", "\r\n")


def expand_tabs(text):
    return "\n".join(l.expandtabs(8) for l in text.split("\n"))


def grep(text, pattern):
    return "".join(l + "\n" for l in text.splitlines() if re.search(pattern, l))


TS0 = 1767225600  # 2026-01-01T00:00:00Z


def mlx5_host(tag, n=1, mtu=9000, speed=100, states=None, ips=None, names=None, bus=0x3b, dev_names=None):
    ports = []
    for i in range(n):
        mac = "0c:42:a1:%02x:%02x:%02x" % (tag, 0x52 + i // 256, (0x2a + i) % 256)
        netdev = (names or ["ens1f%dnp%d" % (j, j) for j in range(n)])[i]
        dev = (dev_names or ["mlx5_%d" % j for j in range(n)])[i]
        ip = (ips or ["10.10.%d.%d" % (i + 1, tag) for _ in range(n)])[i]
        st = (states or ["up"] * n)[i]
        ports.append(Port(dev, netdev, mac, "0000:%02x:00.%d" % (bus, i), ip=ip, mtu=mtu, speed=speed, state=st))
    return ports


def mlx5_capture(ports, t, eth=None, hwc=None, gbps=80.0, pfc_prios=(3,), global_pause=False,
                 ts=True, hostname=None, qos=True, devinfo_v=True, ip_link=True, mgmt=False,
                 eth_name=None, hwc_name=None, per_port=None, lspci=None, extra=None):
    """One capture dir of an mlx5 host: per port ethtool -S and hw_counters listing, plus
    ibv_devinfo, ip -d link, mlnx_qos; eth/hwc are functions t -> overrides (or dicts)."""
    files = {}
    for i, p in enumerate(ports):
        up = p.state == "up"
        g = gbps if up else 0.0
        e = mlx5_defaults(t, g) if up else {n: 0 for n, _ in MLX5_ETHTOOL}  # never cabled: no traffic
        h = mlx5_hwc_defaults(t, g) if up else {"lifespan": 10}
        pe = (per_port or {}).get(i, {})
        for src, dst in ((eth, e), (pe.get("eth"), e)):
            if src:
                dst.update(src(t) if callable(src) else src)
        for src, dst in ((hwc, h), (pe.get("hwc"), h)):
            if src:
                dst.update(src(t) if callable(src) else src)
        if i > 0 and not pe:
            pass
        files[(eth_name or "ethtool-S-%s.txt") % p.netdev if "%s" in (eth_name or "%s") else eth_name] = \
            mlx5_ethtool(e, pfc_prios=pfc_prios, global_pause=global_pause)
        files[(hwc_name or "hw_counters-%s.txt") % p.dev if "%s" in (hwc_name or "%s") else hwc_name] = \
            hwc_listing(p.dev, h, MLX5_HWC)
        if qos and up:
            files["mlnx_qos-%s.txt" % p.netdev] = mlnx_qos(pfc_prios if not global_pause else (), "dscp")
    files["ibv_devinfo%s.txt" % ("-v" if devinfo_v else "")] = devinfo(ports, verbose=devinfo_v)
    if ip_link:
        files["ip-d-link.txt"] = ip_d_link(ports, mgmt=mgmt)
    if ts:
        files["timestamp"] = "%d\n" % (TS0 + t)
    if hostname:
        files["hostname"] = hostname + "\n"
    if lspci:
        files["lspci-vv.txt"] = lspci
    files.update(extra or {})
    return files


def series(fn, times, names=None):
    return {(names[i] if names else "t%d" % i): fn(t) for i, t in enumerate(times)}


def lin(base, per_s):
    return lambda t: {k: int(base.get(k, 0) + per_s.get(k, 0) * t) for k in set(base) | set(per_s)}


# ================================================================= class 1: one host across captures
def class1():
    ports = mlx5_host(0x3e)
    rnr = lin({"rnr_nak_retry_err": 41, "out_of_buffer": 0, "req_rnr_retries_exceeded": 2},
              {"rnr_nak_retry_err": 221.0, "req_rnr_retries_exceeded": 0.3})
    write_case("c1-readme-example-rnr", 1, 1, r"\brnr\b", None, """
Built from the RNR class of public reports (SPDK NVMe-oF/RDMA initiator: SENDs complete with
IBV_WC_RNR_RETRY_EXC_ERR while the target re-posts receives late; spdk/spdk issues about
'RNR retry counter exceeded') and from the README's own example:
`rocehealth diagnose --bundle capture-1000 --bundle capture-1010 --interval 10`.
Two captures of one ConnectX-6 Dx host 10 s apart, directory names capture-1000/capture-1010,
no hostname and no timestamp files (ARGS gives --interval 10). Identity agrees (node GUID,
MAC inside the GIDs, netdev MAC, parentdev 0000:3b:00.0). hw_counters rnr_nak_retry_err +2210,
req_rnr_retries_exceeded +3 in 10 s: rnr.""",
               {"capture-1000": mlx5_capture(ports, 0, hwc=rnr, ts=False),
                "capture-1010": mlx5_capture(ports, 10, hwc=rnr, ts=False)}, args="--interval 10")

    bports = [Port("bnxt_re0", "ens2f0np0", "00:0a:f7:b2:51:40", "0000:41:00.0", ip="10.50.2.14", driver="bnxt")]
    retr = lin({"to_retransmits": 1200, "seq_err_naks_rcvd": 3100, "dup_req": 800},
               {"to_retransmits": 21.0, "seq_err_naks_rcvd": 64.0, "dup_req": 9.0})
    caps = {}
    for i, t in enumerate((0, 10)):
        h = bnxt_hwc_defaults(t)
        h.update(retr(t))
        caps["t%d" % i] = {"ethtool-S-ens2f0np0.txt": bnxt_ethtool(bnxt_defaults(t)),
                           "ethtool-i-ens2f0np0.txt": ethtool_i(bports[0]),
                           "hw_counters.txt": hwc_listing("bnxt_re0", h, BNXT_HWC),
                           "ibv_devinfo.txt": devinfo(bports), "ip-d-link.txt": ip_d_link(bports),
                           "timestamp": "%d\n" % (TS0 + t)}
    write_case("c1-bnxt-retransmits-no-hostname", 1, 1, r"retrans|timeout|sequence", None, """
Built from NCCL/UCX reports of 'transport retry counter exceeded' on Broadcom BCM57508 hosts
(bnxt_re counters to_retransmits / seq_err_naks_rcvd from drivers/infiniband/hw/bnxt_re/hw_counters.c).
Two captures 10 s apart with timestamps but no hostname file: one host by node GUID, MAC and
PCI address. to_retransmits +210, seq_err_naks_rcvd +640, dup_req +90 in 10 s.""", caps)

    a = mlx5_host(0x10)
    b = mlx5_host(0x11, ips=["10.10.1.17"])
    ha = lambda t: {"local_ack_timeout_err": 12, "rnr_nak_retry_err": 3, "out_of_sequence": 40}
    hb = lambda t: {"local_ack_timeout_err": 61, "rnr_nak_retry_err": 38, "out_of_sequence": 912,
                    "packet_seq_err": 377}
    write_case("c1-two-hosts-no-hostname", 1, 2, r"could not judge", r"\[(warning|error)\]", """
Two operators' single captures pasted into one ticket (a pair of NCCL ranks, nccl issue threads
where both ends' counters are attached), directory names capture-a and capture-b, no hostname
file. The node GUIDs, MACs and GIDs differ: two hosts, one capture each. Taken as one host's
timeline the counters would seem to grow (ACK timeouts 12 -> 61, out_of_sequence 40 -> 912 in
'10 s') and make false findings. Lifetime values are small (tens): no lifetime finding.
Each host has one capture, so rates cannot be judged: exit 2.""",
               {"capture-a": mlx5_capture(a, 0, hwc=ha, ts=False),
                "capture-b": mlx5_capture(b, 10, hwc=hb, ts=False)}, args="--interval 10")

    iports = [Port("irdma1", "ens5f0", "b4:96:91:d2:11:40", "0000:b1:00.0", ip="10.60.5.33", driver="irdma")]
    storm = lin({"tx_priority_3_xoff.nic": 30220, "tx_priority_3_xon.nic": 30219},
                {"tx_priority_3_xoff.nic": 2150.0, "tx_priority_3_xon.nic": 2150.0})
    caps = {}
    for i, t in enumerate((0, 10, 20)):
        e = ice_defaults(t, gbps=12.0)
        e.update(storm(t))
        caps["t%d" % i] = {"ethtool-S-ens5f0.txt": ice_ethtool(e), "ethtool-i-ens5f0.txt": ethtool_i(iports[0]),
                           "hw_counters-irdma1.txt": hwc_listing("irdma1", irdma_hwc_defaults(t, 12.0), IRDMA_HWC),
                           "ibv_devinfo-v.txt": devinfo(iports), "ip-d-link-ens5f0.txt": ip_d_link(iports)}
    write_case("c1-ice-pfc-storm-interval", 1, 1, r"pause", None, """
Built from PFC-storm reports on Intel E810 (ice + irdma) RoCEv2 hosts (a receiver that cannot
drain keeps sending XOFF on the lossless priority). Three captures, no timestamp and no hostname
files; ARGS gives --interval 10. ice names tx_priority_3_xoff.nic / tx_priority_3_xon.nic
(ice_ethtool.c): +21,500 XOFF in each 10 s at 100 Gb/s; ice has no pause duration, so the
share is bounded by frames x 65535 quanta x 512 bit times / 100 Gb/s = 335 us each: up to
72 % of the time; the RoCE goodput fell to ~12 Gb/s.""", caps, args="--interval 10")

    hp = mlx5_host(0x20)
    write_case("c1-healthy-two-captures-no-hostname", 1, 0, None, r"\[(warning|error)\]", """
Healthy control (mlx5, ConnectX-6 Dx 100 GbE): two captures 10 s apart with timestamps and no
hostname; ~80 Gb/s of RoCE on PFC priority 3, ECN marks answered by CNPs, no errors moving.
Taken as two hosts it would say 'could not judge rates'; as one host it is healthy: exit 0.""",
               {"t0": mlx5_capture(hp, 0), "t1": mlx5_capture(hp, 10)})

    hp = mlx5_host(0x21)
    retr2 = lin({"local_ack_timeout_err": 310, "out_of_sequence": 2200, "packet_seq_err": 1900,
                 "roce_adp_retrans": 150},
                {"local_ack_timeout_err": 7.3, "out_of_sequence": 488.0, "packet_seq_err": 470.0,
                 "roce_adp_retrans": 51.0})
    write_case("c1-hostname-in-first-only", 1, 1, r"retrans|timeout|sequence", None, """
Built from public 'NCCL WARN NET/IB : Got completion with error 12, opcode 0, len 0, vendor err 129'
reports (nccl issues about retransmits after switch reconfiguration). Two captures 10 s apart;
only the first holds a hostname file (the operator ran `hostname > hostname` once). The node GUID,
MAC and PCI address agree, so both are one host: out_of_sequence +4880, packet_seq_err +4700,
local_ack_timeout_err +73, roce_adp_retrans +510 in 10 s.""",
               {"t0": mlx5_capture(hp, 0, hwc=retr2, hostname="gpu-b07"), "t1": mlx5_capture(hp, 10, hwc=retr2)})


# ================================================================= class 2: no findings means judged
def class2():
    hp = mlx5_host(0x30)
    write_case("c2-single-capture-healthy", 2, 2, r"could not judge", None, """
Healthy single capture (mlx5): one ethtool -S, one hw_counters listing, ibv_devinfo -v, ip -d link,
as often pasted into a first ticket. Lifetime counters are unremarkable (ECN marks and CNPs
consistent, a few ACK timeouts in total). With one capture no rate rule can be judged: the
headline must say so ('could not judge rates: ...') and exit 2, as `check` does.""",
               {"t0": mlx5_capture(hp, 0)})

    hp = mlx5_host(0x31)
    cnp = lin({"np_cnp_sent": 500, "np_ecn_marked_roce_packets": 0}, {"np_cnp_sent": 83.3})
    write_case("c2-cnp-without-ecn-10s", 2, 1, r"ecn|cnp", None, """
From the issue: 'CNP-without-ECN fires with captures 30 s apart but silently not with captures
10 s apart'. mlx5 hw_counters: np_cnp_sent 500 -> 1333 while np_ecn_marked_roce_packets stays 0
(a notification point sends CNPs it never counted as CE-marked; the SONiC S5248F-ON ECN thread,
sonic-buildimage #21891, shows the counters in this shape). 10 s span: the rate rule's 30 s
window is longer, but the lifetime evidence alone is a finding (exit 1).""",
               {"t0": mlx5_capture(hp, 0, hwc=cnp), "t1": mlx5_capture(hp, 10, hwc=cnp)})

    hp = mlx5_host(0x32)
    write_case("c2-span-shorter-than-hold", 2, 2, r"could not judge", None, """
Two healthy mlx5 captures only 2 s apart (an operator ran the capture script twice in a row).
The span is shorter than the rules' windows and holds (pause_storm holds 5 s, ecn rules 30 s):
the run must name the rules it could not judge and exit 2, not print 'no findings'.""",
               {"t0": mlx5_capture(hp, 0), "t1": mlx5_capture(hp, 2)})


# ================================================================= class 3: lifetime evidence
def class3():
    hp = mlx5_host(0x40)
    write_case("c3-lifetime-cnp-no-ecn-mlx5", 3, 1, r"since the counters were last reset[^\n]*(ecn|cnp)|(ecn|cnp)[^\n]*since the counters were last reset", None, """
Issue example: one hw_counters listing (grep . /sys/class/infiniband/mlx5_0/ports/1/hw_counters/*)
with np_cnp_sent 1333 and np_ecn_marked_roce_packets 0 (shape as in sonic-buildimage #21891).
CNPs sent without a single CE-marked packet counted cannot happen on a working ECN path: a
lifetime finding ('since the counters were last reset'), lower confidence than a rate finding.""",
               {"t0": {"hw_counters.txt": hwc_listing("mlx5_0", dict(mlx5_hwc_defaults(0),
                        np_cnp_sent=1333, np_ecn_marked_roce_packets=0, rp_cnp_handled=0), MLX5_HWC)}})

    hp = mlx5_host(0x41)
    write_case("c3-lifetime-ack-timeouts-mlx5", 3, 1, r"since the counters were last reset[^\n]*(retrans|timeout|retr)|(retrans|timeout|retr)[^\n]*since the counters were last reset", None, """
Built from UCX/NCCL 'Transport retry count exceeded' threads (openucx/ucx #9590-like) where the
reporter pasted one `ethtool -S` and one hw_counters listing. A host up 9 days (uptime file) that
moved ~1.9e15 bytes (4.5e11 RoCE packets, ~20 Gb/s on average): lifetime local_ack_timeout_err
1,210,400 and packet_seq_err 390,120 (3.5 losses per million packets) and
req_transport_retries_exceeded 23,110 (5 per 100 million): retry exhaustions by the thousand since
the counters were last reset, where a lossless fabric shows none.""",
               {"t0": dict(mlx5_capture(hp, 0, hwc={"local_ack_timeout_err": 1210400, "req_transport_retries_exceeded": 23110,
                                                    "roce_adp_retrans": 91200, "out_of_sequence": 441200, "packet_seq_err": 390120},
                                        ts=True, extra={"uptime.txt": " 10:02:11 up 9 days,  3:41,  2 users,  load average: 3.10, 3.02, 2.95\n"}),
                           **{"ethtool-S-ens1f0np0.txt": mlx5_ethtool(mlx5_defaults(0, base_b=9 * 86400 * 2.5e9))})})

    hp = mlx5_host(0x42)
    write_case("c3-lifetime-rnr-mlx5", 3, 1, r"since the counters were last reset[^\n]*(\brnr\b)|(\brnr\b)[^\n]*since the counters were last reset", None, """
SPDK NVMe-oF/RDMA initiator reports (IBV_WC_RNR_RETRY_EXC_ERR, 'RNR retry counter exceeded')
with one hw_counters paste and its ethtool -S: 20 days at ~10 Gb/s (~5.2e11 RoCE packets sent);
rnr_nak_retry_err 8,841,000 (17 per million packets) and req_rnr_retries_exceeded 31,170
(6 per 100 million) since the counters were last reset; everything else small.""",
               {"t0": {"hw_counters-mlx5_0.txt": hwc_listing("mlx5_0", dict(mlx5_hwc_defaults(0),
                        rnr_nak_retry_err=8841000, req_rnr_retries_exceeded=31170), MLX5_HWC),
                       "ethtool-S-ens1f0np0.txt": mlx5_ethtool(mlx5_defaults(0, base_b=20 * 86400 * 1.25e9)),
                       "ibv_devinfo-v.txt": devinfo(hp)}})
    write_case("c3-lifetime-rnr-hwc-only", 3, 1, r"since the counters were last reset[^\n]*(\brnr\b)|(\brnr\b)[^\n]*since the counters were last reset", None, """
The same report with only the hw_counters listing pasted (no ethtool -S, so no RoCE packet count to
weigh against): rnr_nak_retry_err 8,841,000 and req_rnr_retries_exceeded 31,170 since the counters
were last reset. Each RNR retry exceeded is a work request that failed with
IBV_WC_RNR_RETRY_EXC_ERR (the QP went to error): tens of thousands of them are a fault whatever the
traffic was; the issue names 'rnr_nak_retry_err ... in the thousands' from one listing as evidence.""",
               {"t0": {"hw_counters-mlx5_0.txt": hwc_listing("mlx5_0", dict(mlx5_hwc_defaults(0),
                        rnr_nak_retry_err=8841000, req_rnr_retries_exceeded=31170), MLX5_HWC)}})

    hp = mlx5_host(0x43)
    up_s = 3 * 86400 + 4 * 3600
    write_case("c3-lifetime-pause-share-of-uptime", 3, 1, r"since the counters were last reset[^\n]*(pause)|(pause)[^\n]*since the counters were last reset", None, """
Built from NCCL issue #173-like reports (hosts transmitting pause after an upgrade). One
`ethtool -S` with `cat /proc/uptime` beside it: up 273,600 s; tx_prio3_pause_duration
82,080,000,000 us = 82,080 s = 30 % of uptime spent sending PFC pause (mlx5 *_pause_duration is
in microseconds, en_stats.c pport_per_prio_pfc_stats_desc). A lifetime finding with a lower
confidence than a rate finding.""",
               {"t0": {"ethtool-S-ens1f0np0.txt": mlx5_ethtool(dict(mlx5_defaults(0, base_b=up_s * 3.75e9), tx_prio3_pause=246000000,
                                                                      tx_prio3_pause_duration=82080000000,
                                                                      rx_prio3_pause=1200, rx_prio3_pause_duration=90000)),
                       "proc-uptime.txt": "%d.42 %d.17\n" % (up_s, up_s * 60),
                       "ip-d-link.txt": ip_d_link(hp), "ibv_devinfo-v.txt": devinfo(hp)}})

    hp = mlx5_host(0x44)
    up_s = 400 * 86400
    write_case("c3-lifetime-400d-healthy-single", 3, 2, r"could not judge", r"\[(warning|error)\]", """
Healthy control (mirrors shared h3-healthy-uptime-400d as one capture): 400 days of uptime
(/proc/uptime 34,560,000 s), rx_prio3_pause 1.9e9 frames with rx_prio3_pause_duration 2.1e9 us
(2,100 s = 0.006 % of uptime), 41 ACK timeouts, ECN marks and CNPs consistent. No ratio the data
supports is a fault; one capture cannot judge rates: exit 2 'could not judge rates'.""",
               {"t0": {"ethtool-S-ens1f0np0.txt": mlx5_ethtool(dict(mlx5_defaults(0), rx_prio3_pause=1900000000,
                                                                      rx_prio3_pause_duration=2100000000,
                                                                      tx_prio3_pause=310000, tx_prio3_pause_duration=280000,
                                                                      rx_discards_phy=48211, link_down_events_phy=3)),
                       "hw_counters.txt": hwc_listing("mlx5_0", dict(mlx5_hwc_defaults(0), local_ack_timeout_err=41), MLX5_HWC),
                       "proc-uptime.txt": "%d.08 %d.55\n" % (up_s, up_s * 60),
                       "ibv_devinfo-v.txt": devinfo(hp), "ip-d-link.txt": ip_d_link(hp)}})

    ip = [Port("irdma0", "ens5f0np0", "b4:96:91:d2:22:50", "0000:b1:00.0", ip="10.60.6.40", driver="irdma")]
    write_case("c3-lifetime-cnp-no-ecn-irdma", 3, 1, r"since the counters were last reset[^\n]*(ecn|cnp)|(ecn|cnp)[^\n]*since the counters were last reset", None, """
Intel E810 / irdma variant of the CNP-without-ECN lifetime case: one hw_counters listing of
irdma0 with cnpSent 1,333 and RxECNMrkd 0 (irdma gen2 counter names, drivers/infiniband/hw/irdma
verbs.c / hw.c), plus ethtool -i and ibv_devinfo -v.""",
               {"t0": {"hw_counters-irdma0.txt": hwc_listing("irdma0", dict(irdma_hwc_defaults(0), cnpSent=1333,
                                                                                RxECNMrkd=0, cnpHandled=0), IRDMA_HWC),
                       "ethtool-i.txt": ethtool_i(ip[0]), "ibv_devinfo-v.txt": devinfo(ip)}})

    bp = [Port("bnxt_re0", "ens2f0np0", "00:0a:f7:b2:61:70", "0000:41:00.0", ip="10.50.3.21", driver="bnxt")]
    write_case("c3-lifetime-bnxt-healthy-single", 3, 2, r"could not judge", r"\[(warning|error)\]", """
Healthy control (Broadcom BCM57508): one capture of a busy host; lifetime to_retransmits 14 and
seq_err_naks_rcvd 37 over months of traffic (3e16 bytes), PFC frames on priority 3 in the
thousands with pfc_pri3_rx_duration_us 9.1 s in total. Nothing a single capture can call a
fault; rates cannot be judged: exit 2.""",
               {"t0": {"ethtool-S-ens2f0np0.txt": bnxt_ethtool(dict(bnxt_defaults(0), rx_pfc_frames=118004,
                                                                      rx_pfc_ena_frames_pri3=118004, pfc_pri3_rx_duration_us=9118221,
                                                                      pfc_pri3_rx_transitions=59002)),
                       "ethtool-i-ens2f0np0.txt": ethtool_i(bp[0]),
                       "hw_counters.txt": hwc_listing("bnxt_re0", dict(bnxt_hwc_defaults(0), to_retransmits=14,
                                                                       seq_err_naks_rcvd=37), BNXT_HWC),
                       "ibv_devinfo.txt": devinfo(bp), "ip-d-link.txt": ip_d_link(bp)}})


# ================================================================= class 4: mapping by content
def class4():
    hp = mlx5_host(0x50)
    storm = lin({"tx_prio3_pause": 88213, "tx_prio3_pause_duration": 9902114},
                {"tx_prio3_pause": 21000.0, "tx_prio3_pause_duration": 702000.0})
    caps = {}
    for i, t in enumerate((0, 10)):
        f = mlx5_capture(hp, t, eth=storm, mgmt=True, eth_name="ethtool-S.txt")
        f["ethtool-i.txt"] = ethtool_i(hp[0])
        caps["t%d" % i] = f
    write_case("c4-mgmt-nic-pfc-storm", 4, 1, r"pause", None, """
Issue class 4: a management NIC (eno1, igb, 0000:02:00.0) beside the RoCE port in `ip -d link`.
The ethtool -S file is named ethtool-S.txt (no interface in the name); ethtool -i says
bus-info 0000:3b:00.0, ip -d link says ens1f0np0 has parentdev 0000:3b:00.0, and the MAC
inside the link-local GID is ens1f0np0's. The host transmits PFC pause on priority 3 for 70 % of
10 s (tx_prio3_pause_duration +7,020,000 us): built from NCCL issue #173-like reports.""", caps)

    hp = mlx5_host(0x51, mtu=1500)
    write_case("c4-mgmt-nic-roce-mtu-1500", 4, 1, r"mtu", None, """
RoCE netdev ens1f0np0 left at MTU 1500 (active_mtu 1024) beside a management eno1 (MTU 1500)
in `ip -d link`; single capture of ibv_devinfo -v and ip -d link (NVIDIA forum threads 'RoCE
active_mtu 1024 instead of 4096'). With eno1 present the RoCE port's netdev must still be found
(parentdev, MAC in the GID) and the MTU check run: roce_mtu.""",
               {"t0": {"ibv_devinfo-v.txt": devinfo(hp), "ip-d-link.txt": ip_d_link(hp, mgmt=True)}})

    hp = mlx5_host(0x52, n=2, names=["ens2f0np0", "ens2f1np1"], dev_names=["roceP2p1s0f0", "roceP2p1s0f1"], bus=0x02)
    hp[1].ip = "10.10.2.82"
    storm = lambda t: {"tx_prio3_pause": int(9000 + 24000 * t), "tx_prio3_pause_duration": int(700000 + 812000 * t)}
    caps = {}
    for i, t in enumerate((0, 10)):
        f = mlx5_capture(hp, t, per_port={1: {"eth": storm}})
        for p in hp:
            f["ethtool-i-%s.txt" % p.netdev] = ethtool_i(p)
        caps["t%d" % i] = f
    write_case("c4-udev-names-second-port", 4, 1, r"roceP2p1s0f1\s+port\s+1[^\n]*paus", r"roceP2p1s0f0\s+port\s+1[^\n]*paus|\{[^}\n]*ens2f0np0[^}\n]*\}", """
udev's persistent RDMA names (rdma-core kernel-boot/rdma-persistent-naming: roceP<domain>p<bus>s<slot>f<fn>),
roceP2p1s0f0 / roceP2p1s0f1 on a dual-port ConnectX-6 Dx at 0000:02:00.0/.1. Only the second
port (ens2f1np1, roceP2p1s0f1) transmits PFC pause 81 % of 10 s. Pairing devices with PCI
functions by name order is wrong here by construction only if the code guesses; the GIDs' MACs,
ethtool -i bus-info and parentdev all say roceP2p1s0f1 <-> ens2f1np1. The finding must be on that
port, not on roceP2p1s0f0 / ens2f0np0.""", caps)

    hp = mlx5_host(0x54, n=2)
    storm = lambda t: {"rx_prio3_pause": int(5000 + 30000 * t), "rx_prio3_pause_duration": int(400000 + 640000 * t)}
    caps = {}
    for i, t in enumerate((0, 10)):
        f = mlx5_capture(hp, t, per_port={1: {"eth": storm}})
        for p in hp:  # the operator named the files after the altnames (enp59s0f0np0, enp59s0f1np1)
            f["ethtool-S-%s.txt" % p.altname] = f.pop("ethtool-S-%s.txt" % p.netdev)
        caps["t%d" % i] = f
    write_case("c4-altname-file-names", 4, 1, r"mlx5_1\s+port\s+1[^\n]*paus", r"mlx5_0\s+port\s+1[^\n]*paus", """
Dual-port ConnectX-6 Dx; the operator saved the ethtool -S files under the interfaces' altnames
(`ip -d link` 'altname enp59s0f0np0' / 'altname enp59s0f1np1'), as udev's predictable names appear
in many scripts. Port 2 (ens1f1np1, mlx5_1) is paused 64 % of 10 s by its switch (rx_prio3_pause_duration
+6,400,000 us); port 1 is healthy. The counters must go to the right port by altname.""", caps)

    hp = mlx5_host(0x53)
    caps = {}
    for i, t in enumerate((0, 10)):
        f = mlx5_capture(hp, t, mgmt=True)
        f["ethtool-i-ens1f0np0.txt"] = ethtool_i(hp[0])
        caps["t%d" % i] = f
    write_case("c4-healthy-mgmt-nic", 4, 0, None, r"\[(warning|error)\]", """
Healthy control: management eno1 plus a healthy ConnectX-6 Dx RoCE port, two captures 10 s apart;
counters must be kept (not dropped) and nothing is wrong: exit 0.""", caps)


# ================================================================= class 5: link-level (global) pause
def class5():
    hp = mlx5_host(0x60)
    gp = lin({"rx_global_pause": 1200312, "rx_global_pause_duration": 401223004, "rx_pause_ctrl_phy": 1200312,
              "tx_global_pause": 2011, "tx_global_pause_duration": 61000, "tx_pause_ctrl_phy": 2011,
              "rx_global_pause_transition": 600100},
             {"rx_global_pause": 12800.0, "rx_global_pause_duration": 430000.0, "rx_pause_ctrl_phy": 12800.0,
              "rx_global_pause_transition": 6400.0})
    write_case("c5-mlx5-global-pause-43pct", 5, 1, r"(link.level|global|802\.3x)[^\n]*pause", None, """
Built from NVIDIA/daqiri #250 ('802.3x pause - 21.7% of 400 GbE line rate, with every drop
counter sitting at zero') and SONiC global-pause test plans: an mlx5 port with link-level
(802.3x) pause on and PFC off. Two captures 10 s apart: rx_global_pause_duration +4,300,000 us
(43 % of the time paused by the peer), rx_global_pause / rx_pause_ctrl_phy +128,000 frames
(en_stats.c: 'rx_%s_pause' with %s = global; pport 802.3 group rx_pause_ctrl_phy).""",
               {"t0": mlx5_capture(hp, 0, eth=gp, global_pause=True, pfc_prios=(), gbps=55.0),
                "t1": mlx5_capture(hp, 10, eth=gp, global_pause=True, pfc_prios=(), gbps=55.0)})

    bp = [Port("bnxt_re0", "ens2f0np0", "00:0a:f7:b2:71:80", "0000:41:00.0", ip="10.50.4.9", driver="bnxt")]
    pause = lin({"tx_pause_frames": 310221, "rx_pause_frames": 12}, {"tx_pause_frames": 1290.0})
    caps = {}
    for i, t in enumerate((0, 10)):
        e = bnxt_defaults(t, gbps=48.0)
        e.update(pause(t))
        caps["t%d" % i] = {"ethtool-S-ens2f0np0.txt": bnxt_ethtool(e), "ethtool-i-ens2f0np0.txt": ethtool_i(bp[0]),
                           "hw_counters.txt": hwc_listing("bnxt_re0", bnxt_hwc_defaults(t, 48.0), BNXT_HWC),
                           "ibv_devinfo.txt": devinfo(bp), "ip-d-link.txt": ip_d_link(bp),
                           "timestamp": "%d\n" % (TS0 + t)}
    write_case("c5-bnxt-global-pause-tx", 5, 1, r"(link.level|global|802\.3x)[^\n]*pause", None, """
Broadcom BCM57508 at 100 Gb/s with 802.3x flow control on (no PFC): tx_pause_frames +12,900
in 10 s (bnxt_ethtool.c port stats tx_pause_frames / rx_pause_frames). bnxt has no link-pause
duration, so the share is bounded from frames: 12,900 x 335 us = 4.3 s = up to 43 % of the time
the host asked its switch port to stop; RoCE goodput ~48 Gb/s.""", caps)

    ip = [Port("irdma1", "ens5f0", "b4:96:91:d2:33:60", "0000:b1:00.0", ip="10.60.7.5", driver="irdma")]
    xoff = lin({"link_xoff_rx.nic": 902113, "link_xon_rx.nic": 901990}, {"link_xoff_rx.nic": 1290.0, "link_xon_rx.nic": 1290.0})
    caps = {}
    for i, t in enumerate((0, 10)):
        e = ice_defaults(t, gbps=50.0)
        e.update(xoff(t))
        caps["t%d" % i] = {"ethtool-S-ens5f0.txt": ice_ethtool(e), "ethtool-i-ens5f0.txt": ethtool_i(ip[0]),
                           "hw_counters-irdma1.txt": hwc_listing("irdma1", irdma_hwc_defaults(t, 50.0), IRDMA_HWC),
                           "ibv_devinfo-v.txt": devinfo(ip), "ip-d-link-ens5f0.txt": ip_d_link(ip),
                           "timestamp": "%d\n" % (TS0 + t)}
    write_case("c5-ice-link-xoff-rx", 5, 1, r"(link.level|global|802\.3x)[^\n]*pause", None, """
Intel E810 (ice) with link flow control: link_xoff_rx.nic +12,900 in 10 s (ice_ethtool.c
ICE_PF_STAT link_xoff_rx.nic), i.e. up to 43 % of the time paused by the switch at 100 Gb/s.""", caps)

    hp = mlx5_host(0x61)
    ethA = lambda n: ("Pause parameters for ens1f0np0:\nAutonegotiate:\toff\nRX:\t\ton\nTX:\t\ton\n"
                      "Statistics:\n  tx_pause_frames: %d\n  rx_pause_frames: %d\n" % (2011, n))
    caps = {}
    for i, t in enumerate((0, 10)):
        f = mlx5_capture(hp, t, gbps=52.0, pfc_prios=(), qos=False,
                         eth=lambda t: {"rx_pause_ctrl_phy": int(1200312 + 1290 * t)})
        f["ethtool-I-a-ens1f0np0.txt"] = ethA(int(1200312 + 1290 * t))
        caps["t%d" % i] = f
    write_case("c5-mlx5-ethtool-a-stats", 5, 1, r"(link.level|global|802\.3x)[^\n]*pause", None, """
The same fault as seen by `ethtool -I -a ens1f0np0` (ethtool netlink PAUSE_GET with stats:
'Statistics: tx_pause_frames / rx_pause_frames', aPAUSEMACCtrlFramesReceived) plus an mlx5
`ethtool -S` without the global pause group (older firmware shows only rx_pause_ctrl_phy):
+12,900 pause frames received in 10 s on 100 GbE: at most 335 us each, up to 43 % of the time.""", caps)

    hp = mlx5_host(0x62)
    light = lin({"rx_global_pause": 52000, "rx_global_pause_duration": 1800000, "rx_pause_ctrl_phy": 52000},
                {"rx_global_pause": 6.0, "rx_global_pause_duration": 2000.0, "rx_pause_ctrl_phy": 6.0})
    write_case("c5-healthy-global-pause-light", 5, 0, None, r"\[(warning|error)\]", """
Healthy control: link-level pause enabled and working as designed; rx_global_pause_duration
+20,000 us in 10 s (0.2 % of the time) during an incast burst; nothing else moves.""",
               {"t0": mlx5_capture(hp, 0, eth=light, global_pause=True, pfc_prios=()),
                "t1": mlx5_capture(hp, 10, eth=light, global_pause=True, pfc_prios=())})


# ================================================================= class 6: PCIe switches and slots
def class6():
    hp = mlx5_host(0x70, speed=400, bus=0x19)
    hp[0].netdev = "ens3np0"
    hp[0].altname = "enp25s0np0"
    lspci = (lspci_bridge("0000:16:02.0", "Intel Corporation Ice Lake Xeon PCIe Root Port (rev 04)", "Root Port (Slot+)", "16", "17", "19",
                          ("16GT/s", 16), ("8GT/s", 16), port_no=5, slot=3)
             + lspci_bridge("0000:17:00.0", "Broadcom / LSI PEX890xx PCIe Gen 5 Switch (rev b0)", "Upstream Port", "17", "18", "19",
                            ("32GT/s", 16), ("8GT/s", 16))
             + lspci_bridge("0000:18:00.0", "Broadcom / LSI PEX890xx PCIe Gen 5 Switch (rev b0)", "Downstream Port (Slot+)", "18", "19", "19",
                            ("32GT/s", 16), ("32GT/s", 16), port_no=1, slot=12)
             + lspci_nic("0000:19:00.0", "cx7", ("32GT/s", 16), ("32GT/s", 16)))
    caps = {"t0": {"lspci-vv.txt": lspci, "ibv_devinfo-v.txt": devinfo(hp, kind="mlx5cx7"), "ip-d-link.txt": ip_d_link(hp)}}
    write_case("c6-switch-gen3-uplink", 6, 1, r"\n  \S[^\n]*(0000:)?17:00\.0", r"reseat the card", """
Built from GPU-server reports of NICs behind PCIe switches (noonghunna/club-3090 threads pasting
`lspci -t` with switch trees; NCCL 'PCIe switch' bandwidth issues): a 400 GbE ConnectX-7 at
0000:19:00.0 trained at 32 GT/s x16 to its switch downstream port, but the switch's uplink
(upstream port 0000:17:00.0 <-> root port 0000:16:02.0) trained at 8 GT/s x16 (~126 Gb/s).
Placed from the `Bus: primary=, secondary=, subordinate=` lines of lspci -vv alone. The finding
must name the uplink, not the card.""", caps)

    lspci = (lspci_bridge("0000:b2:00.0", "Intel Corporation Sky Lake-E PCI Express Root Port A (rev 04)", "Root Port (Slot+)", "b2", "b3", "b3",
                          ("8GT/s", 8), ("8GT/s", 8), port_no=5, slot=4)
             + lspci_nic("0000:b3:00.0", "cx6dx", ("16GT/s", 16), ("8GT/s", 8)))
    write_case("c6-gen3x8-slot-lspci-only", 6, 1, r"slot", r"reseat the card", """
Built from NVIDIA/l2fwd-nv #6 (ConnectX-6 Dx limited to 63 Gb/s by an 8 GT/s x8 link at its root
port). The ticket holds only `lspci -vv`: the root port's LnkCap is Speed 8GT/s, Width x8 (the slot
itself is Gen3 x8, Slot #4), so the NIC's 16GT/s x16 capability cannot be reached: the slot limits
it (move the card to a Gen4 x16 slot), not a bad seat. An lspci-only ticket of an RDMA-capable NIC
is diagnosable (mlx5_core bound).""", {"t0": {"lspci-vv.txt": lspci}})

    lspci = (lspci_bridge("0000:40:01.1", "Advanced Micro Devices, Inc. [AMD] Starship/Matisse GPP Bridge", "Root Port (Slot+)", "40", "41", "41",
                          ("16GT/s", 16), ("16GT/s", 8), port_no=0, slot=2)
             + lspci_nic("0000:41:00.0", "bcm57508", ("16GT/s", 16), ("16GT/s", 8)))
    write_case("c6-lspci-only-bnxt-x8", 6, 1, r"pcie|x8", None, """
Broadcom BCM57508 NetXtreme-E (bnxt_en) 2x100G, lspci -vv only: card and root port both capable of
16GT/s x16, the link trained at x8 (LnkSta Width x8 (downgraded)): ~252 Gb/s -> ~126 Gb/s for
200 Gb/s of ports. A seating / bifurcation problem of that slot (reports on Broadcom forums of
P2100G at x8 after BIOS bifurcation x8x8).""", {"t0": {"lspci-vv.txt": lspci}})

    ip = [Port("irdma1", "ens6f0", "b4:96:91:d2:44:70", "0000:63:00.0", ip="10.60.8.3", driver="irdma")]
    tree = ("-+-[0000:60]-+-00.0\n"
            " |           +-01.0\n"
            " |           +-01.1-[61-63]----00.0-[62-63]----00.0-[63]--+-00.0\n"
            " |           |                                         \\-00.1\n"
            " |           \\-07.1-[64]----00.0\n"
            " \\-[0000:00]-+-00.0\n"
            "             \\-14.0\n")
    lspci = (lspci_bridge("0000:61:00.0", "PLX Technology, Inc. PEX 8747 48-Lane, 5-Port PCI Express Gen 3 (8.0 GT/s) Switch (rev ca)", "Upstream Port", "61", "62", "63",
                          ("8GT/s", 16), ("8GT/s", 4))
             + lspci_bridge("0000:62:00.0", "PLX Technology, Inc. PEX 8747 48-Lane, 5-Port PCI Express Gen 3 (8.0 GT/s) Switch (rev ca)", "Downstream Port (Slot+)", "62", "63", "63",
                            ("8GT/s", 16), ("8GT/s", 16), port_no=8, slot=5)
             + lspci_nic("0000:63:00.0", "e810", ("16GT/s", 16), ("8GT/s", 16)))
    write_case("c6-lspci-t-switch-x4-uplink", 6, 1, r"\n  \S[^\n]*61:00\.0[^\n]*x4", None, """
An E810-C (ice/irdma, 100 GbE) behind a PLX PEX 8747 switch whose upstream port trained at x4
(8 GT/s x4 ~ 31.5 Gb/s); the operator pasted `lspci -t` and `lspci -vv` of the switch ports and
NIC only (no root port). The tree and the Bus: lines place the NIC below the x4 uplink.""",
               {"t0": {"lspci-t.txt": tree, "lspci-vv.txt": lspci, "ibv_devinfo-v.txt": devinfo(ip),
                       "ethtool-i-ens6f0.txt": ethtool_i(ip[0])}})

    hp = mlx5_host(0x71, speed=400, bus=0x19)
    hp[0].netdev = "ens3np0"
    hp[0].altname = "enp25s0np0"
    lspci = (lspci_bridge("0000:16:02.0", "Intel Corporation Sapphire Rapids PCIe Root Port (rev 04)", "Root Port (Slot+)", "16", "17", "19",
                          ("32GT/s", 16), ("32GT/s", 16), port_no=5, slot=3)
             + lspci_bridge("0000:17:00.0", "Broadcom / LSI PEX890xx PCIe Gen 5 Switch (rev b0)", "Upstream Port", "17", "18", "19",
                            ("32GT/s", 16), ("32GT/s", 16))
             + lspci_bridge("0000:18:00.0", "Broadcom / LSI PEX890xx PCIe Gen 5 Switch (rev b0)", "Downstream Port (Slot+)", "18", "19", "19",
                            ("32GT/s", 16), ("32GT/s", 16), port_no=1, slot=12)
             + lspci_nic("0000:19:00.0", "cx7", ("32GT/s", 16), ("32GT/s", 16)))
    write_case("c6-healthy-behind-switch", 6, 0, None, r"\[(warning|error)\]", """
Healthy control: 400 GbE ConnectX-7 behind a Gen5 switch, every link 32 GT/s x16; two captures
10 s apart with ~300 Gb/s of RoCE and nothing moving but traffic.""",
               {"t0": mlx5_capture(hp, 0, gbps=300.0, lspci=lspci),
                "t1": mlx5_capture(hp, 10, gbps=300.0, lspci=lspci)})


# ================================================================= class 7: physical-layer errors
PHYS = r"cable|optic|transceiver|lane|module|connector"


def class7():
    hp = mlx5_host(0x80)
    phy = lin({"rx_crc_errors_phy": 118, "rx_symbol_err_phy": 13, "rx_pcs_symbol_err_phy": 40113,
               "rx_corrected_bits_phy": 9118334120, "rx_err_lane_0_phy": 2201334, "rx_err_lane_1_phy": 2190021,
               "rx_err_lane_2_phy": 4702110931, "rx_err_lane_3_phy": 2213009, "link_down_events_phy": 1},
              {"rx_crc_errors_phy": 140.0, "rx_symbol_err_phy": 12.7, "rx_pcs_symbol_err_phy": 4000.0,
               "rx_corrected_bits_phy": 3.1e6, "rx_err_lane_0_phy": 700.0, "rx_err_lane_1_phy": 690.0,
               "rx_err_lane_2_phy": 3.097e6, "rx_err_lane_3_phy": 710.0})
    rt = lin({"local_ack_timeout_err": 31, "out_of_sequence": 300, "packet_seq_err": 280},
             {"local_ack_timeout_err": 0.4, "out_of_sequence": 14.0, "packet_seq_err": 13.0})
    write_case("c7-mlx5-crc-symbol-lane2", 7, 1, PHYS, None, """
Built from the Dell KB 000286734 (`ethtool -S enp139s0f1np1 | grep -E "correc|rx_err"` pastes of
ConnectX-6 Dx) and NCCL issue #905 (port errors). Two captures 30 s apart: rx_crc_errors_phy +4,200,
rx_symbol_err_phy +380, rx_pcs_symbol_err_phy +120,000, and lane 2 carries 99.9 % of the corrected
bits (rx_err_lane_2_phy +9.3e7 vs ~2e4 on lanes 0/1/3; en_stats.c
pport_phy_statistical_err_lanes_stats_desc). The link stays up; retransmits follow the CRC drops.
The cause is physical: the cable/optic or its lane 2, not 'retransmits'.""",
               {"t0": mlx5_capture(hp, 0, eth=phy, hwc=rt), "t1": mlx5_capture(hp, 30, eth=phy, hwc=rt)})

    bp = [Port("bnxt_re0", "ens2f0np0", "00:0a:f7:b2:81:90", "0000:41:00.0", ip="10.50.5.30", driver="bnxt")]
    fec = lin({"rx_fec_corrected_blocks": 91002113, "rx_fec_uncorrectable_blocks": 120, "rx_fcs_err_frames": 233,
               "rx_pcs_symbol_err": 40012, "rx_corrected_bits": 401223011},
              {"rx_fec_corrected_blocks": 800000.0, "rx_fec_uncorrectable_blocks": 91.2, "rx_fcs_err_frames": 88.0,
               "rx_pcs_symbol_err": 3000.0, "rx_corrected_bits": 2.2e6})
    caps = {}
    for i, t in enumerate((0, 10)):
        e = bnxt_defaults(t)
        e.update(fec(t))
        h = bnxt_hwc_defaults(t)
        h.update({"to_retransmits": int(40 + 9 * t), "seq_err_naks_rcvd": int(100 + 8 * t)})
        caps["t%d" % i] = {"ethtool-S-ens2f0np0.txt": bnxt_ethtool(e), "ethtool-i-ens2f0np0.txt": ethtool_i(bp[0]),
                           "hw_counters.txt": hwc_listing("bnxt_re0", h, BNXT_HWC), "ibv_devinfo.txt": devinfo(bp),
                           "ip-d-link.txt": ip_d_link(bp), "timestamp": "%d\n" % (TS0 + t)}
    write_case("c7-bnxt-fec-uncorrectable", 7, 1, PHYS, None, """
Broadcom BCM57508 at 100G PAM4 (RS-FEC): rx_fec_uncorrectable_blocks +912 and rx_fcs_err_frames
+880 in 10 s, corrected blocks +8e6 (bnxt_ethtool.c bnxt_rx_port_stats_ext_arr names). Uncorrectable
FEC blocks mean the pre-FEC error rate exceeds what RS-FEC can fix: a bad DAC/AOC, optic or dirty
connector (ethtool FEC guidance: 'uncorrectable > 0 means potential cable/optic issue').""", caps)

    ip = [Port("irdma1", "ens5f0", "b4:96:91:d2:55:80", "0000:b1:00.0", ip="10.60.9.2", driver="irdma")]
    crc = lin({"rx_crc_errors.nic": 311, "mac_local_faults.nic": 2, "mac_remote_faults.nic": 1},
              {"rx_crc_errors.nic": 310.0})
    caps = {}
    for i, t in enumerate((0, 10)):
        e = ice_defaults(t)
        e.update(crc(t))
        caps["t%d" % i] = {"ethtool-S-ens5f0.txt": ice_ethtool(e), "ethtool-i-ens5f0.txt": ethtool_i(ip[0]),
                           "hw_counters-irdma1.txt": hwc_listing("irdma1", irdma_hwc_defaults(t), IRDMA_HWC),
                           "ibv_devinfo-v.txt": devinfo(ip), "ip-d-link-ens5f0.txt": ip_d_link(ip),
                           "timestamp": "%d\n" % (TS0 + t)}
    write_case("c7-ice-crc-errors", 7, 1, PHYS, None, """
Intel E810 (ice): rx_crc_errors.nic +3,100 in 10 s (ice_ethtool.c ICE_PF_STAT rx_crc_errors.nic)
with traffic otherwise normal: frames corrupted on the wire (cable, optic or switch port).""", caps)

    ib = [Port("mlx5_0", "ibp59s0", "0c:42:a1:3e:90:11", "0000:3b:00.0", driver="mlx5")]
    def ibcap(t):
        c = {"symbol_error": int(1200 + 18.7 * t), "port_rcv_errors": int(40 + 1.6 * t),
             "link_error_recovery": int(4 + t // 30), "link_downed": 1, "port_xmit_discards": 0,
             "port_rcv_remote_physical_errors": 0, "local_link_integrity_errors": 0,
             "excessive_buffer_overrun_errors": 0, "VL15_dropped": 0, "port_rcv_switch_relay_errors": 0,
             "port_xmit_constraint_errors": 0, "port_rcv_constraint_errors": 0,
             "port_xmit_data": int(9.1e14 + 5e9 * t), "port_rcv_data": int(9.0e14 + 5e9 * t),
             "port_xmit_packets": int(3.5e12 + 4.8e6 * t), "port_rcv_packets": int(3.4e12 + 4.8e6 * t),
             "port_xmit_wait": int(1e6 + 10 * t)}
        return "".join("/sys/class/infiniband/mlx5_0/ports/1/counters/%s:%d\n" % (k, c[k]) for k in sorted(c))
    caps = {}
    for i, t in enumerate((0, 30)):
        caps["t%d" % i] = {"counters.txt": ibcap(t), "timestamp": "%d\n" % (TS0 + t),
                           "hw_counters.txt": hwc_listing("mlx5_0", dict(mlx5_hwc_defaults(t),
                                                                          local_ack_timeout_err=int(5 + 0.5 * t)), MLX5_HWC)}
    write_case("c7-ib-symbol-rcv-errors", 7, 1, PHYS, None, """
Built from openucx/ucx #9590 (HDR fabric, 'Transport retry count exceeded'; PortRcvErrors grew,
fixed by reseating/moving cables) and the NADDOD 'Symbol Error Counter' guide. PMA counters/ of an
IB port 30 s apart: symbol_error +560, port_rcv_errors +48, link_error_recovery +1, link_downed flat.
A physical link problem: cable or transceiver.""", caps)

    hp = mlx5_host(0x81)
    pam4 = lin({"rx_corrected_bits_phy": 153303800, "rx_err_lane_0_phy": 74171021, "rx_err_lane_1_phy": 79132779,
                "rx_bits_phy": 0},
               {"rx_corrected_bits_phy": 2000.0, "rx_err_lane_0_phy": 980.0, "rx_err_lane_1_phy": 1020.0,
                "rx_bits_phy": 1.0e11})
    write_case("c7-healthy-pam4-corrected-bits", 7, 0, None, r"\[(warning|error)\]", """
Healthy control from Dell KB 000286734 ('Mellanox ConnectX-6 Dx: High Corrected Bits on PAM4 NICs
... which is normal and expected'): lifetime rx_corrected_bits_phy 153,303,800 and
rx_err_lane_0/1_phy in the tens of millions (the KB's paste), growing by 20,000 in 10 s against
1e12 bits received (pre-FEC BER 2e-8, far inside RS544's 2.4e-4 budget); zero CRC, symbol and
PCS errors. Large corrected-bit totals are not a fault.""",
               {"t0": mlx5_capture(hp, 0, eth=pam4), "t1": mlx5_capture(hp, 10, eth=pam4)})


# ================================================================= class 8: pasted shapes
def class8():
    hp = mlx5_host(0x90)
    storm = lin({"tx_prio3_pause": 1200, "tx_prio3_pause_duration": 400000, "rx_prio3_pause": 300,
                 "rx_prio3_pause_duration": 20000},
                {"tx_prio3_pause": 24100.0, "tx_prio3_pause_duration": 808000.0})
    caps = {}
    for i, t in enumerate((0, 10)):
        e = mlx5_defaults(t)
        e.update(storm(t))
        full = mlx5_ethtool(e)
        caps["t%d" % i] = {"ethtool-S-grep.txt": grep(full, r"pause|discard"),
                           "ibv_devinfo-v.txt": devinfo(hp), "ip-d-link.txt": ip_d_link(hp),
                           "timestamp": "%d\n" % (TS0 + t)}
    write_case("c8-ethtool-grep-no-header", 8, 1, r"pause", None, """
`ethtool -S ens1f0np0 | grep -E 'pause|discard'` as pasted in NCCL/forum threads (no 'NIC statistics:'
header, indented name: value lines; the Dell KB 000286734 paste has this shape). Two captures 10 s
apart: tx_prio3_pause_duration +8,080,000 us = 81 % of the time sending PFC pause.""", caps)

    hp = mlx5_host(0x91)
    caps = {}
    for i, t in enumerate((0, 10)):
        f = mlx5_capture(hp, t, devinfo_v=False)
        f["ibv_devinfo.txt"] = "root@gpu-c03:~# ibv_devinfo\n" + expand_tabs(devinfo(hp, verbose=False))
        caps["t%d" % i] = f
    write_case("c8-plain-ibv-devinfo", 8, 0, None, r"no_roce_v2_gid|populated GIDs", """
Healthy control: plain `ibv_devinfo` (no -v) as in deepseek-ai/DeepEP #60, copied from a terminal
(tabs expanded to spaces, prompt line 'root@gpu-c03:~# ibv_devinfo' on top). It prints no GIDs, so
GID rules cannot be evaluated (a note, not '[error] no_roce_v2_gid ... populated GIDs = 0').""", caps)

    def rdma_stat(v):
        keys = ["rx_write_requests", "rx_read_requests", "rx_atomic_requests", "rx_dct_connect", "out_of_buffer",
                "out_of_sequence", "duplicate_request", "rnr_nak_retry_err", "packet_seq_err", "implied_nak_seq_err",
                "local_ack_timeout_err", "resp_local_length_error", "resp_cqe_error", "req_cqe_error",
                "req_remote_invalid_request", "req_remote_access_errors", "resp_remote_access_errors",
                "resp_cqe_flush_error", "req_cqe_flush_error", "req_transport_retries_exceeded",
                "req_rnr_retries_exceeded", "roce_adp_retrans", "roce_adp_retrans_to", "roce_slow_restart",
                "roce_slow_restart_cnps", "roce_slow_restart_trans", "rp_cnp_ignored", "rp_cnp_handled",
                "np_ecn_marked_roce_packets", "np_cnp_sent", "rx_icrc_encapsulated"]
        parts = ["%s %d" % (k, v.get(k, 0)) for k in keys]
        lines, cur = [], "link mlx5_0/1"
        for p in parts:
            if len(cur) + len(p) + 1 > 118:
                lines.append(cur)
                cur = ""
            cur += " " + p
        lines.append(cur + " ")
        return "$ sudo rdma statistic show link mlx5_0/1\n" + "\n".join(lines) + "\n"
    hp = mlx5_host(0x92)
    caps = {}
    for i, t in enumerate((0, 10)):
        v = mlx5_hwc_defaults(t)
        v.update({"rnr_nak_retry_err": int(1543 + 190 * t), "req_rnr_retries_exceeded": int(2 + 0.2 * t)})
        caps["t%d" % i] = {"rdma-statistic.txt": rdma_stat(v), "rdma-link.txt": rdma_link(hp),
                           "timestamp": "%d\n" % (TS0 + t)}
    write_case("c8-rdma-statistic-show", 8, 1, r"\brnr\b", None, """
`rdma statistic show link mlx5_0/1` output, wrapped as terminals wrap it (continuation lines start
with a space), shape from sonic-buildimage #21891. Two captures 10 s apart: rnr_nak_retry_err
+1,900, req_rnr_retries_exceeded +2.""", caps)

    hp = mlx5_host(0x93)
    retr = lin({"local_ack_timeout_err": 310, "out_of_sequence": 2200, "packet_seq_err": 1900},
               {"local_ack_timeout_err": 6.1, "out_of_sequence": 410.0, "packet_seq_err": 395.0})
    caps = {}
    for i, t in enumerate((0, 10)):
        caps["t%d" % i] = {k: crlf(v) for k, v in mlx5_capture(hp, t, hwc=retr).items()}
    write_case("c8-crlf-retransmits", 8, 1, r"retrans|timeout|sequence", None, """
The retransmit class of shared 'retransmit' pasted from a Windows ticket system: every file has CRLF
line ends (timestamp and hostname too). out_of_sequence +4,100, packet_seq_err +3,950 and
local_ack_timeout_err +61 in 10 s.""", caps)

    hp = mlx5_host(0x94)
    rnr = lin({"out_of_buffer": 2001}, {"out_of_buffer": 3100.0})
    caps = {}
    for i, t in enumerate((0, 10)):
        f = mlx5_capture(hp, t, hwc=rnr, eth=lambda t: {"rx_discards_phy": int(1000 + 210 * t)})
        f["ethtool-S-ens1f0np0.txt"] = "[root@gpu-d11 ~]# ethtool -S ens1f0np0\n" + f["ethtool-S-ens1f0np0.txt"]
        f["hw_counters-mlx5_0.txt"] = "[root@gpu-d11 ~]# grep . /sys/class/infiniband/mlx5_0/ports/1/hw_counters/*\n" + f["hw_counters-mlx5_0.txt"]
        f["ip-d-link.txt"] = "$ ip -d link\n" + f["ip-d-link.txt"]
        caps["t%d" % i] = f
    write_case("c8-prompt-lines-discards", 8, 1, r"discard|out_of_buffer|rnr|buffer", None, """
Every file begins with the shell prompt and command the operator ran ('[root@gpu-d11 ~]# ethtool -S
ens1f0np0', '$ ip -d link'). mlx5 receive drops: rx_discards_phy +2,100 and out_of_buffer +31,000 in 10 s
(receive queues empty: the responder's application does not re-post receives fast enough).""", caps)

    hp = mlx5_host(0x95, names=["enp139s0f1np1"])
    e = dict(mlx5_defaults(0), rx_corrected_bits_phy=153303800, rx_err_lane_0_phy=74171021,
             rx_err_lane_1_phy=79132779)
    write_case("c8-dell-kb-grep-paste-single", 8, 2, r"could not judge", r"\[(warning|error)\]", """
The paste of Dell KB 000286734, as its reporter ran it: prompt line
'user@hostname:~$ sudo ethtool -S enp139s0f1np1 | grep -E "correc|rx_err"' and five grep lines
(rx_corrected_bits_phy 153,303,800, rx_err_lane_0/1_phy 74 M / 79 M), one capture. High lifetime
corrected-bit totals on PAM4 are normal (the KB's conclusion): no finding, and one capture cannot
judge rates: exit 2.""",
               {"t0": {"ethtool-S.txt": 'user@hostname:~$ sudo ethtool -S enp139s0f1np1 | grep -E "correc|rx_err"\n'
                                       + grep(mlx5_ethtool(e), r"correc|rx_err")}})

    bp = [Port("bnxt_re1", "ens3f0np0", "00:0a:f7:c1:20:30", "0000:81:00.0", ip="10.50.6.7", driver="bnxt")]
    caps = {}
    for i, t in enumerate((0, 10)):
        caps["t%d" % i] = {k: crlf(v) for k, v in {
            "ethtool-S-ens3f0np0.txt": "admin@storage-07:~$ sudo ethtool -S ens3f0np0\n" + bnxt_ethtool(bnxt_defaults(t, 40.0)),
            "ethtool-i-ens3f0np0.txt": "admin@storage-07:~$ ethtool -i ens3f0np0\n" + ethtool_i(bp[0]),
            "hw_counters.txt": hwc_listing("bnxt_re1", bnxt_hwc_defaults(t, 40.0), BNXT_HWC),
            "ibv_devinfo.txt": devinfo(bp), "ip-d-link.txt": ip_d_link(bp), "timestamp": "%d\n" % (TS0 + t)}.items()}
    write_case("c8-healthy-crlf-prompt-bnxt", 8, 0, None, r"\[(warning|error)\]", """
Healthy control (Broadcom BCM57508, bnxt_re1): CRLF line ends and prompt lines on top of the
ethtool files; ~40 Gb/s of RoCE, nothing else moving: exit 0.""", caps)


# ================================================================= class 9: several hosts compared
def class9():
    a = mlx5_host(0xa0, ips=["10.10.1.160"])
    b = mlx5_host(0xa1, ips=["10.10.1.161"], mtu=1500)
    write_case("c9-two-host-mtu-mismatch", 9, 1, r"mtu.*(gpu-a01.*gpu-a02|gpu-a02.*gpu-a01)|(gpu-a01.*gpu-a02|gpu-a02.*gpu-a01).*mtu", None, """
Built from NCCL/UCX threads where one node of a pair had MTU 1500 after a reimage (path MTU
4096 on one side, 1024 on the other; 'NET/IB : Got completion with error 12'). Two hosts' captures
(gpu-a01 MTU 9000 / active_mtu 4096, gpu-a02 MTU 1500 / active_mtu 1024), one capture each, split
across hostA-t0 and hostB-t0 with hostname files. Compared across hosts as accept's consistency
stage does: a peer MTU mismatch, naming both hosts (gpu-a02's own roce_mtu finding alone is not
the comparison).""",
               {"hostA-t0": mlx5_capture(a, 0, hostname="gpu-a01"), "hostB-t0": mlx5_capture(b, 0, hostname="gpu-a02")})

    a = mlx5_host(0xa2, ips=["10.10.1.162"], mtu=9000)
    b = mlx5_host(0xa3, ips=["10.10.1.163"], mtu=4200)
    write_case("c9-two-host-mtu-mismatch-no-hostname", 9, 1, r"mtu", None, """
Two hosts, two captures each, no hostname files (identity by node GUID / MACs): hostA netdev MTU
9000, hostB netdev MTU 4200; both give active_mtu 4096, so neither host alone is wrong (no
roce_mtu), but the peers' netdev MTUs differ (TCP/IP and jumbo traffic between them breaks).
Healthy counters on both; found only by comparing the hosts.""",
               {"hostA-t0": mlx5_capture(a, 0), "hostA-t1": mlx5_capture(a, 10),
                "hostB-t0": mlx5_capture(b, 0), "hostB-t1": mlx5_capture(b, 10)})

    a = mlx5_host(0xa4, ips=["10.10.1.164"])
    b = mlx5_host(0xa5, ips=["10.10.1.165"])
    write_case("c9-pfc-priority-mismatch", 9, 1, r"pfc|priorit", None, """
SONiC/RoCE deployment threads where one host's PFC was set on priority 4 while the fabric uses 3
(mlnx_qos -i: 'enabled 0 0 0 0 1 0 0 0'). Two hosts with hostname files, one capture each:
gpu-a05 PFC on 3, gpu-a06 PFC on 4 (both trust dscp). Compared across hosts: PFC priorities differ.""",
               {"hostA-t0": mlx5_capture(a, 0, hostname="gpu-a05"),
                "hostB-t0": mlx5_capture(b, 0, hostname="gpu-a06", pfc_prios=(4,))})

    a = mlx5_host(0xa8, ips=["10.10.1.168"])
    b = mlx5_host(0xa9, ips=["10.10.1.169"])
    fa, fb = mlx5_capture(a, 0, hostname="gpu-a09"), mlx5_capture(b, 0, hostname="gpu-a10")
    fb["mlnx_qos-ens1f0np0.txt"] = mlnx_qos((3,), "pcp")
    write_case("c9-trust-mismatch", 9, 1, r"trust|dscp|pcp", None, """
One host left in PCP trust after a reimage while the fabric classifies RoCE by DSCP (mlnx_qos -i
'Priority trust state: pcp' on gpu-a10, 'dscp' on gpu-a09; NVIDIA RoCE configuration guides set
trust dscp on every host). One capture each with hostname files: compared across hosts, trust
differs, so gpu-a10's RoCE lands on priority 0 (untagged) instead of the lossless 3.""",
               {"hostA-t0": fa, "hostB-t0": fb})

    a = mlx5_host(0xa6, ips=["10.10.1.166"])
    b = mlx5_host(0xa7, ips=["10.10.1.167"])
    write_case("c9-healthy-two-hosts", 9, 0, None, r"\[(warning|error)\]", """
Healthy control: two consistent hosts (MTU 9000, active_mtu 4096, PFC 3, trust dscp), two captures
each 10 s apart, hostname files present; healthy traffic on both.""",
               {"hostA-t0": mlx5_capture(a, 0, hostname="gpu-a07"), "hostA-t1": mlx5_capture(a, 10, hostname="gpu-a07"),
                "hostB-t0": mlx5_capture(b, 0, hostname="gpu-a08"), "hostB-t1": mlx5_capture(b, 10, hostname="gpu-a08")})


# ================================================================= class 10: never-cabled ports
def class10():
    hp = mlx5_host(0xb0, n=2, states=["up", "down"])
    caps = {}
    for i, t in enumerate((0, 10)):
        f = mlx5_capture(hp, t)
        f["rdma-link.txt"] = rdma_link(hp)
        caps["t%d" % i] = f
    write_case("c10-dual-port-one-uncabled", 10, 0, None, r"port_not_active|no_roce_v2_gid|roce_mtu", """
Healthy control from the issue: a dual-port ConnectX-6 Dx where port 2 (mlx5_1, ens1f1np1) was
never cabled: PORT_DOWN (1), phys_state POLLING, NO-CARRIER, only link-local GIDs, zero traffic
and link_down_events_phy 0 (ibdev2netdev '(Down)' as in imbue-ai/cluster-health #4). Port 1
healthy. A note, not port_not_active / no_roce_v2_gid / roce_mtu: exit 0.""", caps)

    hp = mlx5_host(0xb2, n=2, states=["up", "down"])
    f = mlx5_capture(hp, 0)
    f["rdma-link.txt"] = rdma_link(hp)
    write_case("c10-uncabled-single-capture", 10, 2, r"could not judge", r"port_not_active|no_roce_v2_gid|roce_mtu", """
The dual-port host with port 2 never cabled, as one capture: rates cannot be judged (exit 2), and
the uncabled port is a note, not port_not_active / no_roce_v2_gid / roce_mtu.""", {"t0": f})

    hp = mlx5_host(0xb1)
    hp_down = mlx5_host(0xb1, states=["down"])
    f0 = mlx5_capture(hp, 0)
    f0["rdma-link.txt"] = rdma_link(hp)
    f1 = mlx5_capture(hp_down, 10, eth={"link_down_events_phy": 2})
    f1["ethtool-S-ens1f0np0.txt"] = mlx5_ethtool(dict(mlx5_defaults(9), link_down_events_phy=2))
    f1["hw_counters-mlx5_0.txt"] = hwc_listing("mlx5_0", dict(mlx5_hwc_defaults(9), local_ack_timeout_err=44), MLX5_HWC)
    f1["rdma-link.txt"] = rdma_link(hp_down)
    write_case("c10-port-went-down", 10, 1, r"\]\s\w*(link|port|flap|down)\w*\son\s", None, """
NCCL issue #905 ('NET/IB : Got async event : port error'): the port carried ~80 Gb/s at t0 and is
DOWN at t1 (PORT_DOWN, NO-CARRIER, link_down_events_phy 1 -> 2, traffic stopped, ACK timeouts
3 -> 44). A port that was up and went down stays a finding.""", {"t0": f0, "t1": f1})

    bp = [Port("bnxt_re0", "ens2f0np0", "00:0a:f7:b2:91:a0", "0000:41:00.0", ip="10.50.7.1", driver="bnxt"),
          Port("bnxt_re1", "ens2f1np1", "00:0a:f7:b2:91:a1", "0000:41:00.1", ip=None, driver="bnxt", state="down")]
    caps = {}
    for i, t in enumerate((0, 10)):
        f = {"ethtool-S-ens2f0np0.txt": bnxt_ethtool(bnxt_defaults(t)),
             "ethtool-S-ens2f1np1.txt": bnxt_ethtool({}, zero=True),
             "hw_counters-bnxt_re0.txt": hwc_listing("bnxt_re0", bnxt_hwc_defaults(t), BNXT_HWC),
             "hw_counters-bnxt_re1.txt": hwc_listing("bnxt_re1", {"lifespan": 10}, BNXT_HWC),
             "ibv_devinfo.txt": devinfo(bp), "ip-d-link.txt": ip_d_link(bp), "rdma-link.txt": rdma_link(bp),
             "timestamp": "%d\n" % (TS0 + t)}
        for p in bp:
            f["ethtool-i-%s.txt" % p.netdev] = ethtool_i(p)
        caps["t%d" % i] = f
    write_case("c10-bnxt-dual-port-one-uncabled", 10, 0, None, r"port_not_active|no_roce_v2_gid|roce_mtu", """
Healthy control, Broadcom P2100G dual port: bnxt_re0 ACTIVE with traffic, bnxt_re1 (ens2f1np1)
never cabled: DOWN/POLLING, NO-CARRIER, zero counters, no routable GID. Exit 0.""", caps)


# ================================================================= class 11: evidence a person can check
def class11():
    hp = mlx5_host(0xc0)
    rnr = lin({"rnr_nak_retry_err": 100}, {"rnr_nak_retry_err": 150.0})
    write_case("c11-evidence-cites-bundle-file", 11, 1, r"hw_counters-mlx5_0\.txt:\d+",
               r"/work/|/tmp/|/home/|\(\.\.\./|\b(pfc_off|pfc_enabled) = \d+ bool", """
The RNR case of c1 with timestamps: the evidence must cite the bundle file and line
(t1/hw_counters-mlx5_0.txt:NN), never a path of the machine that ran rocehealth and never a sysfs
path '(.../class/infiniband/...)' the bundle does not have; no field-name debris.""",
               {"t0": mlx5_capture(hp, 0, hwc=rnr), "t1": mlx5_capture(hp, 10, hwc=rnr)})

    hp = mlx5_host(0xc1)
    lspci = (lspci_bridge("0000:3a:00.0", "Intel Corporation Sky Lake-E PCI Express Root Port A (rev 04)", "Root Port (Slot+)", "3a", "3b", "3b",
                          ("16GT/s", 16), ("16GT/s", 8), port_no=1, slot=6)
             + lspci_nic("0000:3b:00.0", "cx6dx", ("16GT/s", 16), ("16GT/s", 8)))
    write_case("c11-units-in-evidence", 11, 1, r"\d+ Gb/s.*GT/s|GT/s.*\d+ Gb/s", r"port rate = \d+\s*\(|state = 4\s*\(", """
ConnectX-6 Dx trained at 16 GT/s x8 of x16 (lspci -vv + ibv_devinfo -v, one capture): the evidence
must carry units ('port rate = 100 Gb/s', '16 GT/s x8') and states by name ('state 4 (ACTIVE)').""",
               {"t0": {"lspci-vv.txt": lspci, "ibv_devinfo-v.txt": devinfo(hp), "ip-d-link.txt": ip_d_link(hp)}})

    hp = mlx5_host(0xc2)
    hp_down = mlx5_host(0xc2, states=["down"])
    f0 = mlx5_capture(hp, 0)
    f0["rdma-link.txt"] = rdma_link(hp)
    f1 = mlx5_capture(hp_down, 10)
    f1["ethtool-S-ens1f0np0.txt"] = mlx5_ethtool(dict(mlx5_defaults(9), link_down_events_phy=2))
    f1["hw_counters-mlx5_0.txt"] = hwc_listing("mlx5_0", dict(mlx5_hwc_defaults(9), local_ack_timeout_err=44), MLX5_HWC)
    f1["rdma-link.txt"] = rdma_link(hp_down)
    write_case("c11-port-state-evidence-from-bundle", 11, 1, r"\]\s\w*(link|port|flap|down)\w*\son\s",
               r"\((\.\.\./)?(class|devices|bus)/[^)]*\)|\(/sys/", """
The port that went down (c10-port-went-down's shape): the port state and width in the evidence
come from t1/ibv_devinfo-v.txt and t1/rdma-link.txt, and must be cited as those files and lines,
not as sysfs paths the bundle does not have ('(class/infiniband/mlx5_0/ports/1/state)').""",
               {"t0": f0, "t1": f1})

    write_case("c11-no-rdma-data", 11, 2, r"no rdma|nothing|could not|no .*capture|not recogni", None, """
A ticket whose capture directory holds only prose and a screenshot description (no command
output): could not run, exit 2; with --json the document carries an "error" field.""",
               {"t0": {"notes.txt": "Hi team, NCCL all_reduce hangs on node 7 since Monday.\n"
                                    "Screenshot attached in the portal. Please advise.\n"}})


# ================================================================= class 12: healthy hosts not blamed (issue 26)
def class12():
    # An x8 card in an x16 slot: the link trains at x8 on both ends, the card's maximum.
    hp = mlx5_host(0xd0, speed=25)
    lspci = (lspci_bridge("0000:3a:00.0", "Intel Corporation Ice Lake PCI Express Root Port A", "Root Port (Slot+)",
                          "3a", "3b", "3b", ("16GT/s", 16), ("16GT/s", 8), port_no=1, slot=4)
             + lspci_nic("0000:3b:00.0", "cx6dx", ("16GT/s", 8), ("16GT/s", 8)))
    write_case("c12-x8-card-in-x16-slot", 12, 0, None, r"\[(warning|error)\]|pcie_downtrained", """
Healthy control: a ConnectX-6 Lx-class 25 Gb/s card whose own LnkCap is 16GT/s x8 in a x16 slot (root
port LnkCap x16, LnkSta x8 on both ends): the link runs at the card's maximum, ~126 Gb/s for a 25 Gb/s
port. Compared against the lower of the two ends' capabilities, nothing is downtrained: exit 0.""",
               {"t%d" % i: mlx5_capture(hp, t, gbps=20.0, lspci=lspci) for i, t in enumerate((0, 10))})

    # The kernel's line names the card's second function; lspci was cut before LnkCap/LnkSta.
    hp = mlx5_host(0xd1, n=2, bus=0xb3)
    cut = "\n".join(lspci_nic("0000:b3:00.0", "cx6dx", ("16GT/s", 16), ("8GT/s", 8)).split("\n")[:9]) + "\n"
    dmesg = ("[    6.903114] mlx5_core 0000:b3:00.0: firmware version: 22.36.1010\n"
             "[    6.912441] mlx5_core 0000:b3:00.1: 63.008 Gb/s available PCIe bandwidth, limited by 8.0 GT/s PCIe x8 "
             "link at 0000:b2:00.0 (capable of 252.048 Gb/s with 16.0 GT/s PCIe x16 link)\n")
    write_case("c12-dmesg-other-function-lspci-cut", 12, 1, r"pcie_downtrained.*b2:00\.0.*200\sGb/s",
               r"both\sends\ssupport|reseat\sthe\scard\s\(or", """
Built from NVIDIA/l2fwd-nv #6 (63 Gb/s limited by an 8 GT/s x8 link at the root port). A dual-port
100 Gb/s ConnectX-6 Dx; the ticket's lspci -vv is cut after the first lines of b3:00.0 (no LnkCap, no
LnkSta) and dmesg's pcie_print_link_status line was printed by the card's other function b3:00.1.
The line is about the whole card: 63 Gb/s available for 200 Gb/s of ports, limited at 0000:b2:00.0,
whose own LnkCap the ticket does not show: a bandwidth finding named at b2:00.0, not called a training
fault (an x8-wired slot prints the same line).""",
               {"t%d" % i: mlx5_capture(hp, t, lspci=cut, extra={"dmesg.txt": dmesg}) for i, t in enumerate((0, 10))})

    # A reboot between captures: every counter restarted, the carrier count 6 -> 2.
    hp = mlx5_host(0xd2)
    caps = {}
    for i, (t, up_s, base, carrier) in enumerate(((0, 41 * 86400 + 3 * 3600 + 720, 2.41e16, 6),
                                                   (600, 240, 1.2e12, 2), (660, 300, 1.2e12, 2))):
        e = mlx5_defaults(t, base_b=base) if i == 0 else mlx5_defaults(t - 600 + 60, base_b=base)
        h = mlx5_hwc_defaults(t) if i == 0 else {k: v // 1000 for k, v in mlx5_hwc_defaults(t - 600 + 60).items()}
        h["lifespan"] = 10
        f = mlx5_capture(hp, t, eth=e, hwc=h)
        up = "%s up %s,  2 users,  load average: 9.81, 9.77, 9.90\n" % (
            "09:58:03", "41 days,  3:12" if up_s > 86400 else "%d min" % (up_s // 60))
        f["uptime.txt"] = up
        f["boot_id"] = ("6d3f1a9e-2c47-4b8e-9d0a-3f5e7c1b2a90\n" if i == 0 else
                        "0b7c2a11-93de-4f21-8a4e-55c1d0e9f7a3\n")
        f["proc-stat-btime.txt"] = "btime %d\n" % (TS0 + t - up_s)
        f["ip-s-s-link-ens1f0np0.txt"] = ip_s_s_link(hp[0], e["rx_bytes"], e["rx_packets"], e["tx_bytes"],
                                                     e["tx_packets"], carrier=carrier)
        caps["t%d" % i] = f
    write_case("c12-reboot-between-captures", 12, 0, None, r"\[(warning|error)\]|link_flap", """
Healthy control, the shape of shared h1-irdma-ice-recent-reboot on mlx5: t0 after 41 days up, then the
host was rebooted (kernel update); t1 4 min after boot and t2 60 s later. Every counter is smaller at t1
and the carrier count fell 6 -> 2: a reboot, shown by boot_id, /proc/stat btime and `uptime`, not a
wrap, a flap or another host.
No rate spans the reboot; t1 -> t2 is judged: exit 0.""", caps)

    # A 32-bit Q counter wraps, in captures holding only counter listings (weak identity).
    hp = mlx5_host(0xd3)
    caps = {}
    for i, t in enumerate((0, 30, 60)):
        h = mlx5_hwc_defaults(t)
        h["rx_write_requests"] = (4288000000 + 152600 * t) % (1 << 32)
        caps["t%d" % i] = {"ethtool-S-ens1f0np0.txt": mlx5_ethtool(mlx5_defaults(t)),
                           "hw_counters-mlx5_0.txt": hwc_listing("mlx5_0", h, MLX5_HWC),
                           "timestamp": "%d\n" % (TS0 + t)}
    write_case("c12-q-counter-wrap-one-host", 12, 0, None, r"\[(warning|error)\]|another\shost|reset", """
Healthy control: mlx5 rx_write_requests (a Q counter the kernel reads as 32 bits) goes 4,288,000,000 ->
4,292,578,000 -> 2,188,000 in 30 s steps: past 2^32, +4.58 M writes each step. The captures hold only
`ethtool -S` and the hw_counters listing (no GUID or MAC), so only names and counters tie them: a wrap
keeps them one host, never 'another host, or its counters were reset': exit 0.""", caps)

    # A port judged uncabled from the first capture comes up later.
    hp_down = mlx5_host(0xd4, n=2, states=["up", "down"])
    hp_up = mlx5_host(0xd4, n=2)
    late = lambda t: {1: {"eth": mlx5_defaults(t - 10, base_b=1e6)}}  # port 2's counters start at t1
    caps = {"t0": mlx5_capture(hp_down, 0), "t1": mlx5_capture(hp_up, 10, per_port=late(10)),
            "t2": mlx5_capture(hp_up, 20, per_port=late(20))}
    caps["t1"]["hw_counters-mlx5_1.txt"] = hwc_listing("mlx5_1", {k: v // 100 for k, v in mlx5_hwc_defaults(0).items()}, MLX5_HWC)
    caps["t2"]["hw_counters-mlx5_1.txt"] = hwc_listing("mlx5_1", {k: v // 100 for k, v in mlx5_hwc_defaults(10).items()}, MLX5_HWC)
    for k in ("t0", "t1", "t2"):
        caps[k]["rdma-link.txt"] = rdma_link(hp_down if k == "t0" else hp_up)
    write_case("c12-port-came-up-late", 12, 1, r"link_flap[^\n]*mlx5_1|mlx5_1[^\n]*(came\sup|went|flap|state)", None, """
A dual-port ConnectX-6 Dx whose second port is DOWN/POLLING with no traffic at t0 (it looks uncabled)
and ACTIVE/LINK_UP from t1: the port came up late. Judged over all captures it is no 'not cabled' note
but a state change with its time (link_flap on mlx5_1).""", caps)
# ============================================== issue 26: clocks inside captures, nothing judged
def class_clocks():
    """Captures without a `timestamp` file: judged without a clock, or timed by the clocks inside
    them (a `date` line, a `watch` header); and captures that show too little to call healthy."""
    hp = mlx5_host(0xc1)
    hp_down = mlx5_host(0xc1, states=["down"])
    f0, f1, f2 = mlx5_capture(hp, 0, ts=False), mlx5_capture(hp, 10, ts=False), mlx5_capture(hp, 20, ts=False)
    f1["ibv_devinfo-v.txt"] = devinfo(hp_down)  # down at the second capture, counters kept
    f1["ip-d-link.txt"] = ip_d_link(hp_down)
    f1["ethtool-S-ens1f0np0.txt"] = mlx5_ethtool(dict(mlx5_defaults(9), link_down_events_phy=1))
    f2["ethtool-S-ens1f0np0.txt"] = mlx5_ethtool(dict(mlx5_defaults(19), link_down_events_phy=1))
    write_case("c1-no-clock-port-bounces", 1, 1, r"\]\slink_flap\son\s.*rnr\sneeds\sthe\stime\sbetween\scaptures", None, """
Three captures with no timestamp file, no date line and no --interval (a ticket where the user
ran the commands three times while the link bounced): the port is PORT_ACTIVE, then PORT_DOWN
(link_down_events_phy 0 -> 1), then PORT_ACTIVE again. A port state change needs no interval: the
link flap is a finding (exit 1) and the rules that need the time between captures (rates, holds)
are named in the headline instead of refusing the whole run (issue 26 class 1).""",
               {"t0": f0, "t1": f1, "t2": f2})

    hp = mlx5_host(0xc2)
    storm = lin({"rx_prio3_pause": 31002, "rx_prio3_pause_duration": 4100200},
                {"rx_prio3_pause": 14000.0, "rx_prio3_pause_duration": 610000.0})
    caps = {}
    for i, (t, clock) in enumerate(((0, "09:41:02"), (20, "09:41:22"), (41, "09:41:43"))):
        c = mlx5_capture(hp, t, eth=storm, ts=False)
        c["ethtool-S-ens1f0np0.txt"] = "Thu Mar 13 %s CST 2025\n" % clock + c["ethtool-S-ens1f0np0.txt"]
        caps["t%d" % i] = c
    write_case("c1-cst-date-lines-pause-storm", 1, 1, r"pause.*prio\w*\s*3|priority\s*3", None, """
A collection script that writes `date` on top of each `ethtool -S` (the f3 shape of the shared
cases, with the rest of the capture): Thu Mar 13 09:41:02 / :22 / :43 CST 2025, no timestamp file.
CST is three zones (US Central, China, Cuba), so no wall clock is claimed, but the captures of
one host in one zone abbreviation are exactly 20 s and 21 s apart: rx_prio3_pause_duration
+610,000 us per second = 61 % of the time paused on priority 3: a pause storm (exit 1).""", caps)

    hp = mlx5_host(0xc3)
    disc = lin({"rx_discards_phy": 1200}, {"rx_discards_phy": 210.0})
    caps = {}
    for i, (t, clock) in enumerate(((0, "16:20:05"), (10, "16:20:15"))):
        c = mlx5_capture(hp, t, eth=disc, ts=False)
        c["ethtool-S-ens1f0np0.txt"] = (
            "Every 10.0s: ethtool -S ens1f0np0                      gpu-c3: Wed Jan 14 %s 2026\n\n" % clock
            + c["ethtool-S-ens1f0np0.txt"])
        caps["t%d" % i] = c
    write_case("c1-watch-header-rx-discards", 1, 1, r"rx_discards|dropped\sreceived", None, """
Two screens of `watch -n 10 ethtool -S ens1f0np0` pasted as captures: the header line carries the
host and the time (Wed Jan 14 16:20:05 / 16:20:15 2026, no zone: local time), no timestamp file.
The header gives the spacing, 10 s: rx_discards_phy +2,100 in 10 s, the receive-discard finding
(exit 1).""", caps)

    hp = mlx5_host(0xc4)
    caps = {"t%d" % i: {"ibv_devinfo-v.txt": devinfo(hp), "timestamp": "%d\n" % (TS0 + t)}
            for i, t in enumerate((0, 10))}
    write_case("c5-ibv-devinfo-only-two-captures", 5, 2, r"could\snot\sjudge.*none\sof\sthe\scounters", None, """
A ticket with two captures of `ibv_devinfo -v` only, 10 s apart. The port is ACTIVE, but no
counter was captured, so none of the rules that see RNR, retransmits, pauses, drops or errors saw
anything: not healthy but 'could not judge' (exit 2), naming what is missing (issue 26 class 5).""",
               caps)

    hp = mlx5_host(0xc5)
    caps = {}
    for i, t in enumerate((0, 10)):
        caps["t%d" % i] = {"ibv_devinfo-v.txt": devinfo(hp),
                           "ip-s-s-link.txt": ip_s_s_link(hp[0], 9.1e12 + t * 1e10, 7.2e9 + t * 1e6,
                                                          8.4e12 + t * 1e10, 6.9e9 + t * 1e6,
                                                          rx_dropped=4100 + 20 * t),
                           "timestamp": "%d\n" % (TS0 + t)}
    write_case("c5-ibv-devinfo-ip-link-rx-dropped", 5, 1, r"rx_discards.*netdev_rx_dropped", None, """
`ibv_devinfo -v` and `ip -s -s link` only, 10 s apart: the RX `dropped` column rose by 200 in
10 s (4,100 -> 4,300). ip's counters are the netdev's statistics (on mlx5 rx_dropped is
rx_out_of_buffer): read as netdev_rx_dropped and judged by the receive-discard rule (exit 1),
not 'no findings' (issue 26 class 5).""", caps)


def write_expected(owner="make_cases.py", header=()):
    """Rewrites the lines of EXPECTED between the "# generated by OWNER: begin/end" markers (in
    place; appended when the markers are missing) from CASES: (id, class, exit, regex or list of
    regexes, negative regex or None). `header`: comment lines put after the begin marker."""
    path = os.path.join(HERE, "EXPECTED")
    with open(path) as f:
        text = f.read()
    start, end = "# generated by %s: begin\n" % owner, "# generated by %s: end\n" % owner
    sp = lambda r: r.replace(" ", r"\x20")  # EXPECTED columns are space-separated
    lines = [start] + ["# %s\n" % h for h in header]
    for cid, cls, code, rx, neg in CASES:
        cols = [sp(r) for r in (rx if isinstance(rx, list) else [rx] if rx else [])] or ["-"]
        if neg and neg != "-":
            cols.append("!" + sp(neg))
        lines.append("%s %s %d %s\n" % (cid, cls, code, " ".join(cols)))
    lines.append(end)
    if start in text:
        text = text[:text.index(start)] + "".join(lines) + text[text.index(end) + len(end):]
    else:
        text = text.rstrip("\n") + "\n" + "".join(lines)
    with open(path, "w") as f:
        f.write(text)

if __name__ == "__main__":
    for fn in (class1, class2, class3, class4, class5, class6, class7, class8, class9, class10, class11,
               class12, class_clocks):
        fn()
    write_expected()
    print("wrote %d cases" % len(CASES))
