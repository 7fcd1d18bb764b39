// The perftest reader (collectors/joblog/perftest_log.cpp): one case per form the log has taken,
// in the shapes public threads show (cited per case) or, where noted, perftest's own format
// strings (src/perftest_resources.h, src/perftest_parameters.h).
#include <boost/test/unit_test.hpp>

#include <infiniband/verbs.h>

#include "collectors/joblog/job_logs.h"

// Named, not anonymous: the joblog tests build as one unity file.
namespace perftest_test {

rh::joblog::LogRead read(const std::vector<std::string>& lines) {
    rh::joblog::LogRead out;
    rh::joblog::read_perftest({"t0", "perftest.log", lines}, out);
    return out;
}

const auto tol = boost::test_tools::tolerance(1e-6);

// A run's header and address lines as perftest prints them (linux-rdma/perftest#342).
std::vector<std::string> header(int qps = 1) {
    std::vector<std::string> h{
        "---------------------------------------------------------------------------------------",
        "                    RDMA_Write BW Test",
        " Dual-port       : OFF\t\tDevice         : mlx5_0",
        " Number of qps   : 1\t\tTransport type : IB",
        " Connection type : RC\t\tUsing SRQ      : OFF",
        " PCIe relax order: ON\t\tLock-free      : OFF",
        " ibv_wr* API     : OFF\t\tUsing DDP      : OFF",
        " TX depth        : 128",
        " Mtu             : 4096[B]",
        " Link type       : Ethernet",
        " GID index       : 3",
        "---------------------------------------------------------------------------------------",
    };
    for (int q = 0; q < qps; ++q) {
        h.push_back(" local address: LID 0000 QPN 0x27d" + std::to_string(8 + q) + " PSN 0x79f042");
        h.push_back(" GID: 00:00:00:00:00:00:00:00:00:00:255:255:192:168:01:39");
    }
    for (int q = 0; q < qps; ++q) {
        h.push_back(" remote address: LID 0000 QPN 0x1c90" + std::to_string(1 + q) +
                    " PSN 0x6726b1");
        h.push_back(" GID: 00:00:00:00:00:00:00:00:00:00:255:255:192:168:01:06");
    }
    h.push_back(
        "---------------------------------------------------------------------------------------");
    return h;
}

}  // namespace perftest_test

BOOST_AUTO_TEST_SUITE(test_perftest_log)

// The older form: "Failed status 12: wr_id 0 syndrom 0x81" on the line after "Completion with
// error at client" (zrlio/softiwarp#27, linux-rdma/perftest#173).
BOOST_AUTO_TEST_CASE(completion_error_old_status_line) {
    const auto out = perftest_test::read({" Completion with error at client",
                                          " Failed status 12: wr_id 0 "
                                          "syndrom 0x81",
                                          "scnt=128, ccnt=0"});
    BOOST_TEST_REQUIRE(out.events.size() == 1u);
    const auto& e = out.events[0];
    BOOST_TEST(e.reader == "perftest");
    BOOST_TEST(e.kind == "completion_error");
    BOOST_TEST(e.source == "t0/perftest.log:1");
    BOOST_TEST((e.clock == rh::LogClock::order));
    BOOST_TEST(*e.wc_status == 12);
    BOOST_TEST(e.status_text == "transport retry counter exceeded");
    BOOST_TEST(*e.vendor_err == 0x81u);
    BOOST_TEST(e.direction == "send");

    const auto lp = perftest_test::read({"Completion with error at client",
                                         "  Failed status 4: wr_id 0 syndrom "
                                         "0x51",
                                         "scnt=828, ccnt=700"});  // perftest#173
    BOOST_TEST_REQUIRE(lp.events.size() == 1u);
    BOOST_TEST(*lp.events[0].wc_status == static_cast<int>(IBV_WC_LOC_PROT_ERR));
    BOOST_TEST(*lp.events[0].vendor_err == 0x51u);
}

