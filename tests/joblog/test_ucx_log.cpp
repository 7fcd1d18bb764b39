// The ucx reader (collectors/joblog/ucx_log.cpp): one case per form the log has taken. Lines are
// copied in the shape public threads show (cited per case); where no thread shows a form, the
// line follows UCX's own format string (cited by file).
#include <boost/test/unit_test.hpp>

#include <infiniband/verbs.h>

#include <cstdio>

#include "collectors/joblog/job_logs.h"
#include "core/wc_status.h"

// Named, not anonymous: the joblog tests build as one unity file.
namespace ucx_test {

rh::joblog::LogRead read(const std::vector<std::string>& lines) {
    rh::joblog::LogRead out;
    rh::joblog::read_ucx({"t0", "ucx.log", lines}, out);
    return out;
}

const auto tol = boost::test_tools::tolerance(1e-6);

}  // namespace ucx_test

BOOST_AUTO_TEST_SUITE(test_ucx_log)

// The ordinary log line with its epoch stamp (src/ucs/debug/log.c UCS_LOG_FMT; the message as in
// openucx/ucx#6000 and #5199, the stamp and level as in #5174).
BOOST_AUTO_TEST_CASE(error_line_with_epoch_stamp) {
    const auto out =
        ucx_test::read({"[1698765432.123456] [gpu01:12345:0] ib_mlx5_log.c:143 UCX ERROR "
                        "Transport retry count exceeded on mlx5_0:1/RoCE (synd 0x15 vend 0x81 "
                        "hw_synd 0/0)"});
    BOOST_TEST_REQUIRE(out.events.size() == 1u);
    const auto& e = out.events[0];
    BOOST_TEST(e.reader == "ucx");
    BOOST_TEST(e.kind == "completion_error");
    BOOST_TEST(e.source == "t0/ucx.log:1");
    BOOST_TEST((e.clock == rh::LogClock::wall));
    BOOST_TEST(e.time_s == 1698765432.123456, ucx_test::tol);
    BOOST_TEST(e.host == "gpu01");
    BOOST_TEST(*e.pid == 12345u);
    BOOST_TEST(e.device == "mlx5_0");
    BOOST_TEST(e.port == 1u);
    BOOST_TEST(*e.syndrome == 0x15u);
    BOOST_TEST(*e.wc_status == 12);
    BOOST_TEST(*e.vendor_err == 0x81u);
    BOOST_TEST(e.status_text == "transport retry counter exceeded");
    BOOST_TEST(out.notes.empty());
}

// openucx/ucx#5174: "UCX  ERROR" padded, IB link layer, the RC QP line that follows (no peer
// bracket before UCX 1.11) still gives the local QP and the opcode.
BOOST_AUTO_TEST_CASE(padded_level_and_rc_qp_line_without_peer) {
    const auto out = ucx_test::read(
        {"[1589621202.437750] [jazz11:137347:0]    ib_mlx5_log.c:143  UCX  ERROR Transport retry "
         "count exceeded on mlx5_0:1/IB (synd 0x15 vend 0x81 hw_synd 0/0)",
         "[1589621202.437750] [jazz11:137347:0]    ib_mlx5_log.c:143  UCX  ERROR RC QP 0x12434 "
         "wqe[2]: SEND s-- [inl len 10] [va 0x7fb668307060 len 4096 lkey 0x26b254]"});
    BOOST_TEST_REQUIRE(out.events.size() == 1u);
    const auto& e = out.events[0];
    BOOST_TEST(e.host == "jazz11");
    BOOST_TEST(*e.pid == 137347u);
    BOOST_TEST(*e.wc_status == 12);
    BOOST_TEST(*e.qpn == 0x12434u);
    BOOST_TEST(*e.opcode == static_cast<int>(IBV_WC_SEND));
    BOOST_TEST(e.direction == "send");
    BOOST_TEST(!e.peer_qpn);
}

