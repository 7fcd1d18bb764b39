// The nccl reader (collectors/joblog/nccl_log.cpp): one case per form the log has taken, each
// with a line in the shape a public thread shows (cited above the case).
#include <boost/test/unit_test.hpp>

#include <cmath>
#include <string>
#include <vector>

#include "collectors/joblog/job_logs.h"

namespace {

using rh::LogClock;
using rh::LogEvent;
using rh::joblog::LogRead;

LogRead read(std::vector<std::string> lines) {
    LogRead out;
    rh::joblog::read_nccl({"logs", "nccl.log", lines}, out);
    return out;
}

// One line that must give exactly one event.
LogEvent one(const std::string& line) {
    LogRead r = read({line});
    BOOST_REQUIRE_EQUAL(r.events.size(), 1u);
    BOOST_TEST(rh::joblog::is_nccl_line(line));
    return r.events[0];
}

bool near(double a, double b) {
    return std::fabs(a - b) < 1e-3;
}

}  // namespace

BOOST_AUTO_TEST_SUITE(test_nccl_log)

// --- completion errors: one form per NCCL version range ----------------------------------

// <= 2.10. NVIDIA/nccl#426 (NCCL 2.8.3; comment by qianzhang613).
BOOST_AUTO_TEST_CASE(completion_up_to_2_10) {
    const auto e =
        one("worker-1:946:988 [0] transport/net_ib.cc:839 NCCL WARN NET/IB : Got completion with "
            "error 12, opcode 1, len 0, vendor err 129");
    BOOST_TEST(e.kind == "completion_error");
    BOOST_TEST(e.reader == "nccl");
    BOOST_TEST(e.source == "logs/nccl.log:1");
    BOOST_TEST(e.host == "worker-1");
    BOOST_TEST(*e.pid == 946u);
    BOOST_TEST(*e.wc_status == 12);
    BOOST_TEST(e.status_text == "transport retry counter exceeded");
    BOOST_TEST(*e.opcode == 1);
    BOOST_TEST(*e.vendor_err == 129u);
    BOOST_TEST(e.peer_ip.empty());
    BOOST_TEST(e.device.empty());  // this form names no device
    BOOST_TEST((e.clock == LogClock::order));
}

// 2.11-2.19. pytorch/pytorch#81628 (title line).
BOOST_AUTO_TEST_CASE(completion_2_11_to_2_19_from_peer) {
    const auto e = one(
        "gpu3:1234:1301 [7] transport/net_ib.cc:1295 NCCL WARN NET/IB : Got completion from peer "
        "192.168.17.147<38560> with error 12, opcode 0, len 0, vendor err 129");
    BOOST_TEST(e.kind == "completion_error");
    BOOST_TEST(e.peer_ip == "192.168.17.147");  // the peer's OOB socket, not its port
    BOOST_TEST(*e.wc_status == 12);
    BOOST_TEST(*e.opcode == 0);
    BOOST_TEST(*e.vendor_err == 129u);
    BOOST_TEST(e.port == 0u);
}

// 2.18 with an IPoIB link-local peer and a direction. NVIDIA/nccl#928.
BOOST_AUTO_TEST_CASE(completion_2_18_ipv6_peer_and_direction) {
    const auto e = one(
        "H100-2:19989:20082 [1] transport/net_ib.cc:1295 NCCL WARN NET/IB : Got completion from "
        "peer fe80::966d:ae03:8b:df78%ib0<53249> with error 4, opcode 32564, len 32564, vendor "
        "err 81 (Send)");
    BOOST_TEST(e.host == "H100-2");
    BOOST_TEST(e.peer_ip == "fe80::966d:ae03:8b:df78");  // scope "%ib0" dropped
    BOOST_TEST(*e.wc_status == 4);
    BOOST_TEST(e.status_text == "local protection error");
    BOOST_TEST(*e.vendor_err == 81u);
    BOOST_TEST(e.direction == "send");
}

// A peer printed as a host name is not an IP; the line is cut in the vendor field.
// Lightning-AI/lit-llama#380 (the paste ends at "ven").
BOOST_AUTO_TEST_CASE(completion_host_name_peer_and_cut_line) {
    const auto e = one(
        "...-51:73076:73185 [4] transport/net_ib.cc:1238 NCCL WARN NET/IB : Got completion from "
        "peer node48<37948> with error 12, opcode 2, len 1, ven");
    BOOST_TEST(e.host == "...-51");
    BOOST_TEST(e.peer_ip.empty());
    BOOST_TEST(e.peer_name == "node48");  // joined with a host of that name by the placement
    BOOST_TEST(*e.wc_status == 12);
    BOOST_TEST(*e.opcode == 2);
    BOOST_TEST(!e.vendor_err.has_value());
}