// The newer form (linux-rdma/perftest#342, src/perftest_resources.h NOTIFY_COMP_ERROR_*):
// "Failed status-<words> (12): ...", and the server side.
BOOST_AUTO_TEST_CASE(completion_error_new_status_line) {
    const auto out = perftest_test::read(
        {" Completion with error at server",
         " Failed status-transport retry counter exceeded (12): wr_id 0 syndrom "
         "0x81",
         " rcnt=5"});
    BOOST_TEST_REQUIRE(out.events.size() == 1u);
    BOOST_TEST(*out.events[0].wc_status == 12);
    BOOST_TEST(*out.events[0].vendor_err == 0x81u);
    BOOST_TEST(out.events[0].direction == "recv");

    const auto rnr = perftest_test::read(
        {" Completion with error at client",
         " Failed status-RNR retry counter exceeded (13): wr_id 7 syndrom 0x82"});
    BOOST_TEST_REQUIRE(rnr.events.size() == 1u);
    BOOST_TEST(*rnr.events[0].wc_status == static_cast<int>(IBV_WC_RNR_RETRY_EXC_ERR));
}

// Pasted as one line (the title of zrlio/softiwarp#27), and a status line alone (its
// "Completion with error" line cut off the paste).
BOOST_AUTO_TEST_CASE(one_line_paste_and_status_alone) {
    auto out = perftest_test::read(
        {"Completion with error at client Failed status 12: wr_id 0 syndrom 0x81 "
         "scnt=128, ccnt=0"});
    BOOST_TEST_REQUIRE(out.events.size() == 1u);
    BOOST_TEST(*out.events[0].wc_status == 12);
    BOOST_TEST(*out.events[0].vendor_err == 0x81u);

    out = perftest_test::read({" Failed status 12: wr_id 0 syndrom 0x81"});
    BOOST_TEST_REQUIRE(out.events.size() == 1u);
    BOOST_TEST(out.events[0].kind == "completion_error");
    BOOST_TEST(*out.events[0].wc_status == 12);
}

// "Couldn't connect to <host>:<port>" (linux-rdma/perftest#228); a host name names no IP.
BOOST_AUTO_TEST_CASE(couldnt_connect) {
    const auto out = perftest_test::read(
        {"Couldn't connect to 192.168.125.211:18515",
         "Unable to open file descriptor for socket connection Unable to init the socket "
         "connection",
         "Couldn't connect to clx-host-108:18515"});
    BOOST_TEST_REQUIRE(out.events.size() == 2u);
    BOOST_TEST(out.events[0].kind == "connect_failed");
    BOOST_TEST(out.events[0].peer_ip == "192.168.125.211");
    BOOST_TEST(out.events[1].peer_ip == "");
}

// A whole run (linux-rdma/perftest#342's shape): the table gives one slow_result for the largest
// size (its last row), in Gb/s; the run's header fills device, GIDs, QPNs and GID index.
BOOST_AUTO_TEST_CASE(run_with_gbits_table_and_error) {
    auto lines = perftest_test::header();
    for (std::string l :
         {" #bytes     #iterations    BW peak[Gb/sec]    BW average[Gb/sec]   MsgRate[Mpps]",
          " 65536      403504           0.00               42.31                0.080701",
          " 65536      247166           0.00               25.92                0.049434",
          "---------------------------------------------------------------------------------------",
          " Completion with error at client",
          " Failed status-transport retry counter exceeded (12): wr_id 0 syndrom 0x81"})
        lines.push_back(l);
    const auto out = perftest_test::read(lines);
    BOOST_TEST_REQUIRE(out.events.size() == 2u);
    const auto& r = out.events[0];
    BOOST_TEST(r.kind == "slow_result");
    BOOST_TEST(r.line == 20u);  // the last row of the largest size
    BOOST_TEST(*r.value == 25.92, perftest_test::tol);
    BOOST_TEST(r.settings.at("bytes") == "65536");
    BOOST_TEST(r.device == "mlx5_0");
    const auto& e = out.events[1];
    BOOST_TEST(e.kind == "completion_error");
    BOOST_TEST(e.device == "mlx5_0");
    BOOST_TEST(*e.gid_index == 3u);
    BOOST_TEST(e.local_gid == "::ffff:192.168.1.39");
    BOOST_TEST(e.peer_gid == "::ffff:192.168.1.6");
    BOOST_TEST(*e.qpn == 0x27d8u);
    BOOST_TEST(*e.peer_qpn == 0x1c901u);
}

