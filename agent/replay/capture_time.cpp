#include "agent/replay/capture_time.h"

#include <cmath>
#include <cstdio>
#include <map>

namespace rh {

namespace {

std::string span_text(double s) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.0f s", std::abs(s));
    return buf;
}

}  // namespace

void apply_in_file_clocks(std::vector<BundleCapture>& caps,
                          std::vector<std::vector<std::string>>& notes) {
    // A `timestamp` file and a `date` line of one capture agree within the time it took to
    // run the commands.
    constexpr double kCaptureSpreadS = 120;
    for (std::size_t i = 0; i < caps.size(); ++i) {
        BundleCapture& c = caps[i];
        std::vector<std::string>& n = notes[i];
        if (!c.clock) {
            if (c.timestamp_s) n.push_back("time from its `timestamp` file");
            continue;
        }
        const bundle::ClockReading& r = c.clock->chosen;
        for (const std::string& s : c.clock->notes) n.push_back(s);
        if (c.timestamp_s) {
            n.push_back("time from its `timestamp` file");
            if (!r.approximate && r.zone.empty() &&
                std::abs(r.t_s - *c.timestamp_s) > kCaptureSpreadS)
                n.push_back(r.source + ": its " + r.kind + " time is " +
                            span_text(r.t_s - *c.timestamp_s) +
                            (r.t_s > *c.timestamp_s ? " after" : " before") +
                            " the `timestamp` file's; the `timestamp` file is used");
            continue;
        }
        if (r.approximate) continue;  // decide_clock's note says it is not used for rates
        if (r.zone.empty()) {
            c.timestamp_s = r.t_s;
            n.push_back("time from " + r.source + " (" + r.kind + ", UTC)");
        } else {
            n.push_back("time from " + r.source + " (" + r.kind + ", zone " + r.zone +
                        "): spacing only, no wall clock (" +
                        (r.zone == "local" ? std::string("the line names no zone")
                                           : "a named zone can mean several") +
                        ")");
        }
    }
}

std::optional<std::string> shared_local_zone(const std::vector<BundleCapture>& caps,
                                             const std::vector<std::size_t>& idx) {
    std::optional<std::string> zone;
    for (std::size_t i : idx) {
        const BundleCapture& c = caps[i];
        if (c.timestamp_s || !c.clock || c.clock->chosen.approximate ||
            c.clock->chosen.zone.empty())
            return std::nullopt;
        if (zone && *zone != c.clock->chosen.zone) return std::nullopt;
        zone = c.clock->chosen.zone;
    }
    return zone;
}

std::optional<double> capture_time_s(const BundleCapture& c) {
    if (c.timestamp_s) return c.timestamp_s;
    if (c.clock) return c.clock->chosen.t_s;
    return std::nullopt;
}

std::optional<std::string> counters_fall(const BundleCapture& a, const BundleCapture& b) {
    if (a.uptime_s && b.uptime_s && *b.uptime_s < *a.uptime_s) return std::nullopt;  // reboot
    std::map<std::string, std::uint64_t> before;
    const auto key = [](const Device& d, const Port& p, const NormalizedCounter& c) {
        std::string k = d.name + "/" + std::to_string(p.number) + "/" + c.name;
        for (const auto& [lk, lv] : c.labels) k += "," + lk + "=" + lv;
        return k;
    };
    for (const Device& d : a.snapshot.devices)
        for (const Port& p : d.ports)
            for (const NormalizedCounter& c : p.normalized)
                if (c.value) before[key(d, p, c)] = *c.value;
    std::size_t down = 0, up = 0;
    for (const Device& d : b.snapshot.devices)
        for (const Port& p : d.ports)
            for (const NormalizedCounter& c : p.normalized) {
                const auto it = before.find(key(d, p, c));
                if (!c.value || it == before.end()) continue;
                if (*c.value < it->second) ++down;
                if (*c.value > it->second) ++up;
            }
    if (down < 3 || down <= up) return std::nullopt;
    return "captures " + a.dir + " -> " + b.dir + ": " + std::to_string(down) + " of " +
           std::to_string(down + up) +
           " changed counters go down with no reboot in the captures: were they given out of "
           "time order (give them oldest first), or was the driver reloaded?";
}

}  // namespace rh