// 2.20-2.21: status=, (Recv), localGid, remoteGids glued to its GID. NVIDIA/nccl#1814.
BOOST_AUTO_TEST_CASE(completion_2_20_to_2_21) {
    const auto e = one(
        "hostname-test:984:1357 [4] ib_plugin.c:1615 NCCL WARN NET/IB : Got completion from peer "
        "172.36.143.59<44206> with status=12 opcode=129 len=65536 vendor err 129 (Recv) localGid "
        "::ffff:29.87.88.182 remoteGids::ffff:29.87.4.221");
    BOOST_TEST(e.host == "hostname-test");
    BOOST_TEST(*e.pid == 984u);
    BOOST_TEST(e.peer_ip == "172.36.143.59");
    BOOST_TEST(*e.wc_status == 12);
    BOOST_TEST(*e.opcode == 129);
    BOOST_TEST(*e.vendor_err == 129u);
    BOOST_TEST(e.direction == "recv");
    BOOST_TEST(e.local_gid == "::ffff:29.87.88.182");
    BOOST_TEST(e.peer_gid == "::ffff:29.87.4.221");  // kept in GID form, as NCCL prints it
    BOOST_TEST(e.device.empty());
}

// 2.20-2.21 with IPv6 GIDs, then a flush (status 5) on the same QP. NVIDIA/nccl#1405.
BOOST_AUTO_TEST_CASE(completion_2_20_ipv6_gids_then_flush) {
    const auto r = read({
        "kp-ddp-worker-0:3468:3905 [4] ib_plugin.c:1615 NCCL WARN NET/IB : Got completion from "
        "peer 10.216.210.236<54862> with status=12 opcode=0 len=0 vendor err 129 (Recv) localGid "
        "fd00:1148:9000:5000:4:200:3:ff22 remoteGidsfd00:1148:9000:5000:4:200:3:ff1f",
        "kp-ddp-worker-0:3468:3905 [4] NCCL INFO transport/net.cc:1302 -> 6",
        "kp-ddp-worker-0:3468:3905 [4] NCCL INFO proxy.cc:698 -> 6",
        "",
        "hostname-test:984:1357 [4] ib_plugin.c:1615 NCCL WARN NET/IB : Got completion from peer "
        "172.36.143.59<44206> with status=5 opcode=32656 len=32659 vendor err 249 (Recv) localGid "
        "::ffff:29.87.88.182 remoteGids::ffff:29.87.4.221",
    });
    BOOST_REQUIRE_EQUAL(r.events.size(), 2u);
    BOOST_TEST(r.events[0].peer_gid == "fd00:1148:9000:5000:4:200:3:ff1f");
    BOOST_TEST(r.events[0].local_gid == "fd00:1148:9000:5000:4:200:3:ff22");
    BOOST_TEST(r.events[0].line == 1u);
    BOOST_TEST(*r.events[1].wc_status == 5);
    BOOST_TEST(r.events[1].status_text == "Work Request Flushed Error");
    BOOST_TEST(*r.events[1].vendor_err == 249u);
    BOOST_TEST(r.events[1].line == 5u);
    BOOST_TEST(r.notes.empty());
}

// 2.22-2.28: "NET/IB:" and a trailing "hca". NVIDIA/nccl#1698 (a two-digit device).
BOOST_AUTO_TEST_CASE(completion_2_22_to_2_28_hca) {
    const auto e = one(
        "mycl-g2:353236:353423 [6] transport/net_ib.cc:2244 NCCL WARN NET/IB: Got completion from "
        "peer 192.168.3.5<53908> with status=12 opcode=129 len=1048576 vendor err 129 (Recv) "
        "localGid ::ffff:192.168.6.3 remoteGids::ffff:192.168.6.5 hca mlx5_10");
    BOOST_TEST(e.device == "mlx5_10");
    BOOST_TEST(e.peer_ip == "192.168.3.5");
    BOOST_TEST(e.peer_gid == "::ffff:192.168.6.5");
    BOOST_TEST(*e.wc_status == 12);
    BOOST_TEST(e.direction == "recv");
}

// 2.21.5 without GIDs (IB link layer), with a zoned log-shipper stamp before NCCL's local one.
// NVIDIA/nccl#1905.
BOOST_AUTO_TEST_CASE(completion_with_hca_no_gids_and_zoned_stamp) {
    const auto e = one(
        "2025-11-09 15:39:31.043 +08:00 [2025-11-09 07:39:30] h100-28:238:1313 [0] "
        "transport/net_ib.cc:2451 NCCL WARN NET/IB: Got completion from peer 172.16.12.34<38081> "
        "with status=4 opcode=0 len=0 vendor err 83 (Send) hca mlx5_ib0");
    BOOST_TEST(e.host == "h100-28");
    BOOST_TEST(e.device == "mlx5_ib0");
    BOOST_TEST(*e.wc_status == 4);
    BOOST_TEST(*e.vendor_err == 83u);
    BOOST_TEST(e.local_gid.empty());
    // The stamp with a zone wins: 15:39:31.043 +08:00 = 07:39:31.043 UTC.
    BOOST_TEST((e.clock == LogClock::wall));
    BOOST_TEST(near(e.time_s, 1762673971.043));
}

