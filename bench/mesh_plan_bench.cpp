// rocehealth_mesh_plan_bench: the scalable mesh (probes/mesh/mesh_plan.h) simulated over a fleet of
// 1000 and 10000 hosts at 48 per ToR, K = 4 inter-ToR peers a round, a round every 1 s, against
// today's full mesh (every host probes every other). Prints, per fleet: probes each host sends
// per second (mean and max), the most probes any host receives in a round, the rounds (and
// seconds) until every (ToR, ToR) pair has been probed (simulated over every host, and the
// planner's bound), probe series each host exports on /metrics and the bytes they add to a
// scrape (rendered by the agent's own render_metrics), and the same with the series budget
// (agent/daemon/mesh_budget.h; at 50k hosts too). Not a test: figures for bench/README.md.
#include <chrono>
#include <cstdio>
#include <set>
#include <string>
#include <vector>

#include "agent/daemon/mesh_budget.h"
#include "agent/daemon/metrics.h"
#include "probes/mesh/mesh_plan.h"
#include "store/series_store.h"

using namespace rh;

namespace {

constexpr unsigned kPerTor = 48;
constexpr unsigned kInterTor = 4;
constexpr double kIntervalS = 1;

std::string tor_name(unsigned t) {
    char b[16];
    std::snprintf(b, sizeof b, "r%04u", t);
    return b;
}

std::vector<FleetHost> make_fleet(unsigned hosts) {
    std::vector<FleetHost> f;
    for (unsigned i = 0; i < hosts; ++i) {
        const std::string host = "gpu" + std::to_string(100000 + i);
        const std::string addr = "10." + std::to_string(i / 65536) + "." +
                                 std::to_string(i / 256 % 256) + "." + std::to_string(i % 256) +
                                 ":18520";
        f.push_back({host, addr, tor_name(i / kPerTor)});
    }
    return f;
}

/// /metrics bytes of `rows` latency rows (one op, one size) and their error counters, rendered
/// by the agent, minus the same page without the mesh: what the mesh adds to every scrape.
/// `by_tor`: the rows are destination ToRs, rendered as the dst_tor families
/// (AgentStats::tor_probes, agent/daemon/README.md).
std::size_t scrape_bytes(const std::vector<std::string>& row_keys, bool by_tor = false) {
    SeriesStore store(StoreLimits{300, 316});
    agent::AgentStats base;
    base.version = "bench";
    const std::size_t without = agent::render_metrics(store, {}, base).size();
    agent::ProbeMetrics pm;
    pm.window_s = 60;
    for (const auto& k : row_keys) {
        agent::ProbeLatencyRow r;
        r.peer = k;
        r.op = "write";
        r.size_bytes = 64;
        r.window_samples = 1200;
        r.p50_s = 2.345e-06;
        r.p99_s = 4.567e-06;
        r.p999_s = 1.2345e-05;
        r.sum_s = 1.234567;
        r.count = 123456789;
        pm.latency.push_back(r);
        pm.errors[{k, "write"}] = 0;
        pm.errors[{k, "connect"}] = 0;
    }
    agent::AgentStats with = base;
    if (by_tor)
        with.tor_probes = pm;
    else
        with.probes = pm;
    return agent::render_metrics(store, {}, with).size() - without;
}

/// Mesh series and scrape bytes of host 0 with the budget (agent/daemon/mesh_budget.h): every
/// own-ToR peer and other ToR probed in the window (the most rows there can be), the worst
/// kWorstPeers + kWorstTors shown, plus the group totals; beside the per-row form it replaces.
void budget_line(unsigned hosts) {
    const auto plan = *MeshPlan::make(make_fleet(hosts), "gpu100000", {kInterTor, 64});
    const agent::MeshRows rows = agent::mesh_rows(plan);
    auto view = [](const std::vector<std::string>& keys) {
        agent::ProbeSummaries s;
        s.configure(keys, {"write"}, {64}, 60);
        for (std::size_t i = 0; i < keys.size(); ++i)
            s.add_phase(keys[i], "write", 64, std::vector<double>(1000, 2.0 + i % 7), 1);
        return s.view(1);
    };
    const agent::ProbeMetrics own = view(rows.own_peers), tors = view(rows.other_tors);
    SeriesStore store(StoreLimits{300, 316});
    agent::AgentStats st;
    st.version = "bench";
    const std::size_t base = agent::render_metrics(store, {}, st).size();
    st.probes = own;
    st.tor_probes = tors;
    const std::string before = agent::render_metrics(store, {}, st);
    st.probes = agent::keep_worst(own, agent::kWorstPeers);
    st.tor_probes = agent::keep_worst(tors, agent::kWorstTors);
    const std::string after = agent::render_metrics(store, {}, st);
    std::printf(
        "  mesh series per host:          budgeted %zu (worst %zu own-ToR peers + %zu ToRs, "
        "group totals; budget %zu) | per-row form %zu\n",
        agent::mesh_series_in(after), agent::kWorstPeers, agent::kWorstTors,
        agent::kMeshSeriesBudget, agent::mesh_series_in(before));
    std::printf("  mesh bytes per scrape:         budgeted %zu | per-row form %zu\n",
                after.size() - base, before.size() - base);
}

void run(unsigned hosts) {
    const auto t0 = std::chrono::steady_clock::now();
    const auto fleet = make_fleet(hosts);
    const unsigned tors = (hosts + kPerTor - 1) / kPerTor;
    std::vector<MeshPlan> plans;
    const MeshPlan first = *MeshPlan::make(fleet, fleet[0].host, {kInterTor, 64});
    for (const auto& h : fleet) plans.push_back(*first.for_host(h.host));
    // Simulate rounds until every ordered (ToR, other ToR) pair has been probed.
    std::vector<std::vector<bool>> covered(tors, std::vector<bool>(tors, false));
    std::size_t pairs_left = static_cast<std::size_t>(tors) * (tors - 1);
    std::uint64_t rounds = 0;
    std::size_t sent_total = 0, sent_max = 0, recv_max = 0;
    std::vector<std::size_t> received(hosts);
    while (pairs_left > 0 && rounds < 100000) {
        std::fill(received.begin(), received.end(), 0);
        for (unsigned h = 0; h < hosts; ++h) {
            const auto peers = plans[h].peers(rounds);
            sent_total += peers.size();
            sent_max = std::max(sent_max, peers.size());
            const unsigned from = h / kPerTor;
            for (std::size_t i : peers) {
                ++received[i];  // fleet() is sorted by host name: the same order as make_fleet
                const unsigned to = static_cast<unsigned>(i / kPerTor);
                if (to != from && !covered[from][to]) {
                    covered[from][to] = true;
                    --pairs_left;
                }
            }
        }
        for (std::size_t n : received) recv_max = std::max(recv_max, n);
        ++rounds;
    }
    const double sim_s =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    // Series: per (row) 3 quantiles + _sum + _count, and 2 error counters (write, connect).
    const unsigned per_row = 5 + 2;
    std::vector<std::string> full, own, dst_tors;
    for (unsigned i = 1; i < hosts; ++i) full.push_back(fleet[i].address);
    for (unsigned i = 1; i < kPerTor && i < hosts; ++i) own.push_back(fleet[i].address);
    for (unsigned t = 1; t < tors; ++t) dst_tors.push_back(tor_name(t));
    std::printf("%u hosts, %u ToRs x %u, K=%u, interval %.0f s (simulated in %.2f s)\n", hosts,
                tors, kPerTor, kInterTor, kIntervalS, sim_s);
    std::printf("  probes sent per host per s:    planned mean %.1f, max %zu | full mesh %u\n",
                static_cast<double>(sent_total) / static_cast<double>(hosts * rounds) / kIntervalS,
                sent_max, hosts - 1);
    std::printf("  most probes one host receives in a round: %zu\n", recv_max);
    std::printf(
        "  every ToR pair covered after:  %llu rounds = %.0f s (bound ceil((T-1)/K) = "
        "%llu)\n",
        static_cast<unsigned long long>(rounds), static_cast<double>(rounds) * kIntervalS,
        static_cast<unsigned long long>(plans[0].cover_rounds()));
    std::printf(
        "  probe series per host:         planned %zu (own ToR %zu + dst_tor %zu rows x %u) "
        "| full mesh %zu\n",
        (own.size() + dst_tors.size()) * per_row, own.size(), dst_tors.size(), per_row,
        full.size() * per_row);
    std::printf("  probe bytes per scrape:        planned %zu | full mesh %zu\n",
                scrape_bytes(own) + scrape_bytes(dst_tors, true), scrape_bytes(full));
    budget_line(hosts);
}

}  // namespace

int main() {
    run(1000);
    run(10000);
    std::printf("50000 hosts (series only: the full simulation is left out)\n");
    budget_line(50000);
    return 0;
}