// The fatal path (no stamp, no level: ucs_fatal_error_message) and the DC QP line with the WQE's
// address vector, as openucx/ucx#6000 printed them, with two processes interleaved: each QP
// line fills the error of its own host:pid:tid.
BOOST_AUTO_TEST_CASE(fatal_path_with_dc_qp_lines_interleaved) {
    const auto out = ucx_test::read(
        {"[compute001:31180:0:31180] ib_mlx5_log.c:143  Transport retry count exceeded on "
         "mlx5_0:1/RoCE (synd 0x15 vend 0x81 hw_synd 0/0)",
         "[compute001:31175:0:31175] ib_mlx5_log.c:143  Transport retry count exceeded on "
         "mlx5_0:1/RoCE (synd 0x15 vend 0x81 hw_synd 0/0)",
         "[compute001:31175:0:31175] ib_mlx5_log.c:143  DCI QP 0x156d wqe[0]: SEND s-e [rqpn "
         "0x2246f rmac 50:6b:4b:cb:be:ce sgix 0 dgid fe80::526b:4bff:fecb:bece tc 0] [inl len 18]",
         "[compute001:31180:0:31180] ib_mlx5_log.c:143  DCI QP 0x14e4 wqe[0]: SEND s-e [rqpn "
         "0x2248a rmac 0C:42:A1:7D:DF:C8 sgix 0 dgid fe80::e42:a1ff:fe7d:dfc8 tc 106] [inl len "
         "18]"});
    BOOST_TEST_REQUIRE(out.events.size() == 2u);
    const auto& a = out.events[0];
    BOOST_TEST((a.clock == rh::LogClock::order));
    BOOST_TEST(a.line == 1u);
    BOOST_TEST(*a.pid == 31180u);
    BOOST_TEST(*a.qpn == 0x14e4u);
    BOOST_TEST(*a.peer_qpn == 0x2248au);
    BOOST_TEST(a.peer_mac == "0c:42:a1:7d:df:c8");
    BOOST_TEST(a.peer_gid == "fe80::e42:a1ff:fe7d:dfc8");
    BOOST_TEST(*a.gid_index == 0u);
    BOOST_TEST(*a.traffic_class == 106u);
    const auto& b = out.events[1];
    BOOST_TEST(*b.pid == 31175u);
    BOOST_TEST(*b.qpn == 0x156du);
    BOOST_TEST(*b.peer_qpn == 0x2246fu);
    BOOST_TEST(b.peer_mac == "50:6b:4b:cb:be:ce");
    BOOST_TEST(*b.traffic_class == 0u);
}

// RC dumps the QP's ah_attr (UCX >= 1.11, openucx/ucx#6871; format from
// src/uct/ib/base/ib_device.c uct_ib_ah_attr_str). Error words as UCX >= 1.12 prints them.
BOOST_AUTO_TEST_CASE(rc_qp_line_with_ah_attr) {
    const auto out = ucx_test::read(
        {"[1700000100.000200] [gpu02:777:0] ib_mlx5_log.c:177 UCX ERROR Remote access error on "
         "mlx5_1:1/RoCE (synd 0x13 vend 0x88 hw_synd 0/0)",
         "[1700000100.000200] [gpu02:777:0] ib_mlx5_log.c:177 UCX ERROR RC QP 0xd1e wqe[1]: "
         "RDMA_READ s-- [rva 0x7fff90a2f340 rkey 0xdbff7f00] [va 0x7fffb5a15040 len 4032 lkey "
         "0x2ac3ba] [rqpn 0xd1d dlid=0 sl=3 port=1 src_path_bits=0 dgid=::ffff:10.0.0.2 "
         "flow_label=0x1a2b sgid_index=3 traffic_class=106]"});
    BOOST_TEST_REQUIRE(out.events.size() == 1u);
    const auto& e = out.events[0];
    BOOST_TEST(*e.wc_status == static_cast<int>(IBV_WC_REM_ACCESS_ERR));
    BOOST_TEST(e.status_text == "remote access error");
    BOOST_TEST(e.device == "mlx5_1");
    BOOST_TEST(*e.qpn == 0xd1eu);
    BOOST_TEST(*e.peer_qpn == 0xd1du);
    BOOST_TEST(e.peer_gid == "::ffff:10.0.0.2");
    BOOST_TEST(*e.sl == 3u);
    BOOST_TEST(*e.gid_index == 3u);
    BOOST_TEST(*e.traffic_class == 106u);
    BOOST_TEST(*e.opcode == static_cast<int>(IBV_WC_RDMA_READ));
}