// 2.29+: status and opcode by name and number, vendor_err=, NCCL's local stamp.
// NVIDIA/nccl#2397 (NCCL 2.30.4).
BOOST_AUTO_TEST_CASE(completion_2_29_names) {
    const auto e =
        one("[2026-09-09 10:46:33] ubuntu2:319733:319761 [1] transport/net_ib/p2p.cc:648 NCCL WARN "
            "NET/IB: Got completion from peer 10.153.235.13<40554> with "
            "status=IBV_WC_RETRY_EXC_ERR(12) opcode=IBV_WC_RECV_RDMA_WITH_IMM(129) vendor_err=129 "
            "localGid ::ffff:1.1.2.2 remoteGids::ffff:1.1.1.4 hca mlx5_1");
    BOOST_TEST(e.host == "ubuntu2");
    BOOST_TEST(*e.pid == 319733u);
    BOOST_TEST(*e.wc_status == 12);
    BOOST_TEST(*e.opcode == 129);
    BOOST_TEST(*e.vendor_err == 129u);
    BOOST_TEST(e.peer_ip == "10.153.235.13");
    BOOST_TEST(e.local_gid == "::ffff:1.1.2.2");
    BOOST_TEST(e.peer_gid == "::ffff:1.1.1.4");
    BOOST_TEST(e.device == "mlx5_1");
    BOOST_TEST((e.clock == LogClock::local));  // no zone: seconds as if UTC
    BOOST_TEST(near(e.time_s, 1788950793.0));
}

// The master-branch variant with reqSize= and req_type= (format string quoted in a public
// source walk-through of net_ib.cc; the send opcode by name).
BOOST_AUTO_TEST_CASE(completion_req_type_variant) {
    const auto e = one(
        "gpu05:77:88 [2] transport/net_ib/p2p.cc:650 NCCL WARN NET/IB: Got completion from peer "
        "10.0.0.2<41000> with status=IBV_WC_RETRY_EXC_ERR(12) opcode=IBV_WC_SEND(0) reqSize=0 "
        "vendor_err=129 req_type=Recv localGid ::ffff:10.0.0.1 remoteGids::ffff:10.0.0.2 hca "
        "mlx5_2");
    BOOST_TEST(*e.wc_status == 12);
    BOOST_TEST(*e.opcode == 0);
    BOOST_TEST(*e.vendor_err == 129u);
    BOOST_TEST(e.direction == "recv");
    BOOST_TEST(e.device == "mlx5_2");
    BOOST_TEST(e.peer_gid == "::ffff:10.0.0.2");
}

// 2.29+ HINT lines (INFO, after the WARN, same thread) go to the completion's `hint`; another
// process's HINT does not. Hint text from NCCL's printIbWcStatusHint (src/transport/net_ib).
BOOST_AUTO_TEST_CASE(hint_lines_attach_to_their_process_event) {
    const auto r = read({
        "[2026-09-09 10:46:33] gpu01:100:200 [1] transport/net_ib/p2p.cc:648 NCCL WARN NET/IB: Got "
        "completion from peer 10.0.0.2<40554> with status=IBV_WC_LOC_PROT_ERR(4) "
        "opcode=IBV_WC_RDMA_WRITE(1) vendor_err=81 hca mlx5_0",
        "gpu02:300:400 [0] NCCL INFO HINT: not ours",
        "gpu01:100:200 [1] NCCL INFO HINT: In many cases this error indicates that ACS is enabled, "
        "which breaks the GPU Direct RDMA protocol.",
        "gpu01:100:200 [1] NCCL INFO HINT: To confirm, set NCCL_NET_GDR_LEVEL=0",
    });
    BOOST_REQUIRE_EQUAL(r.events.size(), 1u);
    BOOST_TEST(*r.events[0].wc_status == 4);
    BOOST_TEST(r.events[0].hint ==
               "In many cases this error indicates that ACS is enabled, which breaks the GPU "
               "Direct RDMA protocol. To confirm, set NCCL_NET_GDR_LEVEL=0");
    BOOST_TEST(!rh::joblog::is_nccl_line("gpu01:100:200 [1] NCCL INFO HINT: To confirm"));
}

