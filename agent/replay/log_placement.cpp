#include "agent/replay/log_placement.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstring>
#include <ctime>
#include <map>
#include <set>
#include <tuple>

#include "core/gid_addr.h"
#include "core/inventory/inventory.h"

namespace rh {

namespace {

using Addr = GidBytes;

std::optional<Addr> addr_of(const std::string& text) {
    return gid_bytes(text);
}

/// Which host each address and name belongs to, from the inventories (GIDs) and the logs
/// themselves (NCCL's "OOB eth0:10.0.0.1" of a named host).
struct HostIndex {
    std::set<std::string> hosts;  // hosts of the data (captures)
    std::map<Addr, std::string> by_addr;
    std::map<std::string, std::string> alias;  // a name the logs use -> host of the data

    std::string of_addr(const std::string& text) const {
        const auto a = addr_of(text);
        if (!a) return {};
        const auto it = by_addr.find(*a);
        return it == by_addr.end() ? std::string{} : it->second;
    }
    std::string of_name(const std::string& name) const {
        if (name.empty()) return {};
        if (hosts.count(name)) return name;
        const auto it = alias.find(name);
        if (it != alias.end()) return it->second;
        // "gpu01.example.com" in a log, "gpu01" in the data (or the reverse).
        const std::string shortname = name.substr(0, name.find('.'));
        for (const auto& h : hosts)
            if (h.substr(0, h.find('.')) == shortname) return h;
        return {};
    }
};

HostIndex index_hosts(const SeriesStore& store, const std::vector<BundleCapture>& caps,
                      const std::vector<CapturePlace>& places) {
    HostIndex ix;
    for (const auto& [host, inv] : store.inventories()) {
        ix.hosts.insert(host);
        const Snapshot* snap = inv.snapshot.get();
        if (!snap) continue;
        for (const Device& d : snap->devices)
            for (const Port& p : d.ports)
                for (const Gid& g : p.gids)
                    if (auto a = addr_of(g.gid); a && !is_link_local(*a))
                        ix.by_addr.emplace(*a, host);
    }
    // The addresses of `ip addr` (out-of-band ones too: NCCL names its peers by them).
    for (std::size_t i = 0; i < caps.size(); ++i)
        if (!places[i].host.empty())
            for (const std::string& ip : caps[i].ip_addresses)
                if (auto a = addr_of(ip); a && !is_link_local(*a))
                    ix.by_addr.emplace(*a, places[i].host);
    // A log inside a host's capture that names one host: that name is the capture's host.
    for (std::size_t i = 0; i < caps.size(); ++i) {
        if (places[i].host.empty()) continue;
        std::set<std::string> named;
        for (const LogEvent& e : caps[i].log_events)
            if (!e.host.empty() && e.reader != "kernel") named.insert(e.host);
        if (named.size() == 1 && !ix.hosts.count(*named.begin()))
            ix.alias.emplace(*named.begin(), places[i].host);
    }
    // The job's own "OOB <if>:<ip>" line ties a named host to its IP, and the reverse.
    for (const auto& c : caps)
        for (const LogEvent& e : c.log_events) {
            if (e.host.empty() || e.local_ip.empty()) continue;
            const std::string by_ip = ix.of_addr(e.local_ip);
            const std::string by_name = ix.of_name(e.host);
            if (!by_ip.empty() && by_name.empty()) ix.alias.emplace(e.host, by_ip);
            if (by_ip.empty()) {
                if (auto a = addr_of(e.local_ip))
                    ix.by_addr.emplace(*a, by_name.empty() ? e.host : by_name);
            }
        }
    return ix;
}

/// Seconds since the epoch of Jan 1 of the UTC year of `t`, minus that of 1970 (0).
/// The latest time of a capture of `host`, nullopt without one.
std::optional<double> host_time(const std::vector<CapturePlace>& places, const std::string& host) {
    std::optional<double> t;
    for (const auto& p : places)
        if (p.host == host && p.t && !host.empty()) t = std::max(t.value_or(*p.t), *p.t);
    return t;
}

/// A stamp without a year (syslog's "Jan  5 13:05:33": LogEvent::year_unknown, its time_s
/// read in 1970) in the year that puts it at or before `ref_s` (a capture's time; a log is
/// written before it is captured, allowing 2 days of clock skew), so a December line captured
/// in January falls in the year before. Month, day and time are kept as written (Feb 29 too).
double in_year_of(double stamp_1970_s, double ref_s) {
    const std::time_t st = static_cast<std::time_t>(stamp_1970_s);
    const std::time_t rt = static_cast<std::time_t>(ref_s);
    std::tm when{}, ref{};
    gmtime_r(&st, &when);
    gmtime_r(&rt, &ref);
    when.tm_year = ref.tm_year;
    double t = static_cast<double>(timegm(&when)) + (stamp_1970_s - static_cast<double>(st));
    constexpr double kSkewS = 2 * 86400;
    if (t > ref_s + kSkewS) {
        gmtime_r(&st, &when);
        when.tm_year = ref.tm_year - 1;
        t = static_cast<double>(timegm(&when)) + (stamp_1970_s - static_cast<double>(st));
    }
    return t;
}

/// A log line's host and why: a name the data knows, then an address one host's ports carry,
/// then the capture that held the line, then the name the line gives. Empty when none applies.
std::pair<std::string, std::string> host_of_line(const HostIndex& ix, const LogEvent& e,
                                                 const BundleCapture& c, const CapturePlace& at) {
    if (std::string h = ix.of_name(e.host); !h.empty()) return {h, "host name " + e.host};
    if (std::string h = ix.of_addr(e.local_gid.empty() ? e.local_ip : e.local_gid); !h.empty())
        return {h, "its local address"};
    if (!at.host.empty()) return {at.host, "in " + c.dir + ", a capture of " + at.host};
    if (!e.host.empty()) return {e.host, "host name " + e.host + " (no capture of it)"};
    if (ix.hosts.size() == 1) return {*ix.hosts.begin(), "the only host of the data"};
    return {};
}

/// The peer a line names: by GID, then IP, then name.
std::string peer_of_line(const HostIndex& ix, const LogEvent& e) {
    std::string peer = ix.of_addr(e.peer_gid);
    if (peer.empty()) peer = ix.of_addr(e.peer_ip);
    if (peer.empty()) peer = ix.of_name(e.peer_name);
    return peer;
}

/// A local stamp's time; without a year, in the capture's year (for a folder of logs only, its
/// host's captures', then the data's end `t_end`). Nullopt when no year can be given: order only.
std::optional<double> local_time(const LogEvent& e, const CapturePlace& at,
                                 const std::vector<CapturePlace>& places, const std::string& host,
                                 double t_end) {
    if (!e.year_unknown) return e.time_s;
    std::optional<double> ref = at.t;
    if (!ref) ref = host_time(places, host);
    if (!ref && t_end > 0) ref = t_end;
    if (!ref) return std::nullopt;
    return in_year_of(e.time_s, *ref);
}

/// The line's own wall-clock time when its clock can be placed on the data's: a wall stamp, a
/// local one, or seconds since boot of this host's capture (/proc/stat btime, or its timestamp
/// less its uptime).
std::optional<double> line_time(const LogEvent& e, const BundleCapture& c, const CapturePlace& at,
                                const std::vector<CapturePlace>& places, const std::string& host,
                                double t_end) {
    std::optional<double> t;
    if (e.clock == LogClock::wall) t = e.time_s;
    if (e.clock == LogClock::local) t = local_time(e, at, places, host, t_end);
    if (e.clock == LogClock::boot && host == at.host) {
        if (c.btime_s)
            t = *c.btime_s + e.time_s;
        else if (c.uptime_s && c.timestamp_s)
            t = *c.timestamp_s - *c.uptime_s + e.time_s;
    }
    return t;
}

}  // namespace

bool logs_only(const BundleCapture& c) {
    const Snapshot& s = c.snapshot;
    return !c.log_events.empty() && s.devices.empty() && c.identity.mac.empty() &&
           c.identity.counter_names.empty() && c.identity.pci_slots.empty();
}

std::vector<std::string> place_log_events(SeriesStore& store,
                                          const std::vector<BundleCapture>& caps,
                                          const std::vector<CapturePlace>& places,
                                          bool wall_clock) {
    std::vector<std::string> notes;
    const HostIndex ix = index_hosts(store, caps, places);
    double t_end = 0;  // the data's last time, for lines of captures without one
    for (const auto& p : places)
        if (p.t) t_end = std::max(t_end, *p.t);
    std::set<std::string> local_noted, unplaced_noted;
    // A kernel ring buffer or a job log captured again holds the earlier lines again: the same
    // line (text and time stamp) of one host is one event, kept at its first capture.
    std::set<std::tuple<std::string, std::string, int, double>> seen;
    std::size_t repeated = 0;
    for (std::size_t i = 0; i < caps.size(); ++i) {
        const BundleCapture& c = caps[i];
        const CapturePlace& at = places[i];
        for (const LogEvent& e : c.log_events) {
            SeriesStore::PlacedLogEvent p;
            p.event = e;
            std::tie(p.host, p.placement) = host_of_line(ix, e, c, at);
            if (p.host.empty() && p.placement.empty() && unplaced_noted.insert(c.dir).second)
                notes.push_back(c.dir + ": log lines that name no host of the data (first: " +
                                e.source + "); listed without a host");
            p.peer_host = peer_of_line(ix, e);
            // Time: the line's own when the data has a wall clock to hold it.
            p.t = at.t.value_or(t_end);
            if (wall_clock) {
                if (e.clock == LogClock::local && local_noted.insert(c.dir).second)
                    notes.push_back(e.file + ": time stamps without a zone (" +
                                    std::string(e.reader) + ") taken as UTC");
                if (const auto t = line_time(e, c, at, places, p.host, t_end)) {
                    p.t = *t;
                    p.timed = true;
                }
            }
            if (e.clock != LogClock::order &&
                !seen.emplace(p.host, e.text, static_cast<int>(e.clock), e.time_s).second) {
                ++repeated;
                continue;
            }
            store.add_log_event(std::move(p));
        }
    }
    if (repeated > 0)
        notes.push_back(std::to_string(repeated) +
                        " log lines repeated in later captures (the same ring buffer or log "
                        "captured again) were read once");
    return notes;
}

}  // namespace rh