// The status comes from the syndrome, whatever words the UCX version used: "Remote access"
// (UCX 1.15, openucx/ucx#9306), "Remote QP" (UCX 1.8, #5472), and the words of
// src/uct/ib/mlx5/ib_mlx5_log.c for local protection, RNR and flush.
BOOST_AUTO_TEST_CASE(status_from_syndrome_whatever_the_words) {
    struct Case {
        const char* words;
        unsigned synd;
        int status;
    };
    const Case cases[] = {
        {"Remote access", 0x13, IBV_WC_REM_ACCESS_ERR},
        {"Remote QP", 0x14, IBV_WC_REM_OP_ERR},
        {"Local protection error", 0x04, IBV_WC_LOC_PROT_ERR},
        {"Receive-no-ready retry count exceeded", 0x16, IBV_WC_RNR_RETRY_EXC_ERR},
        {"WR flushed because QP in error state", 0x05, IBV_WC_WR_FLUSH_ERR},
        {"Local QP operation error", 0x02, IBV_WC_LOC_QP_OP_ERR},
    };
    for (const auto& c : cases) {
        char synd[8];
        std::snprintf(synd, sizeof synd, "%x", c.synd);
        const auto out =
            ucx_test::read({std::string("[xm066:789921:1:790043] ib_mlx5_log.c:171  ") + c.words +
                            " on mlx5_0:1/IB (synd 0x" + synd + " vend 0x88 hw_synd 0/0)"});
        BOOST_TEST_REQUIRE(out.events.size() == 1u);
        BOOST_TEST(*out.events[0].syndrome == c.synd);
        BOOST_TEST(*out.events[0].wc_status == c.status);
        BOOST_TEST(out.events[0].status_text == rh::wc_status_words(c.status));
    }
}

// A syndrome outside MLX5_CQE_SYNDROME_* keeps the status empty and UCX's words.
BOOST_AUTO_TEST_CASE(unknown_syndrome_keeps_ucx_words) {
    const auto out =
        ucx_test::read({"[h:1:0:1] ib_mlx5_log.c:171  Generic on mlx5_0:1/RoCE (synd 0x7e vend "
                        "0x0 hw_synd 0/0)"});
    BOOST_TEST_REQUIRE(out.events.size() == 1u);
    BOOST_TEST(!out.events[0].wc_status);
    BOOST_TEST(out.events[0].status_text == "Generic");
    BOOST_TEST(out.notes.size() == 1u);
}

// UCX 1.5: "FATAL: Error on mlx5_3:1 QP ..." (openucx/ucx#2973), pid padded by "%-5d".
BOOST_AUTO_TEST_CASE(ucx_1_5_fatal_error_on) {
    const auto out =
        ucx_test::read({"[ast1815:6807 :0:6807] ib_mlx5_log.c:115  FATAL: Error on mlx5_3:1 QP "
                        "0xe6d7 wqe[7821]: Transport retry count exceeded (synd 0x15 vend 0x81) "
                        "opcode SEND"});
    BOOST_TEST_REQUIRE(out.events.size() == 1u);
    const auto& e = out.events[0];
    BOOST_TEST(e.host == "ast1815");
    BOOST_TEST(*e.pid == 6807u);
    BOOST_TEST(e.device == "mlx5_3");
    BOOST_TEST(e.port == 1u);
    BOOST_TEST(*e.qpn == 0xe6d7u);
    BOOST_TEST(*e.wc_status == 12);
    BOOST_TEST(*e.vendor_err == 0x81u);
    BOOST_TEST(*e.opcode == static_cast<int>(IBV_WC_SEND));
}