// A line cut inside the status gives the event without a status, and a note; never "status=1".
BOOST_AUTO_TEST_CASE(cut_inside_the_status_reads_no_number) {
    const auto r = read({
        "hostname-test:984:1357 [4] ib_plugin.c:1615 NCCL WARN NET/IB : Got completion from peer "
        "172.36.143.59<44206> with status=1",
        "ubuntu2:319733:319761 [1] p2p.cc:648 NCCL WARN NET/IB: Got completion from peer "
        "10.153.235.13<40554> with status=IBV_WC_RETRY_EXC_ERR(1",
        "ubuntu2:319733:319761 [1] p2p.cc:648 NCCL WARN NET/IB: Got comp",
        "ubuntu2:319733:319761 [1] p2p.cc:648 NCCL WA",
        "hostname-test:984:1357 [4] ib_plugin.c:1615 NCCL WARN NET/IB : Got completion from peer "
        "172.36.1",
    });
    BOOST_REQUIRE_EQUAL(r.events.size(), 3u);
    for (const auto& e : r.events) {
        BOOST_TEST(e.kind == "completion_error");
        BOOST_TEST(!e.wc_status.has_value());
        BOOST_TEST(e.peer_ip.empty() == (e.line == 5u));
    }
    BOOST_TEST(r.notes.size() == 3u);
    BOOST_TEST(r.notes[0] ==
               "logs/nccl.log:1: NCCL completion error line cut short; status not read");
}

// --- async events --------------------------------------------------------------------------

// <= 2.19: no device. NVIDIA/nccl#905, Lightning-AI/lit-llama#380.
BOOST_AUTO_TEST_CASE(async_up_to_2_19) {
    const auto e = one(
        "...-48:34050:34121 [0] transport/net_ib.cc:93 NCCL WARN NET/IB : Got async event : port "
        "error");
    BOOST_TEST(e.kind == "async_event");
    BOOST_TEST(e.status_text == "port error");
    BOOST_TEST(e.device.empty());
    BOOST_TEST(*e.pid == 34050u);
}

// mpirun --timestamp-output with "[1,12]<stdout>:" glued to the host; the catastrophic event
// and the call failure after it. NVIDIA/nccl#230.
BOOST_AUTO_TEST_CASE(async_and_call_failure_with_mpirun_prefix) {
    const auto r = read({
        "2019-06-02T16:13:44.884Z: [1,12]<stdout>:container-e275-1553839402050-12124-01-000057:"
        "815:864 [0] transport/net_ib.cu:80 NCCL WARN NET/IB : Got async event : local "
        "catastrophic error",
        "2019-06-02T16:13:44.884Z: [1,12]<stdout>:",
        "2019-06-02T16:13:44.884Z: [1,12]<stdout>:container-e275-1553839402050-12124-01-000057:"
        "815:864 [0] misc/ibvwrap.cu:220 NCCL WARN Call to ibv_get_async_event failed",
    });
    BOOST_REQUIRE_EQUAL(r.events.size(), 2u);
    const auto& a = r.events[0];
    BOOST_TEST(a.kind == "async_event");
    BOOST_TEST(a.status_text == "local catastrophic error");
    BOOST_TEST(a.host == "container-e275-1553839402050-12124-01-000057");
    BOOST_TEST(*a.pid == 815u);
    BOOST_TEST((a.clock == LogClock::wall));
    BOOST_TEST(near(a.time_s, 1559492024.884));
    const auto& c = r.events[1];
    BOOST_TEST(c.kind == "call_failed");
    BOOST_TEST(c.status_text == "ibv_get_async_event failed");
    BOOST_TEST(c.line == 3u);
}

// Async events that name their device and port, one row per form.
BOOST_AUTO_TEST_CASE(async_with_device_and_port) {
    struct Row {
        const char* line;
        const char* device;
        const char* words;
    };
    const Row rows[] = {
        // 2.20-2.22: device:port before "Got async event". NVIDIA/nccl#1710, #1524.
        {"node201:127799:127863 [0] transport/net_ib.cc:101 NCCL WARN NET/IB : mlx5_0:1 Got async "
         "event : local access violation work queue error",
         "mlx5_0", "local access violation work queue error"},
        // 2.23-2.27: "async fatal event on QP (ptr): words". NVIDIA/nccl#1919 (2.25.1).
        {"node-0:139577:139678 [0] transport/net_ib.cc:154 NCCL WARN NET/IB : mlx5_1:1 async fatal "
         "event on QP (0x7309dc3bb338): invalid request local work queue error",
         "mlx5_1", "invalid request local work queue error"},
    };
    for (const auto& row : rows) {
        const auto e = one(row.line);
        BOOST_TEST(e.kind == "async_event");
        BOOST_TEST(e.device == row.device);
        BOOST_TEST(e.port == 1u);
        BOOST_TEST(e.status_text == row.words);
    }
}

