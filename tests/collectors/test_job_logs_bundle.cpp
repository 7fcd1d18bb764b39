// A job's log given to diagnose --bundle: in a folder of its own it is no host's capture, its
// lines land on the host they name, and log lines alone never read as healthy.
#include <boost/test/unit_test.hpp>

#include <string>
#include <vector>

#include "agent/replay/inputs.h"
#include "agent/replay/replay.h"
#include "core/exit_codes.h"
#include "tests/support/capture_dirs.h"
#include "tests/support/shipped_rules.h"

BOOST_AUTO_TEST_SUITE(test_job_logs_bundle)

namespace {

struct Root : rh::test::CaptureRoot {
    Root() : CaptureRoot("rh_joblogs_") {}
};

constexpr auto& write = rh::test::write_capture_file;

const char* kInfo =
    "gpu01:4242:4300 [3] NCCL INFO NET/IB : Using [0]mlx5_0:1/RoCE ; OOB eth0:10.0.0.1<0>\n"
    "gpu01:4242:4300 [3] NCCL INFO Channel 00/0 : 3[3] -> 4[4] via P2P/IPC\n";
const char* kWarn =
    "gpu01:4242:4360 [3] transport/net_ib.cc:1696 NCCL WARN NET/IB : Got completion from peer "
    "10.0.0.7<4321> with status=12 opcode=0 len=0 vendor err 129 (Send) localGid "
    "::ffff:10.0.0.1 remoteGids::ffff:10.0.0.7 hca mlx5_0\n";

struct Run {
    rh::SeriesStore store{rh::StoreLimits{1e12, 1u << 30}};
    std::vector<rh::InputReport> reports;
    rh::EngineResult result;
    int exit_code = 0;
};

void run(Run& d, const std::vector<std::string>& dirs) {
    auto r = rh::load_bundles(d.store, dirs, std::nullopt);
    BOOST_TEST_REQUIRE(r.ok(), (r.ok() ? "" : r.error().message()));
    d.reports = *r;
    rh::EngineOptions opts = rh::replay_engine_options();
    opts.counters_expected = true;
    d.result = rh::judge_inputs(d.store, rh::test::shipped_rules(), d.reports, opts);
    d.exit_code = rh::diagnosis_exit_code(d.result);
}

}  // namespace

BOOST_AUTO_TEST_CASE(log_lines_alone_are_judged_for_errors_never_called_healthy) {
    Root root;
    write(root.dir("logs"), "train.out", kInfo);
    Run quiet;
    run(quiet, {root.dir("logs")});
    BOOST_TEST(quiet.result.findings.empty());
    BOOST_TEST(quiet.exit_code == rh::kExitCannotRun);  // not "healthy"
    BOOST_REQUIRE(!quiet.result.not_judged.empty());
    BOOST_TEST(quiet.result.not_judged.back().text.find("only job or kernel log lines") !=
               std::string::npos);

    write(root.dir("logs"), "train.out", std::string(kInfo) + kWarn);  // the same log, failed
    Run failed;
    run(failed, {root.dir("logs")});
    BOOST_TEST(failed.exit_code == rh::kExitFindings);
    BOOST_REQUIRE(failed.result.findings.size() == 1u);
    BOOST_TEST(failed.result.findings.front().rule_id == "job_retry_exceeded");
    BOOST_TEST(failed.result.findings.front().host == "gpu01");
}

BOOST_AUTO_TEST_CASE(a_log_truncated_in_place_is_read_after_its_nul_block) {
    // logrotate's copytruncate: the writer keeps its offset, so the file starts with NULs (a new
    // user's find: the log was "binary content, not read" and the run healthy).
    Root root;
    const std::string nul_led = std::string(4096, '\0') + kInfo + kWarn;
    write(root.dir("logs"), "train.out", nul_led);
    Run d;
    run(d, {root.dir("logs")});
    BOOST_TEST(d.exit_code == rh::kExitFindings);
    BOOST_REQUIRE(d.result.findings.size() == 1u);
    BOOST_TEST(d.result.findings.front().rule_id == "job_retry_exceeded");
    bool noted = false;
    for (const auto& r : d.reports)
        for (const auto& n : r.notes)
            noted = noted || n.find("4096 NUL bytes skipped") != std::string::npos;
    BOOST_TEST(noted);
}

BOOST_AUTO_TEST_SUITE_END()