// Verbs transports, rdma-core's words. openucx/ucx#844 (mpirun --timestamp-output prefix).
BOOST_AUTO_TEST_CASE(rc_verbs_send_completion_with_error_old) {
    const auto out =
        ucx_test::read({"Wed Jun 22 15:48:08 2016[1,43]<stdout>:[1466599688.714393] "
                        "[vegas30:25196:0] rc_verbs_iface.c:47   UCX  ERROR Send completion with "
                        "error: transport retry counter exceeded"});
    BOOST_TEST_REQUIRE(out.events.size() == 1u);
    const auto& e = out.events[0];
    BOOST_TEST(e.host == "vegas30");
    BOOST_TEST(*e.pid == 25196u);
    BOOST_TEST(e.time_s == 1466599688.714393, ucx_test::tol);
    BOOST_TEST(*e.wc_status == 12);
    BOOST_TEST(e.direction == "send");
}

// openucx/ucx#1880: old dc_verbs form, QP and vendor syndrome named.
BOOST_AUTO_TEST_CASE(dc_verbs_send_completion_on_qp) {
    const auto out =
        ucx_test::read({"Sun Oct  1 17:01:10 2017[1,30]<stdout>:[1506866470.744682] "
                        "[clx-hercules-065:1411 :0]       dc_verbs.c:633  UCX  ERROR Send "
                        "completion with error on qp 0x10e55: transport retry counter exceeded "
                        "syndrome 0x81"});
    BOOST_TEST_REQUIRE(out.events.size() == 1u);
    const auto& e = out.events[0];
    BOOST_TEST(e.host == "clx-hercules-065");
    BOOST_TEST(*e.pid == 1411u);
    BOOST_TEST(*e.qpn == 0x10e55u);
    BOOST_TEST(*e.wc_status == 12);
    BOOST_TEST(*e.vendor_err == 0x81u);
}

// openucx/ucx#5318: "... qpn 0x.. wrid 0x.. vendor_err 0x.." (UCX 1.8 rc_verbs).
BOOST_AUTO_TEST_CASE(rc_verbs_with_qpn_and_vendor_err) {
    const auto out =
        ucx_test::read({"[compute-18:26540:0:26540] rc_verbs_iface.c:65   send completion with "
                        "error: local QP operation error qpn 0x350406 wrid 0x38 vendor_err 0x70"});
    BOOST_TEST_REQUIRE(out.events.size() == 1u);
    const auto& e = out.events[0];
    BOOST_TEST(*e.wc_status == static_cast<int>(IBV_WC_LOC_QP_OP_ERR));
    BOOST_TEST(*e.qpn == 0x350406u);
    BOOST_TEST(*e.vendor_err == 0x70u);
}

// Newer rc_verbs: the peer's ah_attr on the next line (src/uct/ib/rc/verbs/rc_verbs_iface.c,
// openucx/ucx#6871), which fills the error.
BOOST_AUTO_TEST_CASE(rc_verbs_with_peer_line) {
    const auto out = ucx_test::read(
        {"[1700000200.5] [gpu03:99:0] rc_verbs_iface.c:125 UCX ERROR send completion with "
         "error: transport retry counter exceeded [qpn 0x92c wrid 0x2 vendor_err 0x81]",
         "[1700000200.5] [gpu03:99:0] rc_verbs_iface.c:125 UCX ERROR [rqpn 0x92b dlid=0 sl=0 "
         "port=1 src_path_bits=0 dgid=::ffff:10.0.0.7 flow_label=0x0 sgid_index=3 "
         "traffic_class=106]"});
    BOOST_TEST_REQUIRE(out.events.size() == 1u);
    const auto& e = out.events[0];
    BOOST_TEST(*e.qpn == 0x92cu);
    BOOST_TEST(*e.vendor_err == 0x81u);
    BOOST_TEST(*e.peer_qpn == 0x92bu);
    BOOST_TEST(e.peer_gid == "::ffff:10.0.0.7");
    BOOST_TEST(*e.traffic_class == 106u);
    BOOST_TEST(*e.sl == 0u);
}