// 2.23-2.27 device fatal and the non-fatal "Got async error event" (NCCL's net_ib.cc
// ncclIbAsyncThreadMain format strings of those releases; no public paste found).
BOOST_AUTO_TEST_CASE(async_2_23_device_fatal_and_error_event) {
    const auto r = read({
        "gpu01:100:150 [3] transport/net_ib.cc:120 NCCL WARN NET/IB : mlx5_3:1 async fatal event: "
        "local catastrophic error",
        "gpu01:100:150 [3] transport/net_ib.cc:140 NCCL WARN NET/IB : mlx5_3:1 Got async error "
        "event: port error",
    });
    BOOST_REQUIRE_EQUAL(r.events.size(), 2u);
    BOOST_TEST(r.events[0].status_text == "local catastrophic error");
    BOOST_TEST(r.events[0].device == "mlx5_3");
    BOOST_TEST(r.events[1].status_text == "port error");
    BOOST_TEST(r.events[1].port == 1u);
}

// 2.28+: "Got non-fatal async event: port error(10)" behind srun -l's "1000: " and NCCL's local
// stamp (NVIDIA nvidia-resiliency-ext restart-agent fixtures), and "GID table changed"
// (NVIDIA/nccl#1819; format from net_ib.cc).
BOOST_AUTO_TEST_CASE(async_2_28_non_fatal_and_gid_change) {
    const auto r = read({
        "1000: [2026-02-02 12:15:56] nvl72026-T11:393849:395082 [0] transport/net_ib.cc:253 NCCL "
        "WARN NET/IB : mlx5_3:1 Got non-fatal async event: port error(10)",
        "12: gpu07:2211:2290 [5] transport/net_ib.cc:240 NCCL WARN NET/IB : mlx5_5:1 GID table "
        "changed",
    });
    BOOST_REQUIRE_EQUAL(r.events.size(), 2u);
    const auto& a = r.events[0];
    BOOST_TEST(a.status_text == "port error");
    BOOST_TEST(a.device == "mlx5_3");
    BOOST_TEST(a.port == 1u);
    BOOST_TEST(a.host == "nvl72026-T11");
    BOOST_TEST(*a.pid == 393849u);
    BOOST_TEST((a.clock == LogClock::local));
    BOOST_TEST(near(a.time_s, 1770034556.0));
    BOOST_TEST(r.events[1].status_text == "GID table changed");
    BOOST_TEST(r.events[1].device == "mlx5_5");
    BOOST_TEST(r.events[1].host == "gpu07");
}

// --- the devices NET/IB uses ----------------------------------------------------------------

// RoCE with [RO] and OOB. NVIDIA/nccl#2397; NVIDIA/nccl-tests#227 (irdma).
BOOST_AUTO_TEST_CASE(using_devices_one_event_each) {
    const auto r = read({
        "ubuntu2:321050:321050 [1] NCCL INFO NET/IB : Using [0]mlx5_0:1/RoCE [1]mlx5_1:1/RoCE "
        "[RO]; OOB ens16f1:10.153.235.11<0>",
        "ai-worker01:5771:5783 [0] NCCL INFO NET/IB : Using [0]irdma0:1/RoCE [1]irdma3:1/RoCE "
        "[RO]; OOB eth0:172.16.121.86<0>",
    });
    BOOST_REQUIRE_EQUAL(r.events.size(), 4u);
    BOOST_TEST(r.events[0].kind == "using_device");
    BOOST_TEST(r.events[0].device == "mlx5_0");
    BOOST_TEST(r.events[0].port == 1u);
    BOOST_TEST(r.events[0].local_ip == "10.153.235.11");
    BOOST_TEST(r.events[0].host == "ubuntu2");
    BOOST_TEST(r.events[1].device == "mlx5_1");
    BOOST_TEST(r.events[1].line == 1u);
    BOOST_TEST(r.events[3].device == "irdma3");
    BOOST_TEST(r.events[3].local_ip == "172.16.121.86");
}

// InfiniBand, port 1 of four HCAs, " ; OOB". ROCm/rccl#419.
BOOST_AUTO_TEST_CASE(using_devices_ib_and_cut_list) {
    const auto r = read({
        "e05r3n09:929:929 [2] NCCL INFO NET/IB : Using [0]mlx5_3:1/IB [1]mlx5_2:1/IB "
        "[2]mlx5_1:1/IB [3]mlx5_0:1/IB ; OOB ib0:11.5.5.50<0>",
        // Cut inside the third device: the whole ones only.
        "e05r3n09:926:926 [3] NCCL INFO NET/IB : Using [0]mlx5_3:1/IB [1]mlx5_2:1/IB [2]mlx5_1",
    });
    BOOST_REQUIRE_EQUAL(r.events.size(), 6u);
    BOOST_TEST(r.events[3].device == "mlx5_0");
    BOOST_TEST(r.events[3].local_ip == "11.5.5.50");
    BOOST_TEST(r.events[5].device == "mlx5_2");
    BOOST_TEST(r.events[5].local_ip.empty());
}