// MB/sec (before 2024) and MiB/sec are both 2^20 byte/s (perftest divides by 0x100000):
// Gb/s = x * 2^20 * 8 / 10^9. Sizes from -a: the largest wins (linux-rdma/perftest#132 shape).
BOOST_AUTO_TEST_CASE(mb_and_mib_tables_convert_to_gbps) {
    for (const char* unit : {"MB/sec", "MiB/sec"}) {
        const std::string u = unit;
        const auto out = perftest_test::read(
            {" #bytes     #iterations    BW peak[" + u + "]    BW average[" + u +
                 "]   MsgRate[Mpps]",
             " 2          5000           5.29               5.27   \t\t   2.636533",
             " 8388608    5000             11534.02            11530.70\t\t   0.001374",
             " 4096       5000           10800.00            10795.10\t\t   2.763546",
             "---------------------------------------------------------------------------------"});
        BOOST_TEST_REQUIRE(out.events.size() == 1u);
        BOOST_TEST(*out.events[0].value == 11530.70 * 1048576 * 8 / 1e9, perftest_test::tol);
        BOOST_TEST(out.events[0].settings.at("bytes") == "8388608");
        BOOST_TEST(out.events[0].line == 3u);
    }
}

// With -q 2 there is no telling which QP failed: qpn stays empty; the GIDs are the run's.
BOOST_AUTO_TEST_CASE(several_qps_leave_qpn_empty) {
    auto lines = perftest_test::header(2);
    lines.push_back(" Completion with error at client");
    lines.push_back(" Failed status 12: wr_id 0 syndrom 0x81");
    const auto out = perftest_test::read(lines);
    BOOST_TEST_REQUIRE(out.events.size() == 1u);
    BOOST_TEST(!out.events[0].qpn);
    BOOST_TEST(!out.events[0].peer_qpn);
    BOOST_TEST(out.events[0].peer_gid == "::ffff:192.168.1.6");
}

// A row cut inside "BW average" is not read (the previous row stands); a table with no whole row
// gives nothing; the end of the file closes a table.
BOOST_AUTO_TEST_CASE(cut_rows) {
    auto out = perftest_test::read(
        {" #bytes     #iterations    BW peak[Gb/sec]    BW average[Gb/sec]   "
         "MsgRate[Mpps]",
         " 4096       5000           90.10              90.05               2.7",
         " 8192       5000           95.10              95.0"});
    BOOST_TEST_REQUIRE(out.events.size() == 1u);
    BOOST_TEST(*out.events[0].value == 90.05, perftest_test::tol);
    out = perftest_test::read(
        {" #bytes     #iterations    BW peak[Gb/sec]    BW average[Gb/sec]   MsgRate[Mpps]",
         " 8192       5000           95.10"});
    BOOST_TEST(out.events.empty());

    // A "Completion with error" line whose status line is cut off is listed, with a note.
    out = perftest_test::read({" Completion with error at client"});
    BOOST_TEST_REQUIRE(out.events.size() == 1u);
    BOOST_TEST(!out.events[0].wc_status);
    BOOST_TEST(out.notes.size() == 1u);

    // Every cut of the status line: never a crash, never a wrong number.
    const std::string w =
        " Failed status-transport retry counter exceeded (12): wr_id 0 syndrom 0x81";
    for (std::size_t n = 0; n <= w.size(); ++n) {
        const auto got = perftest_test::read({" Completion with error at client", w.substr(0, n)});
        BOOST_TEST_REQUIRE(got.events.size() == 1u);
        if (got.events[0].wc_status) BOOST_TEST(*got.events[0].wc_status == 12);
    }
}

