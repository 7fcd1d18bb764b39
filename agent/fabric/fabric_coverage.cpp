#include "agent/fabric/fabric_coverage.h"

#include <algorithm>
#include <cmath>
#include <map>

#include "agent/fabric/fabric_grid.h"
#include "agent/fabric/time_arg.h"

namespace rh::fabric {

using namespace detail;

namespace {

constexpr const char* kRules[] = {"fabric_pause_storm_origin", "fabric_tor_probes_failing",
                                  "fabric_config_drift"};
constexpr std::size_t kNamed = 10;  ///< silent hosts named in the reason; the rest are counted

std::string seconds_text(double s) {
    return number_text(std::round(s)) + " s";
}

}  // namespace

std::vector<Note> coverage_gaps(const FabricSeries& in, const FabricResult& r, double to_s,
                                double gap_s, bool pause_raw) {
    std::vector<Note> out;
    if (r.data_last_s <= 0) return out;  // no points at all: the caller says so
    if (r.data_last_s < to_s - gap_s)
        for (const char* rule : kRules)
            if (std::none_of(r.not_judged.begin(), r.not_judged.end(),
                             [&](const Note& n) { return n.subject == rule; }))
                out.push_back({rule, "no series after " + rfc3339(r.data_last_s) + " (" +
                                         seconds_text(to_s - r.data_last_s) +
                                         " before the range's end): the fabric was not judged "
                                         "since"});
    // The raw series: every host has them at every step (the recorded ones are nonzero shares
    // and per-ToR counts, empty here when recorded was read, but for pause_fraction).
    std::map<std::string, double> last;  // instance -> its last point
    for (const auto* v : {&in.pause_fraction, &in.probe_errors, &in.probe_p50_s, &in.port_config})
        if (v != &in.pause_fraction || pause_raw)
            for (const PromSeries& s : *v) {
                const std::string inst = label(s.labels, "instance");
                if (inst.empty()) continue;
                for (const PromPoint& p : s.points)
                    if (!std::isnan(p.value)) last[inst] = std::max(last[inst], p.t_s);
            }
    std::vector<std::pair<double, std::string>> silent;  // (last point, instance)
    for (const auto& [inst, t] : last)
        if (t < r.data_last_s - gap_s) silent.emplace_back(t, inst);
    if (silent.empty()) return out;
    std::sort(silent.begin(), silent.end());
    const Topology topo = topology_of(in.host_info);
    std::string text;
    for (std::size_t i = 0; i < silent.size() && i < kNamed; ++i)
        text += (i ? ", " : "") + topo.host(silent[i].second) + " (last " +
                rfc3339(silent[i].first) + ")";
    if (silent.size() > kNamed) text += " and " + std::to_string(silent.size() - kNamed) + " more";
    out.push_back({"hosts", text + ": no series for over " + seconds_text(gap_s) +
                                " before the data's end (" + rfc3339(r.data_last_s) +
                                "): stopped reporting, not judged since"});
    return out;
}

}  // namespace rh::fabric