// --- settings --------------------------------------------------------------------------------

// "set by environment to X." (newer, with a period) and without (older). NVIDIA/nccl#2397
// (NCCL_IB_GID_INDEX 3, NCCL_IB_TC 162), #1657 (NCCL_IB_GID_INDEX 0), #1053
// (NCCL_SOCKET_IFNAME, no period; also "NCCL_IB_HCA set to" in #2397).
BOOST_AUTO_TEST_CASE(settings_set_by_environment) {
    const auto r = read({
        "ubuntu2:321050:321135 [1] NCCL INFO NCCL_IB_GID_INDEX set by environment to 3.",
        "ubuntu2:321050:321135 [1] NCCL INFO NCCL_IB_TC set by environment to 162.",
        "aigc-maas-instance-leader-0:88:159 [0] NCCL INFO NCCL_IB_GID_INDEX set by environment to "
        "0.",
        "axa:3048391:3048566 [0] NCCL INFO NCCL_SOCKET_IFNAME set by environment to lo",
        "vm-host38:33957:34013 [0] NCCL INFO NCCL_IB_TIMEOUT set by environment to 21.",
        "gpu01:1:2 [0] NCCL INFO NCCL_IB_SL set by environment to 3.",
        "gpu01:1:2 [0] NCCL INFO NCCL_IB_RETRY_CNT set by environment to 7.",
        "gpu01:1:2 [0] NCCL INFO NCCL_IB_HCA set by environment to mlx5_0:1,mlx5_1:1",
        // Not a fabric setting: no event.
        "axa:3048391:3048566 [0] NCCL INFO NCCL_P2P_LEVEL set by environment to NVL.",
    });
    BOOST_REQUIRE_EQUAL(r.events.size(), 8u);
    for (const auto& e : r.events) BOOST_TEST(e.kind == "setting");
    BOOST_TEST(r.events[0].settings.at("NCCL_IB_GID_INDEX") == "3");
    BOOST_TEST(*r.events[0].gid_index == 3u);
    BOOST_TEST(r.events[1].settings.at("NCCL_IB_TC") == "162");
    BOOST_TEST(*r.events[1].traffic_class == 162u);
    BOOST_TEST(*r.events[2].gid_index == 0u);
    BOOST_TEST(r.events[2].host == "aigc-maas-instance-leader-0");
    BOOST_TEST(r.events[3].settings.at("NCCL_SOCKET_IFNAME") == "lo");
    BOOST_TEST(r.events[4].settings.at("NCCL_IB_TIMEOUT") == "21");
    BOOST_TEST(*r.events[5].sl == 3u);
    BOOST_TEST(r.events[6].settings.at("NCCL_IB_RETRY_CNT") == "7");
    BOOST_TEST(r.events[7].settings.at("NCCL_IB_HCA") == "mlx5_0:1,mlx5_1:1");
    BOOST_TEST(!r.events[7].gid_index.has_value());
}

// The "NCCL_X=Y" form (as the brief names it; no public paste found) and "NCCL_X set to Y"
// (NVIDIA/nccl#2397: "NCCL_IB_HCA set to mlx5_0,mlx5_1").
BOOST_AUTO_TEST_CASE(settings_other_forms) {
    const auto r = read({
        "gpu01:1:2 [0] NCCL INFO NCCL_IB_TC=106",
        "ubuntu2:321050:321050 [1] NCCL INFO NCCL_IB_HCA set to mlx5_0,mlx5_1",
    });
    BOOST_REQUIRE_EQUAL(r.events.size(), 2u);
    BOOST_TEST(*r.events[0].traffic_class == 106u);
    BOOST_TEST(r.events[1].settings.at("NCCL_IB_HCA") == "mlx5_0,mlx5_1");
}

// --- verbs call failures (misc/ibvwrap.cc) --------------------------------------------------

// <= 2.26: "failed with error <strerror>". NVIDIA/nccl-tests#227 (title), #185; NVIDIA/nccl#718.
BOOST_AUTO_TEST_CASE(call_failed_with_error_words) {
    const auto r = read({
        "ai-worker01:5771:5783 [0] misc/ibvwrap.c:160 NCCL WARN Call to ibv_modify_qp failed with "
        "error Connection timed out",
        "dgxh100-3:2152176:2152299 [0] misc/ibvwrap.cc:187 NCCL WARN Call to ibv_modify_qp failed "
        "with error Network is unreachable",
    });
    BOOST_REQUIRE_EQUAL(r.events.size(), 2u);
    BOOST_TEST(r.events[0].kind == "call_failed");
    BOOST_TEST(r.events[0].status_text == "ibv_modify_qp failed: Connection timed out");
    BOOST_TEST(r.events[1].status_text == "ibv_modify_qp failed: Network is unreachable");
    BOOST_TEST(!r.events[0].wc_status.has_value());
}