// srun -l, mpirun and kubectl prefixes, CRLF, several runs in one file (each with its own device).
BOOST_AUTO_TEST_CASE(prefixes_crlf_and_two_runs) {
    std::vector<std::string> lines;
    for (const auto& l : perftest_test::header()) lines.push_back("0: " + l + "\r");
    lines.push_back("0:  Completion with error at client\r");
    lines.push_back("0:  Failed status 12: wr_id 0 syndrom 0x81\r");
    auto second = perftest_test::header();
    second[2] = " Dual-port       : OFF\t\tDevice         : mlx5_1";
    for (const auto& l : second) lines.push_back("[1,1]<stdout>:" + l);
    lines.push_back("[1,1]<stderr>: Completion with error at server");
    lines.push_back("[pod/bench-1/main] Failed status 5: wr_id 0 syndrom 0xf9");
    const auto out = perftest_test::read(lines);
    BOOST_TEST_REQUIRE(out.events.size() == 2u);
    BOOST_TEST(out.events[0].device == "mlx5_0");
    BOOST_TEST(*out.events[0].wc_status == 12);
    BOOST_TEST(out.events[0].local_gid == "::ffff:192.168.1.39");
    BOOST_TEST(out.events[1].device == "mlx5_1");
    BOOST_TEST(*out.events[1].wc_status == static_cast<int>(IBV_WC_WR_FLUSH_ERR));
    BOOST_TEST(*out.events[1].vendor_err == 0xf9u);
}

// mpirun --timestamp-output's stamp places perftest's lines (local clock, no zone).
BOOST_AUTO_TEST_CASE(mpirun_timestamp_gives_local_time) {
    const auto out = perftest_test::read(
        {"Sun Oct  1 17:01:10 2023[1,0]<stderr>: Completion with error at client",
         "Sun Oct  1 17:01:10 2023[1,0]<stderr>: Failed status 12: wr_id 0 syndrom 0x81"});
    BOOST_TEST_REQUIRE(out.events.size() == 1u);
    BOOST_TEST((out.events[0].clock == rh::LogClock::local));
    BOOST_TEST(out.events[0].time_s == 1696179670.0, perftest_test::tol);
    BOOST_TEST(*out.events[0].wc_status == 12);
}

// Unrelated lines give nothing: NCCL INFO, dmesg, a latency table, perftest's other messages.
BOOST_AUTO_TEST_CASE(unrelated_lines_give_nothing) {
    const std::vector<std::string> lines{
        "gpu01:1234:1250 [3] NCCL INFO NET/IB : Using [0]mlx5_0:1/RoCE [1]mlx5_1:1/RoCE ; OOB "
        "eth0:10.0.0.1<0>",
        "gpu01:1234:1250 [3] NCCL INFO Channel 00/0 : 0[3] -> 1[3] [send] via NET/IB/0",
        "[ 1234.567890] mlx5_core 0000:3b:00.0 ens1f0np0: Link down",
        "[1698765432.123456] [gpu01:12345:0] ib_mlx5_log.c:143 UCX ERROR Transport retry count "
        "exceeded on mlx5_0:1/RoCE (synd 0x15 vend 0x81 hw_synd 0/0)",
        " #bytes #iterations    t_min[usec]    t_max[usec]  t_typical[usec]    t_avg[usec]",
        " 2       1000          1.05           3.12         1.09               1.10",
        " Completion with wc_flags mismatch at client",
        "************************************",
        "* Waiting for client to connect... *",
        "",
    };
    const auto out = perftest_test::read(lines);
    BOOST_TEST(out.events.empty());
    for (const auto& l : lines) BOOST_TEST(!rh::joblog::is_perftest_line(l), l);
    BOOST_TEST(rh::joblog::is_perftest_line(" Completion with error at client"));
    BOOST_TEST(rh::joblog::is_perftest_line("3:  Failed status 12: wr_id 0 syndrom 0x81"));
    BOOST_TEST(rh::joblog::is_perftest_line("Couldn't connect to 10.0.0.2:18515"));
}

BOOST_AUTO_TEST_SUITE_END()