// Any provider through the verbs transports: "<send|receive> completion[N] with error on
// <dev>/<iface>: <words>, vendor_err 0x.. wr_id 0x.." (src/uct/ib/base/ib_iface.h
// UCT_IB_IFACE_VERBS_COMPLETION_MSG). mlx5 as openucx/ucx#3851 printed it; bnxt_re and irdma in
// the same format.
BOOST_AUTO_TEST_CASE(verbs_completion_index_form_any_provider) {
    auto out =
        ucx_test::read({"[hpc-test-node4:29626:0:29626] rc_verbs_impl.h:122  Fatal: receive "
                        "completion[0] with error on mlx5_2/0x4489390: Work Request Flushed Error, "
                        "vendor_err 0xf9 wr_id 0x7fffd1c3ec6d"});
    BOOST_TEST_REQUIRE(out.events.size() == 1u);
    BOOST_TEST(out.events[0].device == "mlx5_2");
    BOOST_TEST(out.events[0].port == 0u);
    BOOST_TEST(*out.events[0].wc_status == static_cast<int>(IBV_WC_WR_FLUSH_ERR));
    BOOST_TEST(*out.events[0].vendor_err == 0xf9u);
    BOOST_TEST(out.events[0].direction == "recv");

    out = ucx_test::read(
        {"[1700000300.000001] [node7:4242:0]   ud_verbs.c:300  UCX  ERROR send "
         "completion[3] with error on bnxt_re0/0x55d0c8a0f0: transport retry counter "
         "exceeded, vendor_err 0x7 wr_id 0x1"});
    BOOST_TEST_REQUIRE(out.events.size() == 1u);
    BOOST_TEST(out.events[0].device == "bnxt_re0");
    BOOST_TEST(*out.events[0].wc_status == 12);
    BOOST_TEST(*out.events[0].vendor_err == 0x7u);
    BOOST_TEST(out.events[0].direction == "send");

    out = ucx_test::read(
        {"[1700000300.000002] [node8:4243:0]   ud_verbs.c:300  UCX  ERROR send "
         "completion[0] with error on irdma0/0x1e2f3a0: remote operation error, vendor_err "
         "0x8013 wr_id 0x0"});
    BOOST_TEST_REQUIRE(out.events.size() == 1u);
    BOOST_TEST(out.events[0].device == "irdma0");
    BOOST_TEST(*out.events[0].wc_status == static_cast<int>(IBV_WC_REM_OP_ERR));
    BOOST_TEST(*out.events[0].vendor_err == 0x8013u);
}

// Connection errors that name a peer or a device: ucs/sys/sock.c (openucx/ucx#3513, #9908),
// the old rdmacm reader (rapidsai/dask-cuda#168), ucp_ep.c's unhandled error (shape of #9306).
BOOST_AUTO_TEST_CASE(connection_errors_naming_a_peer_or_device) {
    const auto out = ucx_test::read(
        {"[1555716468.435202] [jazz04:185068:0]           sock.c:116  UCX  ERROR "
         "connect(fd=217, dest_addr=2.1.3.9:45654) failed: Connection timed out",
         "[1716594409.541480] [gpu1:1581047:0] sock.c:323 UCX ERROR connect(fd=87, "
         "dest_addr=172.17.0.1:47133) failed: Connection refused",
         "[1573656987.606494] [dgx11:29685:0]   rdmacm_iface.c:405  UCX  ERROR received event "
         "RDMA_CM_EVENT_UNREACHABLE. status = 2. Peer: 127.0.0.1:45601.",
         "[1692032992.421228] [xm066:789921:1]          ucp_ep.c:1504 UCX  DIAG  ep "
         "0x7ffff4be46c0: error 'Endpoint timeout' on rc_mlx5/mlx5_0:1 will not be handled since "
         "no error callback is installed"});
    BOOST_TEST_REQUIRE(out.events.size() == 4u);
    for (const auto& e : out.events) BOOST_TEST(e.kind == "connect_failed");
    BOOST_TEST(out.events[0].peer_ip == "2.1.3.9");
    BOOST_TEST(out.events[0].status_text == "Connection timed out");
    BOOST_TEST(out.events[1].peer_ip == "172.17.0.1");
    BOOST_TEST(out.events[1].status_text == "Connection refused");
    BOOST_TEST(out.events[2].peer_ip == "127.0.0.1");
    BOOST_TEST(out.events[3].device == "mlx5_0");
    BOOST_TEST(out.events[3].port == 1u);
    BOOST_TEST(out.events[3].status_text == "Endpoint timeout");
}