// 2.27+: errno, device, states, GID index and GIDs; pid redacted in the paste; HINT after it.
// NVIDIA/nccl#2013; hint text from ibvwrap.cc printIbModifyQpHint.
BOOST_AUTO_TEST_CASE(call_failed_2_27_details_and_hint) {
    const auto r = read({
        "[2026-03-13 22:26:02] host-01.example.com:XXXXXX [5] ibvwrap.c:262 NCCL WARN Call to "
        "ibv_modify_qp failed with 110 Connection timed out, on dev mlx_x:1, curr state INIT, next "
        "state RTR, local GID index 3, local GID ::ffff:10.1.2.3, remote GID ::ffff:10.1.9.9",
        "host-01.example.com:XXXXXX [5] NCCL INFO HINT: In many cases this error indicates that "
        "the NICs are not cross-rail connected.",
    });
    BOOST_REQUIRE_EQUAL(r.events.size(), 1u);
    const auto& e = r.events[0];
    BOOST_TEST(e.kind == "call_failed");
    BOOST_TEST(e.status_text == "ibv_modify_qp failed: Connection timed out (errno 110)");
    BOOST_TEST(e.host == "host-01.example.com");
    BOOST_TEST(!e.pid.has_value());
    BOOST_TEST(e.device == "mlx_x");
    BOOST_TEST(e.port == 1u);
    BOOST_TEST(*e.gid_index == 3u);
    BOOST_TEST(e.local_gid == "::ffff:10.1.2.3");
    BOOST_TEST(e.peer_gid == "::ffff:10.1.9.9");
    BOOST_TEST((e.clock == LogClock::local));
    BOOST_TEST(near(e.time_s, 1773440762.0));
    BOOST_TEST(e.hint ==
               "In many cases this error indicates that the NICs are not cross-rail "
               "connected.");
}

// ibv_create_qp without "Call to" (the brief's shape).
BOOST_AUTO_TEST_CASE(call_failed_bare) {
    const auto e = one("gpu01:10:20 [2] NCCL WARN NET/IB : ibv_create_qp failed");
    BOOST_TEST(e.kind == "call_failed");
    BOOST_TEST(e.status_text == "ibv_create_qp failed");
}

// --- lines that are not events --------------------------------------------------------------

// The bulk of an INFO log, and WARNs about other things. NVIDIA/nccl#1814, #2397, #1657.
BOOST_AUTO_TEST_CASE(benign_lines_give_no_event) {
    const std::vector<std::string> lines{
        "hostname-test:983:1261 [3] NCCL INFO Connected NVLS tree",
        "hostname-test:984:1257 [4] NCCL INFO comm 0x557fe785f7a0 rank 36 nranks 64 cudaDev 4 "
        "nvmlDev 4 busId 9b000 commId 0x5ae77eb5ea4ec1ee - Init COMPLETE",
        "hostname-test:984:1357 [4] NCCL INFO transport/net.cc:1298 -> 6",
        "ubuntu2:321049:321049 [0] NCCL INFO Bootstrap: Using ens16f1:10.153.235.11<0>",
        "ubuntu2:321049:321049 [0] NCCL INFO NCCL version 2.30.4+cuda13.3",
        "NCCL version 2.21.5+cuda12.4",
        "[2026-09-09 11:29:56] ubuntu2:321049:321049 [0] ras/client_support.cc:181 NCCL WARN Call "
        "to bind failed: Address already in use",
        "[2026-09-09 10:46:33] ubuntu2:319733:319761 [1] transport/net_ib/p2p.cc:783 NCCL WARN "
        "NET/IB: ncclIbTest: Got CQE with error (devIndex=0, req=0x7fccfc04e028, "
        "comm=0x7fccfc04e000 (recv), wr_id=0, qp_num=26257)",
        "aigc-maas-instance-leader-0:88:159 [0] NCCL INFO NET/IB: NCCL Dev 0 IbDev 0 Port 1 qpn "
        "1047 mtu 5 query_ece={supported=1, vendor_id=0x15b3, options=0x0, comp_mask=0x0} GID 0 "
        "(80FE/1A8A41FEFF21A75E) fifoRkey=0x15e6c5 fifoLkey=0x15e6c5",
        "mpirun -x NCCL_IB_GID_INDEX=3 -x NCCL_IB_TC=106 ./all_reduce_perf",
        "",
    };
    for (const auto& l : lines) BOOST_TEST(!rh::joblog::is_nccl_line(l), l);
    const auto r = read(lines);
    BOOST_TEST(r.events.empty());
    BOOST_TEST(r.notes.empty());
}

