// The probe mesh's schedule checks, backoff after failures and error samples (probes/mesh/mesh.h).
// Sessions cannot be set up on a host without RDMA (nor to a port nobody listens on), which is
// exactly the path whose backoff and counters are under test here; measuring needs the lab.
#include <boost/test/unit_test.hpp>

#include <thread>

#include "probes/mesh/mesh.h"

BOOST_AUTO_TEST_SUITE(test_mesh)

using namespace rh;

namespace {
MeshSchedule schedule() {
    MeshSchedule s;
    s.peers = {"127.0.0.1:1"};
    s.backoff_min_s = 0.05;
    s.backoff_max_s = 0.2;
    s.timeout_ms = 200;
    // The port of this tree is DOWN: every session fails on this host's side.
    s.sysfs_root = std::string(RH_SOURCE_DIR) + "/tests/fixtures/port_down/sys";
    return s;
}
}  // namespace

BOOST_AUTO_TEST_CASE(schedule_checks) {
    BOOST_TEST(check_schedule(schedule()).ok());
    auto s = schedule();
    s.peers.push_back("127.0.0.1:1");
    BOOST_TEST(check_schedule(s).error().detail == "peer 127.0.0.1:1 given twice");
    s = schedule();
    s.jitter = 0.6;
    BOOST_TEST(!check_schedule(s).ok());
    s = schedule();
    s.interval_s = 0.01;
    BOOST_TEST(!check_schedule(s).ok());
    s = schedule();
    s.backoff_min_s = 1;
    s.backoff_max_s = 0.5;
    BOOST_TEST(!check_schedule(s).ok());
    s = schedule();
    s.peers.clear();
    BOOST_TEST(!check_schedule(s).ok());
}

BOOST_AUTO_TEST_CASE(unreachable_peer_backs_off_and_counts) {
    std::vector<std::vector<Sample>> rounds;
    Mesh m(schedule(), "h1", [&](std::vector<Sample> s) { rounds.push_back(std::move(s)); });
    m.round();  // fails: no session
    const auto& st = m.status().at(0);
    BOOST_TEST(st.rounds_failed == 1u);
    BOOST_TEST(st.backoff_s == 0.05);
    BOOST_TEST(!st.last_error.empty());
    m.round();  // within the backoff: skipped, not retried
    BOOST_TEST(st.rounds_skipped == 1u);
    BOOST_TEST(st.rounds_failed == 1u);
    // After the backoff each failure doubles it, up to the maximum.
    for (double want : {0.1, 0.2, 0.2}) {
        std::this_thread::sleep_for(std::chrono::duration<double>(st.backoff_s + 0.02));
        m.round();
        BOOST_TEST(st.backoff_s == want);
    }
    BOOST_TEST(st.rounds_failed == 4u);
    BOOST_TEST(st.connects == 0u);
    // No ACTIVE port here: the session fails on our side, and says so (not the peer's fault).
    BOOST_TEST(st.errors.at({"connect", "local_setup"}) == 4u);
    // Samples: the counter starts at 0 (at the mesh's start), then counts every failure; a
    // skipped round adds nothing new but repeats the count.
    BOOST_REQUIRE(rounds.size() >= 2u);
    const auto& first = rounds.front();
    BOOST_REQUIRE(first.size() == 2u);
    BOOST_TEST(first[0].series == "probe_errors");
    BOOST_TEST(first[0].labels.at("peer") == "127.0.0.1:1");
    BOOST_TEST(first[0].labels.at("op") == "connect");
    BOOST_TEST(first[0].labels.at("status") == "local_setup");
    BOOST_TEST(*first[0].count == 0u);
    BOOST_TEST(*first[1].count == 1u);
    BOOST_TEST(first[1].t_s >= first[0].t_s);
    BOOST_TEST(first[1].host == "h1");
    const auto& last = rounds.back();
    BOOST_REQUIRE(last.size() == 1u);
    BOOST_TEST(*last[0].count == 4u);
}