// Lines that name neither a peer nor a device, benign UCX lines, NCCL and dmesg lines, and a
// source listing in a backtrace give no event.
BOOST_AUTO_TEST_CASE(unrelated_and_benign_lines_give_nothing) {
    const std::vector<std::string> lines{
        "[gpu1:1581048] pml_ucx.c:419 Error: ucp_ep_create(proc=9) failed: Destination is "
        "unreachable",
        "[1506866470.744722] [clx-hercules-065:1411 :0]     ucp_worker.c:373  UCX  ERROR Error "
        "Endpoint timeout was not handled for ep 0x9ce460",
        "[1629615908.043472] [mlx-stud-01:26236:0]       ib_device.c:1168 UCX  TRACE mlx5_0:2 "
        "does not support flags 0x0: Destination is unreachable",
        "[1692032992.421228] [xm066:789921:1]          ucp_ep.c:1504 UCX  DIAG  ep 0x7ffff4be46c0: "
        "error 'Connection reset by remote peer' on rc_mlx5/mlx5_0:1 will not be handled since no "
        "error callback is installed",
        "[1660697766.105392] [node001:113246:0]      ucp_worker.c:1956 UCX  INFO    ep_cfg[0]: "
        "tag(cuda_copy/cuda); rma(cuda_copy/cuda);",
        "gpu01:1234:1250 [3] NCCL INFO NET/IB : Using [0]mlx5_0:1/RoCE [1]mlx5_1:1/RoCE ; OOB "
        "eth0:10.0.0.1<0>",
        "gpu01:1234:1250 [3] NCCL INFO Channel 00/0 : 0[3] -> 1[3] [send] via NET/IB/0",
        "gpu01:1234:1250 [3] include/socket.h:403 NCCL WARN Net : Connect to 10.0.0.2<43611> "
        "failed : Connection refused",
        "[ 1234.567890] mlx5_core 0000:3b:00.0: mlx5_port_module_event:1105:(pid 0): Port module "
        "event: module 0, Cable plugged",
        "[Mon Jan 14 16:20:05 2024] mlx5_core 0000:3b:00.0 ens1f0np0: Link down",
        " 1 0x000000000002cf1c uct_ib_mlx5_completion_with_err()  "
        "/home/abuild/rpmbuild/BUILD/ucx-1.5.20181220/src/uct/ib/mlx5/ib_mlx5_log.c:112",
        "==>   136             \"%s on \"UCT_IB_IFACE_FMT\"/%s (synd 0x%x vend 0x%x hw_synd "
        "%d/%d)\\n\"",
        "",
    };
    const auto out = ucx_test::read(lines);
    BOOST_TEST(out.events.empty());
    for (const auto& l : lines) BOOST_TEST(!rh::joblog::is_ucx_line(l), l);
}

BOOST_AUTO_TEST_CASE(is_ucx_line_for_each_form) {
    BOOST_TEST(
        rh::joblog::is_ucx_line("[h:1:0:1] ib_mlx5_log.c:143  Transport retry count "
                                "exceeded on mlx5_0:1/RoCE (synd 0x15 vend 0x81 hw_synd "
                                "0/0)"));
    BOOST_TEST(
        rh::joblog::is_ucx_line("[h:1:0] sock.c:116  UCX  ERROR connect(fd=2, "
                                "dest_addr=2.1.3.9:4) failed: Connection refused"));
    BOOST_TEST(
        rh::joblog::is_ucx_line("[h:1:0:1] rc_verbs_iface.c:63   FATAL: send completion "
                                "with error: local protection error"));
}