// --- shapes: CRLF, extra spaces, launcher prefixes -------------------------------------------

BOOST_AUTO_TEST_CASE(crlf_and_repeated_spaces) {
    const auto e = one(
        "hostname-test:984:1357  [4]  ib_plugin.c:1615  NCCL  WARN  NET/IB :  Got completion from "
        "peer  172.36.143.59<44206>  with status=12  opcode=129 len=65536 vendor err 129 (Recv)  "
        "localGid ::ffff:29.87.88.182 remoteGids::ffff:29.87.4.221\r");
    BOOST_TEST(e.host == "hostname-test");
    BOOST_TEST(*e.wc_status == 12);
    BOOST_TEST(e.peer_ip == "172.36.143.59");
    BOOST_TEST(e.peer_gid == "::ffff:29.87.4.221");  // no "\r"
    BOOST_TEST(e.text.back() != '\r');
}

// kubectl logs --timestamps (a wall clock with zone) and srun -l before the host.
BOOST_AUTO_TEST_CASE(kubectl_and_srun_prefixes) {
    const auto r = read({
        "2024-05-01T10:00:00.123456789Z mycl-g2:353236:353423 [6] transport/net_ib.cc:2244 NCCL "
        "WARN NET/IB: Got completion from peer 192.168.3.5<53908> with status=12 opcode=129 "
        "len=1048576 vendor err 129 (Recv) localGid ::ffff:192.168.6.3 "
        "remoteGids::ffff:192.168.6.5 "
        "hca mlx5_10",
        "3: mycl-g2:353236:353423 [6] NCCL INFO NCCL_IB_TC set by environment to 106.",
    });
    BOOST_REQUIRE_EQUAL(r.events.size(), 2u);
    BOOST_TEST((r.events[0].clock == LogClock::wall));
    BOOST_TEST(near(r.events[0].time_s, 1714557600.123457));
    BOOST_TEST(r.events[0].host == "mycl-g2");
    BOOST_TEST(r.events[1].host == "mycl-g2");
    BOOST_TEST(*r.events[1].pid == 353236u);
    BOOST_TEST((r.events[1].clock == LogClock::order));
}

// journalctl (local, no year; "python[1234]" is not the GPU bracket).
BOOST_AUTO_TEST_CASE(journalctl_prefix) {
    const auto e = one(
        "Jan 14 16:20:05 gpu01 python[1234]: gpu01:1234:1250 [3] transport/net_ib.cc:93 NCCL WARN "
        "NET/IB : Got async event : port error");
    BOOST_TEST(e.host == "gpu01");
    BOOST_TEST(*e.pid == 1234u);
    BOOST_TEST((e.clock == LogClock::local));
    BOOST_TEST(e.year_unknown);
    BOOST_TEST(near(e.time_s, 13 * 86400 + 16 * 3600 + 20 * 60 + 5));
}

// The bracket is the local GPU index: two hosts with the same [4] stay two hosts.
BOOST_AUTO_TEST_CASE(cuda_dev_is_not_identity) {
    const auto r = read({
        "gpu01:10:11 [4] net_ib.cc:1 NCCL WARN NET/IB : Got async event : port error",
        "gpu02:10:11 [4] net_ib.cc:1 NCCL WARN NET/IB : Got async event : port error",
    });
    BOOST_REQUIRE_EQUAL(r.events.size(), 2u);
    BOOST_TEST(r.events[0].host == "gpu01");
    BOOST_TEST(r.events[1].host == "gpu02");
}

// The text is the line, trimmed, at most 400 bytes.
BOOST_AUTO_TEST_CASE(text_is_capped) {
    const std::string line =
        "gpu01:10:11 [4] net_ib.cc:1 NCCL WARN NET/IB : Got async event : " + std::string(600, 'x');
    const auto e = one(line);
    BOOST_TEST(e.text.size() == 400u);
}

// A completion error pasted without NCCL's head (the message only, as tickets quote it).
BOOST_AUTO_TEST_CASE(completion_without_its_head_has_no_host) {
    const auto e =
        one("NET/IB : Got completion from peer 10.0.0.2<56789> with error 12, opcode 0, len 0, "
            "vendor err 129");
    BOOST_TEST(e.kind == "completion_error");
    BOOST_TEST(e.host.empty());
    BOOST_TEST(e.peer_ip == "10.0.0.2");
    BOOST_TEST(*e.wc_status == 12);
}

BOOST_AUTO_TEST_SUITE_END()