// The new user's report: a failed probe was logged as local_setup with no reason. The hook
// the agent logs `probe_failed` from gets what failed, as the failing call said it.
BOOST_AUTO_TEST_CASE(a_failed_probe_says_why) {
    std::vector<std::vector<std::string>> seen;  // op, status, reason
    MeshHooks hooks;
    hooks.on_error = [&seen](const std::string&, const std::string& op, const std::string& status,
                             const std::string& reason) {
        seen.push_back({op, status, reason});
    };
    Mesh m(
        schedule(), "h1", [](std::vector<Sample>) {}, hooks);
    m.round();
    BOOST_TEST_REQUIRE(seen.size() == 1u);
    BOOST_TEST(seen[0][0] == "connect");
    BOOST_TEST(seen[0][1] == "local_setup");
    BOOST_TEST(seen[0][2] == m.status().at(0).last_error);
    // The port of the fixture is DOWN: the reason says which port and why it cannot be used.
    BOOST_TEST(seen[0][2].find("ACTIVE") != std::string::npos, seen[0][2]);
}

BOOST_AUTO_TEST_CASE(run_stops_at_the_deadline) {
    auto s = schedule();
    s.interval_s = 0.1;
    s.jitter = 0.5;
    Mesh m(s, "h1", [](std::vector<Sample>) {});
    std::atomic<bool> stop{false};
    const auto t0 = Mesh::Clock::now();
    m.run(stop, t0 + std::chrono::milliseconds(550));
    const auto ms =
        std::chrono::duration_cast<std::chrono::milliseconds>(Mesh::Clock::now() - t0).count();
    BOOST_TEST(ms >= 500);
    BOOST_TEST(ms < 1500);
    const auto& st = m.status().at(0);
    // ~5 rounds of 0.1 s: failures and skips while backing off, nothing measured.
    BOOST_TEST(st.rounds_failed + st.rounds_skipped >= 3u);
    BOOST_TEST(st.rounds_ok == 0u);
}

// A stop requested while a round runs ends it before the next peer: a SIGTERM to the agent does
// not wait for every peer's connect and phases.
BOOST_AUTO_TEST_CASE(stop_ends_the_round_before_the_next_peer) {
    auto s = schedule();
    s.peers = {"127.0.0.1:1", "127.0.0.1:2", "127.0.0.1:3"};
    Mesh* self = nullptr;
    std::size_t sunk = 0;
    Mesh m(s, "h1", [&](std::vector<Sample>) {
        if (++sunk == 1) self->request_stop();  // during the round, after the first peer
    });
    self = &m;
    m.round();
    BOOST_TEST(m.status().at(0).rounds_failed == 1u);
    BOOST_TEST(m.status().at(1).rounds_failed == 0u);  // not probed
    BOOST_TEST(m.status().at(2).rounds_failed == 0u);
    BOOST_TEST(sunk == 1u);
}

BOOST_AUTO_TEST_CASE(a_plan_chooses_the_peers_of_each_round) {
    // With a plan (probes/mesh/mesh_plan.h), round r probes only the peers plan(r) names.
    auto s = schedule();
    s.peers = {"127.0.0.1:1", "127.0.0.1:2", "127.0.0.1:3"};
    s.backoff_min_s = 5;  // a failed peer stays backed off for the whole test
    s.backoff_max_s = 10;
    std::vector<std::uint64_t> asked;
    s.plan = [&asked](std::uint64_t round) {
        asked.push_back(round);
        return round == 0 ? std::vector<std::size_t>{2} : std::vector<std::size_t>{0, 2};
    };
    std::vector<std::string> probed;
    MeshHooks hooks;
    hooks.on_error = [&probed](const std::string& peer, const std::string&, const std::string&,
                               const std::string&) { probed.push_back(peer); };
    Mesh m(
        s, "h1", [](std::vector<Sample>) {}, hooks);
    m.round();
    m.round();
    BOOST_TEST((asked == std::vector<std::uint64_t>{0, 1}));
    // Round 0: peer 3 (fails); round 1: peer 1 (fails), peer 3 backing off (skipped).
    BOOST_TEST((probed == std::vector<std::string>{"127.0.0.1:3", "127.0.0.1:1"}));
    BOOST_TEST(m.status().at(1).rounds_failed + m.status().at(1).rounds_skipped == 0u);
    BOOST_TEST(m.status().at(2).rounds_skipped == 1u);
}

BOOST_AUTO_TEST_SUITE_END()  // test_mesh
