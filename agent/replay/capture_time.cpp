#include "agent/replay/capture_time.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>
#include <sstream>

namespace rh {

namespace {

std::string span_text(double s) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.0f s", std::abs(s));
    return buf;
}

/// `s` as the user wrote it ("10", "2.5"), not std::to_string's "10.000000".
std::string seconds_text(double s) {
    std::ostringstream o;
    o << s;
    return o.str();
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

HostSpacing host_spacing(HostGroup& g, const std::vector<BundleCapture>& caps,
                         std::optional<double> interval_s) {
    HostSpacing sp;
    std::size_t stamped = 0;
    for (std::size_t i : g.captures) stamped += caps[i].timestamp_s.has_value();
    sp.use_stamps = stamped == g.captures.size();
    // Captures of one host with `date` lines in one named zone ("CST"): exact spacing.
    sp.zone = sp.use_stamps ? std::nullopt : shared_local_zone(caps, g.captures);
    sp.use_zone = sp.zone && !interval_s;
    // In time order by their clocks (approximate ones too, when every capture has one).
    if (g.captures.size() > 1 && (sp.use_stamps || sp.use_zone || !interval_s)) {
        bool clocked = true;
        for (std::size_t i : g.captures) clocked = clocked && capture_time_s(caps[i]);
        auto order = g.captures;
        if (clocked)
            std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) {
                return *capture_time_s(caps[a]) < *capture_time_s(caps[b]);
            });
        if (order != g.captures) {
            std::string given, sorted;
            std::vector<std::string> decisions;
            for (std::size_t k = 0; k < order.size(); ++k) {
                given += (k ? ", " : "") + caps[g.captures[k]].dir;
                sorted += (k ? ", " : "") + caps[order[k]].dir;
                const auto at = std::find(g.captures.begin(), g.captures.end(), order[k]);
                decisions.push_back(g.decisions[at - g.captures.begin()]);
            }
            sp.time_note = "host " + g.name + ": captures given out of time order (" + given +
                           "); their clocks put them in the order " + sorted;
            g.captures = std::move(order);
            g.decisions = std::move(decisions);
        }
    }
    const auto add_note = [&](const std::string& n) {
        sp.time_note += (sp.time_note.empty() ? "" : "; ") + n;
    };
    if (g.captures.size() > 1 && !sp.use_stamps && !sp.use_zone) {
        if (!interval_s) {
            // No clock: everything that needs no interval is judged (port states, the
            // inventory, lifetime counts); the rules that need one are named.
            std::string missing;
            for (std::size_t i : g.captures)
                if (!caps[i].timestamp_s) missing += (missing.empty() ? "" : ", ") + caps[i].dir;
            sp.unspaced = true;
            add_note("host " + g.name + ": no clock in " + missing +
                     " (no `timestamp` file, no `date` line): the captures are judged in the "
                     "given order without the time between them; rules that need it are not "
                     "judged (give --interval SECONDS)");
        } else if (stamped > 0) {
            sp.time_note = "host " + g.name + ": only " + std::to_string(stamped) + " of " +
                           std::to_string(g.captures.size()) +
                           " captures have a `timestamp` file; all are spaced --interval " +
                           seconds_text(*interval_s) + " s apart and the timestamps are not used";
        }
    } else if (sp.use_zone && g.captures.size() > 1) {
        add_note("host " + g.name + ": captures spaced by their clocks in zone " + *sp.zone +
                 " (exact spacing; the wall clock is not claimed)");
    }
    // An option the run did not use is said (a new user's find: --interval 5 beside captures
    // 10 s apart by their `timestamp` files was ignored without a word).
    if (g.captures.size() > 1 && sp.use_stamps && interval_s)
        add_note("host " + g.name + ": --interval " + seconds_text(*interval_s) +
                 " s not used: every capture has a `timestamp` file, and they space them");
    return sp;
}

Result<SampleTime> capture_sample_time(const HostGroup& g, std::size_t k,
                                       const std::vector<BundleCapture>& caps,
                                       const HostSpacing& sp, bool all_stamped,
                                       std::optional<double> interval_s) {
    const BundleCapture& c = caps[g.captures[k]];
    const BundleCapture& first = caps[g.captures.front()];
    SampleTime when;
    if (sp.use_stamps) {
        const BundleCapture& prev = caps[g.captures[k ? k - 1 : 0]];
        if (k > 0 && *c.timestamp_s <= *prev.timestamp_s)
            return Error{"diagnose --bundle", c.dir, 0,
                         "its timestamp is not later than the previous capture of host " + g.name +
                             " (" + prev.dir + "): give the captures in time order"};
        if (all_stamped) {
            when.t_s = *c.timestamp_s;
            when.wall_ms = static_cast<std::int64_t>(std::llround(*c.timestamp_s * 1000.0));
        } else {
            when.t_s = *c.timestamp_s - *first.timestamp_s;
        }
    } else if (sp.use_zone) {
        when.t_s = c.clock->chosen.t_s - first.clock->chosen.t_s;
        const BundleCapture& prev = caps[g.captures[k ? k - 1 : 0]];
        if (k > 0 && when.t_s <= prev.clock->chosen.t_s - first.clock->chosen.t_s)
            return Error{"diagnose --bundle", c.dir, 0,
                         "its clock (" + c.clock->chosen.source +
                             ") is not later than the previous capture of host " + g.name + " (" +
                             prev.dir + ")"};
    } else if (sp.unspaced) {
        // Order only: kUnspacedStepS is no measured time (no rate is made from it).
        constexpr double kUnspacedStepS = 1;
        when.t_s = static_cast<double>(k) * kUnspacedStepS;
    } else {
        when.t_s = static_cast<double>(k) * interval_s.value_or(0);
    }
    return when;
}

}  // namespace rh