// A line cut at its start (openucx/ucx#9590 pasted "lxbk1127:2330856:0:2330856] ...") still
// gives host and pid; one cut inside a number gives no number.
BOOST_AUTO_TEST_CASE(cut_lines) {
    auto out =
        ucx_test::read({"lxbk1127:2330856:0:2330856] ib_mlx5_log.c:177  Transport retry count "
                        "exceeded on mlx5_0:1/IB (synd 0x15 vend 0x81 hw_synd 0/0)"});
    BOOST_TEST_REQUIRE(out.events.size() == 1u);
    BOOST_TEST(out.events[0].host == "lxbk1127");
    BOOST_TEST(*out.events[0].pid == 2330856u);
    BOOST_TEST(*out.events[0].wc_status == 12);

    out = ucx_test::read(
        {"[gpu01:12345:0:12345] ib_mlx5_log.c:143  Transport retry count exceeded on "
         "mlx5_0:1/RoCE (synd 0x1"});
    BOOST_TEST_REQUIRE(out.events.size() == 1u);
    BOOST_TEST(!out.events[0].syndrome);
    BOOST_TEST(!out.events[0].wc_status);
    BOOST_TEST(out.events[0].device == "mlx5_0");
    BOOST_TEST(out.notes.size() == 1u);

    // Every cut of every form: never a crash, never a wrong number.
    const std::vector<std::string> whole{
        "[1698765432.123456] [gpu01:12345:0] ib_mlx5_log.c:143 UCX ERROR Transport retry count "
        "exceeded on mlx5_0:1/RoCE (synd 0x15 vend 0x81 hw_synd 0/0)",
        "[compute001:31180:0:31180] ib_mlx5_log.c:143  DCI QP 0x14e4 wqe[0]: SEND s-e [rqpn "
        "0x2248a rmac 50:6b:4b:cb:be:ce sgix 0 dgid fe80::526b:4bff:fecb:bece tc 106] [inl len 18]",
        "[ast1815:6807 :0:6807] ib_mlx5_log.c:115  FATAL: Error on mlx5_3:1 QP 0xe6d7 wqe[7821]: "
        "Transport retry count exceeded (synd 0x15 vend 0x81) opcode SEND",
        "[h:1:0:1] rc_verbs_impl.h:122  Fatal: receive completion[0] with error on "
        "bnxt_re0/0x4489390: Work Request Flushed Error, vendor_err 0xf9 wr_id 0x7fffd1c3ec6d",
        "[1555716468.435202] [jazz04:185068:0] sock.c:116  UCX  ERROR connect(fd=217, "
        "dest_addr=2.1.3.9:45654) failed: Connection timed out",
    };
    for (const auto& w : whole) {
        for (std::size_t n = 0; n <= w.size(); ++n) {
            const auto got = ucx_test::read({w.substr(0, n)});
            for (const auto& e : got.events) {
                if (e.wc_status) BOOST_TEST((*e.wc_status == 12 || *e.wc_status == 5));
                if (e.syndrome) BOOST_TEST(*e.syndrome == 0x15u);
                if (e.vendor_err) BOOST_TEST((*e.vendor_err == 0x81u || *e.vendor_err == 0xf9u));
                if (e.qpn) BOOST_TEST((*e.qpn == 0x14e4u || *e.qpn == 0xe6d7u));
                if (e.peer_qpn) BOOST_TEST(*e.peer_qpn == 0x2248au);
                if (e.traffic_class) BOOST_TEST(*e.traffic_class == 106u);
                if (!e.peer_ip.empty()) BOOST_TEST(e.peer_ip == "2.1.3.9");
                if (e.pid)
                    BOOST_TEST((*e.pid == 12345u || *e.pid == 31180u || *e.pid == 6807u ||
                                *e.pid == 1u || *e.pid == 185068u));
                if (!e.peer_gid.empty()) BOOST_TEST(e.peer_gid == "fe80::526b:4bff:fecb:bece");
            }
        }
    }
}

// CRLF, srun -l, mpirun, journalctl and kubectl logs --prefix prefixes, extra spaces.
BOOST_AUTO_TEST_CASE(prefixes_crlf_and_spaces) {
    const std::string msg =
        "[1698765432.123456] [gpu01:12345:0]    ib_mlx5_log.c:143   UCX   ERROR   Transport retry "
        "count exceeded on mlx5_0:1/RoCE (synd 0x15 vend 0x81 hw_synd 0/0)";
    for (const std::string prefix :
         {"", "3: ", "[1,3]<stdout>:", "Jan 14 16:20:05 gpu01 python[12345]: ", "  ",
          "[pod/trainer-0/main] "}) {
        const auto out = ucx_test::read({prefix + msg + "\r"});
        BOOST_TEST_REQUIRE(out.events.size() == 1u, prefix);
        const auto& e = out.events[0];
        BOOST_TEST(e.host == "gpu01");
        BOOST_TEST(*e.pid == 12345u);
        BOOST_TEST(e.time_s == 1698765432.123456, ucx_test::tol);
        BOOST_TEST(*e.wc_status == 12);
        BOOST_TEST(*e.vendor_err == 0x81u);
        BOOST_TEST(e.text.back() != '\r');
    }
}

// The fatal path has no stamp; mpirun --timestamp-output's local one places the line
// (openucx/ucx#2322).
BOOST_AUTO_TEST_CASE(mpirun_timestamp_gives_local_time) {
    const auto out = ucx_test::read(
        {"Tue Feb 27 20:11:35 2018[1,371]<stderr>:[jazz17:172423:0:172423] rc_verbs_iface.c:63   "
         "FATAL: send completion with error: transport retry counter exceeded"});
    BOOST_TEST_REQUIRE(out.events.size() == 1u);
    BOOST_TEST((out.events[0].clock == rh::LogClock::local));
    BOOST_TEST(out.events[0].time_s == 1519762295.0, ucx_test::tol);
    BOOST_TEST(out.events[0].host == "jazz17");
    BOOST_TEST(*out.events[0].wc_status == 12);
}

// UCX's async events (src/uct/ib/base/ib_device.c "IB Async event on <dev>: <event> on ...";
// openucx/ucx#1770 for the DCT form). Teardown's "SRQ-attached QP ... was flushed"
// (openucx/ucx#733) is no event.
BOOST_AUTO_TEST_CASE(async_events) {
    const auto out = ucx_test::read(
        {"[1700000400.1] [gpu04:55:0]      ib_device.c:530  UCX  DIAG  IB Async event on mlx5_0: "
         "port error on port 1",
         "[1700000400.2] [gpu04:55:0]      ib_device.c:530  UCX  ERROR IB Async event on mlx5_0: "
         "local work queue catastrophic error on QPN 0x1a2b",
         "[1502987696.852541] [hpc-test-node2:36589:3]      ib_device.c:171  UCX  ERROR IB Async "
         "event on mlx5_0: DCT access error on DCTN 0x2a8a3",
         "[1461192583.894385] [pod9:16629:1]      ib_device.c:132  UCX  WARN  IB Async event on "
         "mlx4_0: SRQ-attached QP 0x199c6 was flushed"});
    BOOST_TEST_REQUIRE(out.events.size() == 3u);
    for (const auto& e : out.events) BOOST_TEST(e.kind == "async_event");
    BOOST_TEST(out.events[0].device == "mlx5_0");
    BOOST_TEST(out.events[0].port == 1u);
    BOOST_TEST(out.events[0].status_text == "port error");
    BOOST_TEST(*out.events[1].qpn == 0x1a2bu);
    BOOST_TEST(out.events[1].status_text == "local work queue catastrophic error");
    BOOST_TEST(out.events[2].status_text == "DCT access error");
    BOOST_TEST(out.events[2].host == "hpc-test-node2");
}

// A QP line whose error line is not in the file becomes a qp_info event.
BOOST_AUTO_TEST_CASE(orphan_qp_line_is_qp_info) {
    const auto out =
        ucx_test::read({"[compute001:31178:0:31178] ib_mlx5_log.c:143  DCI QP 0x14ec wqe[0]: "
                        "SEND s-e [rqpn 0x22430 rmac 50:6b:4b:cb:be:ce sgix 0 dgid "
                        "fe80::526b:4bff:fecb:bece tc 0] [inl len 18]"});
    BOOST_TEST_REQUIRE(out.events.size() == 1u);
    BOOST_TEST(out.events[0].kind == "qp_info");
    BOOST_TEST(*out.events[0].peer_qpn == 0x22430u);
    BOOST_TEST(*out.events[0].qpn == 0x14ecu);
}

BOOST_AUTO_TEST_SUITE_END()
