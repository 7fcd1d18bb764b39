#include "rules/joblog/log_rules.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <optional>
#include <set>
#include <tuple>

#include "core/wc_status.h"
#include "rules/joblog/log_causes.h"
#include "rules/joblog/log_qos.h"
#include "rules/joblog/log_rule_ids.h"

namespace rh {

namespace {

using namespace joblog_rules;
using Placed = SeriesStore::PlacedLogEvent;

/// NCCL's defaults: NCCL_IB_TIMEOUT 20 (since 2.14; 18 before), NCCL_IB_RETRY_CNT 7.
struct RetrySettings {
    unsigned timeout = 20, retry_cnt = 7;
    /// (retry_cnt + 1) x 4.096 us x 2^timeout: how long before the error the loss happened.
    double window_s() const { return (retry_cnt + 1) * 4.096e-6 * std::ldexp(1.0, timeout); }
};

RetrySettings retry_settings(const std::vector<Placed>& events, const std::string& host) {
    RetrySettings r;
    for (const auto& e : events) {
        if (e.host != host) continue;
        const auto get = [&](const char* k, unsigned& v) {
            const auto it = e.event.settings.find(k);
            if (it == e.event.settings.end()) return;
            try {
                const unsigned long x = std::stoul(it->second);
                if (x <= 31) v = static_cast<unsigned>(x);
            } catch (...) {
            }
        };
        get("NCCL_IB_TIMEOUT", r.timeout);
        get("NCCL_IB_RETRY_CNT", r.retry_cnt);
    }
    return r;
}

std::string peer_of(const Placed& e) {
    if (!e.peer_host.empty()) {
        const std::string addr = !e.event.peer_ip.empty() ? e.event.peer_ip : e.event.peer_gid;
        return e.peer_host + (addr.empty() ? "" : " (" + addr + ")");
    }
    if (!e.event.peer_ip.empty()) return e.event.peer_ip;
    if (!e.event.peer_name.empty()) return e.event.peer_name;
    if (!e.event.peer_gid.empty()) return "GID " + e.event.peer_gid;
    return {};
}

std::string status_phrase(const LogEvent& e) {
    if (!e.wc_status) return e.status_text.empty() ? "an error completion" : e.status_text;
    return wc_status_words(*e.wc_status) + " (status " + std::to_string(*e.wc_status) + ")";
}

Evidence line_evidence(const Placed& e) {
    return Evidence{e.event.reader + " log", e.event.text, "", e.event.source};
}

TimelineEvent timeline_of(const Placed& e, bool wall) {
    TimelineEvent t;
    t.t = e.t;
    t.wall_ms = wall && e.timed ? static_cast<std::int64_t>(std::llround(e.t * 1000)) : 0;
    t.host = e.host;
    t.what = e.event.reader + ": " + e.event.text + (e.timed ? "" : " (time: order only)");
    t.source = e.event.source;
    return t;
}

Finding log_finding(const char* rule, const Placed& first) {
    const LogRuleDef& def = log_rule(rule);
    Finding f =
        make_finding(def.id, def.severity, first.host, first.event.device, first.event.port);
    f.opened_t = first.t;
    f.episodes = 1;
    return f;
}

void add_causes(Finding& f, const std::vector<Cause>& causes) {
    std::set<std::string> seen;
    for (const Cause& c : causes)
        if (seen.insert(c.what).second)
            f.evidence.push_back(Evidence{"cause: " + c.kind, c.what, "", c.source});
}

/// The causes of a status-12 error on `host` towards `peer`, strongest first.
std::vector<Cause> retry_causes(const SeriesStore& store, const EngineResult& result,
                                const std::vector<Placed>& events, const std::string& host,
                                const std::string& peer, const Window& w) {
    std::vector<Cause> gone, config, link, phys, pause, transport;
    // The job's own settings against the port (log_qos.cpp): nothing may ever have worked.
    findings_of(result, host, {"job_gid_index", "job_traffic_class"}, Window{}, "config", config);
    Window before = w;  // a process dies some time before its peers' retries run out
    if (!w.whole) before.from -= 120;
    if (!peer.empty()) {
        events_of(events, peer, {"process_killed", "gpu_error"}, before, "peer_gone", gone);
        if (std::string src; restarted(store, peer, src))
            gone.push_back(
                {"peer_gone", peer + " rebooted within the data (its uptime fell)", src, peer});
        // Every surviving peer of a dead process reports status 12 towards it.
        std::set<std::string> reporters;
        bool peer_reports = false;
        for (const auto& e : events)
            if (e.event.kind == "completion_error" && e.event.wc_status == 12) {
                if (e.peer_host == peer) reporters.insert(e.host);
                if (e.host == peer) peer_reports = true;
            }
        if (reporters.size() >= 2 && !peer_reports)
            gone.push_back({"peer_gone",
                            std::to_string(reporters.size()) + " hosts report status 12 towards " +
                                peer +
                                ", and its own log (if given) reports none: the peer went away",
                            "", peer});
    }
    for (const std::string& h : {host, peer}) {
        if (h.empty()) continue;
        findings_of(result, h, {"link_flap", "port_not_active"}, w, "link", link);
        events_of(events, h, {"link_down", "module_unplugged"}, w, "link", link);
        counter_rises(store, h, {"link_down_events", "carrier_changes"}, w, "link", link);
        findings_of(result, h, {"physical_errors", "lane_errors", "fec_marginal_link"}, w,
                    "physical", phys);
        counter_rises(
            store, h,
            {"symbol_errors", "fcs_errors", "pcs_symbol_errors", "fec_uncorrectable_blocks",
             "link_error_recovery", "local_link_integrity_errors"},
            w, "physical", phys);
        findings_of(
            result, h,
            {"pause_storm", "link_pause_storm", "pause_storm_watchdog", "pfc_deadlock_suspected"},
            w, "pause", pause);
        findings_of(result, h, {"retransmits", "lifetime_transport_loss"}, w, "transport",
                    transport);
        counter_rises(store, h,
                      {"ack_timeouts", "sequence_errors", "out_of_sequence", "retry_exceeded",
                       "implied_nak_sequence_errors"},
                      w, "transport", transport);
    }
    std::vector<Cause> all;
    for (auto* v : {&gone, &config, &link, &phys, &pause, &transport})
        all.insert(all.end(), v->begin(), v->end());
    return all;
}

/// The order causes are weighed in: a dead peer explains everything after it.
int cause_rank(const std::string& kind) {
    static const char* const kOrder[] = {"peer_gone", "config",  "link",     "physical",
                                         "pause",     "timeout", "transport"};
    for (int i = 0; i < 7; ++i)
        if (kind == kOrder[i]) return i;
    return 7;
}

std::string retry_conclusion(const std::vector<Cause>& causes, const std::string& peer) {
    if (causes.empty())
        return "none of the evidence in the data explains it (the peer's process or host, "
               "physical-layer errors, a link flap, a pause storm, transport counters); capture "
               "next: " +
               (peer.empty() ? std::string("the peer's") : peer + "'s") +
               " job log, `dmesg -T` of both hosts, and `ethtool -S` with hw_counters of both "
               "hosts before and after the failure, with a `timestamp` file each";
    const std::string& k = causes.front().kind;
    const std::string& what = causes.front().what;
    if (k == "peer_gone")
        return "the peer went away first (" + what +
               "): every surviving peer of a dead process gets status 12; look at the peer's "
               "own log and uptime first";
    if (k == "timeout")
        return "the retry timeout is short (" + what +
               "): a pause or a congested moment longer than that fails the QP; use the "
               "default NCCL_IB_TIMEOUT=20 (about 4.3 s per try)";
    if (k == "config") return "the job's own setting (" + what + ")";
    if (k == "link") return "a link went down in that window (" + what + ")";
    if (k == "physical")
        return "physical-layer errors rose (" + what +
               "): packets were corrupted on the wire; check the cable, optics and FEC";
    if (k == "pause") return "a pause storm held the traffic (" + what + ")";
    return "packets were lost and retransmitted (" + what + ")";
}

/// One (host, status) group of error completions, with what its sentences say: the peers in
/// order of first appearance (by name or address), "towards ..." and ", N times".
struct ErrorGroup {
    const std::vector<const Placed*>& list;
    const Placed& first;
    std::vector<const Placed*> peers;
    std::string peer;     ///< the one peer, when there is one
    std::string towards;  ///< " towards P" / " towards 3 peers (a, b, c)" / ""
    std::string times;    ///< ", N times" / ""
    std::string where;    ///< "host device"
};

ErrorGroup error_group(const std::vector<const Placed*>& list) {
    ErrorGroup g{list, *list.front(), {}, {}, {}, {}, {}};
    const Placed& first = g.first;
    auto& peers = g.peers;
    std::set<std::string> seen_peers;
    for (const Placed* e : list)
        if (const std::string name = peer_of(*e); !name.empty() && seen_peers.insert(name).second)
            peers.push_back(e);
    constexpr std::size_t kPeersNamed = 4;
    if (peers.size() == 1) {
        g.peer = peer_of(*peers.front());
        g.towards = " towards " + g.peer;
    } else if (peers.size() > 1) {
        g.towards = " towards " + std::to_string(peers.size()) + " peers (";
        for (std::size_t i = 0; i < peers.size() && i < kPeersNamed; ++i)
            g.towards += (i ? ", " : "") + peer_of(*peers[i]);
        g.towards += peers.size() > kPeersNamed ? ", ...)" : ")";
    }
    g.times = list.size() > 1 ? ", " + std::to_string(list.size()) + " times" : "";
    g.where = (first.host.empty() ? std::string("a host") : first.host) +
              (first.event.device.empty() ? "" : " " + first.event.device);
    return g;
}

/// job_retry_exceeded (status 12): the causes found in the retry window before the error, for
/// each of the group's peers (up to 8), strongest first.
Finding retry_exceeded_finding(const SeriesStore& store, const EngineResult& result,
                               const std::vector<Placed>& events, const ErrorGroup& g) {
    const Placed& first = g.first;
    const auto& peers = g.peers;
    const std::string &towards = g.towards, &times = g.times, &where = g.where;
    Window w;
    Finding f;
    const RetrySettings rs = retry_settings(events, first.host);
    if (first.timed) w = {first.t - rs.window_s() - 5, first.t + 5, false};
    std::vector<Cause> causes;
    constexpr std::size_t kPeersSearched = 8;
    if (peers.empty()) causes = retry_causes(store, result, events, first.host, {}, w);
    for (std::size_t i = 0; i < peers.size() && i < kPeersSearched; ++i) {
        auto more = retry_causes(store, result, events, first.host, peers[i]->peer_host, w);
        causes.insert(causes.end(), more.begin(), more.end());
    }
    std::stable_sort(causes.begin(), causes.end(), [](const Cause& a, const Cause& b) {
        return cause_rank(a.kind) < cause_rank(b.kind);
    });
    // A short timeout turns a pause or a congested moment into a dead QP.
    constexpr unsigned kShortTimeout = 14;  // 4.096 us x 2^14 = 67 ms per try
    if (rs.timeout < kShortTimeout) {
        char buf[200];
        std::snprintf(buf, sizeof buf,
                      "NCCL_IB_TIMEOUT=%u: %.1f ms per try, %.0f ms for all %u tries", rs.timeout,
                      4.096e-3 * std::ldexp(1.0, rs.timeout), rs.window_s() * 1000,
                      rs.retry_cnt + 1);
        // Before the transport counters: a short timer's expiries are what
        // ack_timeouts counts, a symptom of the setting more than of loss.
        const auto transport = std::find_if(causes.begin(), causes.end(),
                                            [](const Cause& c) { return c.kind == "transport"; });
        causes.insert(transport, {"timeout", buf, "", first.host});
    }
    f = log_finding("job_retry_exceeded", first);
    const bool common = peers.size() > 1 && (causes.empty() || causes.front().kind != "peer_gone");
    f.summary = where + ": " + status_phrase(first.event) + towards + times + "; " +
                (common ? "failing towards several peers at once points at what they "
                          "share, this host's port, NIC or switch port; "
                        : "") +
                retry_conclusion(causes, peers.size() == 1 ? first.peer_host : "");
    f.explanation =
        "The sender retried (retry_cnt + 1) times with a timeout of 4.096 us x "
        "2^timeout each (" +
        std::to_string(static_cast<int>(std::lround(rs.window_s()))) +
        " s at NCCL_IB_TIMEOUT=" + std::to_string(rs.timeout) +
        ", NCCL_IB_RETRY_CNT=" + std::to_string(rs.retry_cnt) +
        ") without an ACK: the loss happened that long before the error.";
    add_causes(f, causes);
    f.confidence = causes.empty() ? "low" : "medium";
    f.confidence_reason = causes.empty() ? "the data holds no explaining evidence"
                                         : "the cause is the evidence the data holds in "
                                           "that window, first in the order checked";
    return f;
}

/// job_rnr_retry_exceeded (status 13): the receiver's RNR counters and findings around it.
Finding rnr_retry_finding(const SeriesStore& store, const EngineResult& result,
                          const ErrorGroup& g) {
    const Placed& first = g.first;
    const std::string &peer = g.peer, &towards = g.towards, &times = g.times, &where = g.where;
    Finding f;
    std::vector<Cause> causes;
    Window ww;
    if (first.timed) ww = {first.t - 60, first.t + 5, false};
    if (!first.peer_host.empty()) {
        counter_rises(store, first.peer_host, {"rnr_nak_sent", "rx_out_of_buffer"}, ww, "rnr",
                      causes);
        findings_of(result, first.peer_host, {"rnr", "lifetime_rnr"}, ww, "rnr", causes);
    }
    counter_rises(store, first.host, {"rnr_nak_received"}, ww, "rnr", causes);
    f = log_finding("job_rnr_retry_exceeded", first);
    f.summary = where + ": " + status_phrase(first.event) + towards + times + "; the receiver" +
                (peer.empty() ? "" : " " + peer) +
                " ran out of posted receive WQEs (receiver not ready) longer than the "
                "sender's rnr_retry allows: post receives sooner or deeper there, or "
                "raise rnr_retry (7 = retry for ever, as NCCL and UCX do)";
    add_causes(f, causes);
    f.confidence = causes.empty() ? "medium" : "high";
    return f;
}

/// Error completions on the host side, not the link: the rule and what the summary adds.
struct HostSideStatusDef {
    int status;
    const char* rule;
    const char* advice;
};
constexpr HostSideStatusDef kHostSideStatuses[] = {
    {10, "job_remote_access_error",
     "; host side, not the link: the application or its memory registration (an MR deregistered "
     "by the peer during teardown or restart, GPU memory invalidated under peermem/dma-buf, a "
     "wrong rkey or address)"},
    {4, "job_local_protection_error",
     "; host side: the local buffer is not registered for this access. With GPUDirect RDMA this "
     "is PCIe ACS or IOMMU settings (NCCL's own hint): check ACS on the PCIe switches and "
     "iommu=pt"},
};

/// A status without causes of its own to search: a host-side status's advice (medium), or the
/// bare error (low).
Finding plain_completion_finding(const ErrorGroup& g, int status) {
    const Placed& first = g.first;
    const std::string said = g.where + ": " + status_phrase(first.event) + g.towards + g.times;
    for (const HostSideStatusDef& d : kHostSideStatuses) {
        if (status != d.status) continue;
        Finding f = log_finding(d.rule, first);
        f.summary = said + d.advice;
        f.confidence = "medium";
        return f;
    }
    Finding f = log_finding("job_completion_error", first);
    f.summary = said;
    f.confidence = "low";
    return f;
}

/// The finding of one (host, status) group of error completions.
Finding completion_finding(const SeriesStore& store, const EngineResult& result,
                           const std::vector<Placed>& events, const ErrorGroup& g, int status) {
    const auto& list = g.list;
    Finding f = status == 12   ? retry_exceeded_finding(store, result, events, g)
                : status == 13 ? rnr_retry_finding(store, result, g)
                               : plain_completion_finding(g, status);
    for (std::size_t i = 0; i < list.size() && i < 5; ++i)
        f.evidence.insert(f.evidence.begin() + static_cast<std::ptrdiff_t>(i),
                          line_evidence(*list[i]));
    for (const Placed* e : list) f.timeline.push_back(timeline_of(*e, result.wall_clock));
    return f;
}

void completion_findings(const SeriesStore& store, EngineResult& result,
                         const std::vector<Placed>& events) {
    // One finding per (host, status): the first line, the count, the peers, the causes. A host
    // that fails towards many peers at once is one finding (its own port is the common part).
    std::map<std::pair<std::string, int>, std::vector<const Placed*>> groups;
    for (const auto& e : events)
        if (e.event.kind == "completion_error" && e.event.wc_status != 5)
            groups[{e.host, e.event.wc_status.value_or(-1)}].push_back(&e);
    std::vector<Finding> found;
    for (const auto& [key, list] : groups)
        found.push_back(completion_finding(store, result, events, error_group(list), key.second));
    for (auto& f : found) result.findings.push_back(std::move(f));
}

/// Flushed work requests (status 5) are a consequence: cited by the finding of the first cause
/// on the host or its peer; alone after the host's process was killed they are benign; else a
/// finding that says the first cause is not in the data.
void flush_findings(EngineResult& result, const std::vector<Placed>& events,
                    std::size_t first_new) {
    std::map<std::string, std::vector<const Placed*>> by_host;
    for (const auto& e : events)
        if (e.event.kind == "completion_error" && e.event.wc_status == 5)
            by_host[e.host].push_back(&e);
    for (const auto& by : by_host) {
        const std::string& host = by.first;  // named: lambdas below capture it
        const auto& list = by.second;
        Finding* cause = nullptr;
        for (std::size_t i = first_new; i < result.findings.size() && !cause; ++i)
            if (result.findings[i].host == host) cause = &result.findings[i];
        if (cause) {
            cause->evidence.push_back(
                Evidence{"consequence",
                         std::to_string(list.size()) + " work requests flushed (status 5) after it",
                         "", list.front()->event.source});
            continue;
        }
        const bool killed = std::any_of(events.begin(), events.end(), [&](const Placed& e) {
            return e.host == host && (e.event.kind == "process_killed");
        });
        const bool async = std::any_of(events.begin(), events.end(), [&](const Placed& e) {
            return e.host == host && e.event.kind == "async_event";
        });
        if ((killed && !async) || (list.size() == 1 && !async)) {
            result.notes.push_back(Note{host, "work requests flushed (status 5) at " +
                                                  list.front()->event.source +
                                                  ": the job's teardown or a killed process, "
                                                  "not a fault of its own"});
            continue;
        }
        Finding f = log_finding("job_wr_flushed", *list.front());
        f.summary = host + ": " + std::to_string(list.size()) +
                    " work requests flushed (status 5): a consequence of an earlier error "
                    "(a QP moved to the error state); the first cause is not in the data: look "
                    "for the first error completion or async event before " +
                    list.front()->event.source + ", on this host and its peers";
        for (std::size_t i = 0; i < list.size() && i < 3; ++i)
            f.evidence.push_back(line_evidence(*list[i]));
        f.confidence = "low";
        result.findings.push_back(std::move(f));
    }
}

/// Seconds after boot within which the kernel's link messages are the NIC coming up.
constexpr double kBootSettleS = 180;

/// Some of `downs` is a link going down while the host ran: later than kBootSettleS after
/// boot (or not boot-stamped), or followed by the link coming up again (a flap).
bool went_down_running(const std::vector<Placed>& events, const std::vector<const Placed*>& downs) {
    for (const Placed* d : downs) {
        if (d->event.kind != "link_down") return true;
        if (d->event.clock != LogClock::boot || d->event.time_s > kBootSettleS) return true;
        for (const auto& e : events)
            if (e.host == d->host && e.event.kind == "link_up" &&
                e.event.netdev == d->event.netdev && e.event.file == d->event.file &&
                e.event.line > d->event.line)
                return true;
    }
    return false;
}

using KernelGroups =
    std::map<std::tuple<std::string, std::string, std::string>, std::vector<const Placed*>>;

/// The kernel's lines by (host, kind, netdev or device), in order.
KernelGroups kernel_groups(const std::vector<Placed>& events) {
    KernelGroups groups;
    for (const auto& e : events) {
        const std::string& k = e.event.kind;
        if (k == "link_down" || k == "async_event" || k == "command_timeout" ||
            k == "aer_uncorrected" || k == "aer_corrected")
            groups[{e.host, k, e.event.netdev.empty() ? e.event.device : e.event.netdev}].push_back(
                &e);
    }
    return groups;
}

/// Whether a finding from `first_new` on already cites `source` as evidence.
bool cited_by_new_finding(const EngineResult& result, std::size_t first_new,
                          const std::string& source) {
    bool cited = false;
    for (std::size_t i = first_new; i < result.findings.size(); ++i)
        for (const auto& ev : result.findings[i].evidence) cited = cited || ev.source == source;
    return cited;
}

/// The counters' own finding of `host`'s link (link_flap, port_not_active), if any.
Finding* link_finding_of(EngineResult& result, const std::string& host) {
    for (Finding& lf : result.findings)
        if (lf.host == host && (lf.rule_id == "link_flap" || lf.rule_id == "port_not_active"))
            return &lf;
    return nullptr;
}

/// Cites `lines` in `f`: the first 5 as evidence, all of them in its timeline.
void cite_lines(Finding& f, const std::vector<const Placed*>& lines, bool wall_clock) {
    for (std::size_t i = 0; i < lines.size() && i < 5; ++i)
        f.evidence.push_back(line_evidence(*lines[i]));
    for (const Placed* e : lines) f.timeline.push_back(timeline_of(*e, wall_clock));
}

/// A link down or async event group: nothing when it is already evidence (cited by a job
/// error's finding, or added to the counters' link finding), boot-time or a GID change.
std::optional<Finding> link_event_finding(EngineResult& result, const std::vector<Placed>& events,
                                          std::size_t first_new, const std::string& host,
                                          const std::string& kind, const std::string& what,
                                          const std::vector<const Placed*>& lines) {
    const Placed& first = *lines.front();
    const std::string n = std::to_string(lines.size());
    if (cited_by_new_finding(result, first_new, first.event.source)) return std::nullopt;
    if (Finding* lf = kind == "link_down" ? link_finding_of(result, host) : nullptr) {
        cite_lines(*lf, lines, result.wall_clock);
        std::stable_sort(lf->timeline.begin(), lf->timeline.end(),
                         [](const TimelineEvent& a, const TimelineEvent& b) { return a.t < b.t; });
        return std::nullopt;
    }
    // A port that went down during boot and never came up is not cabled or not used (the port
    // rules judge it); a link down while running is a fault.
    if (kind == "link_down" && !went_down_running(events, lines)) return std::nullopt;
    if (kind == "async_event" && first.event.status_text.find("GID") != std::string::npos)
        return std::nullopt;  // GID table changes: listed, not a fault
    Finding f = log_finding(kind == "link_down" ? "kernel_link_down" : "job_async_event", first);
    f.summary = kind == "link_down"
                    ? host + " " + what + ": the kernel logged the link going down " + n +
                          " time(s): RDMA traffic on it stalls and retries until "
                          "it is back (check the cable, optics and the switch port)"
                    : host + " " + what + ": the job got an RDMA async event (" +
                          first.event.status_text + ") " + n +
                          " time(s): the port went down or the device failed under it";
    return f;
}

/// The kernel's own errors: the rule, how many lines make a finding, what follows the count.
struct KernelErrorDef {
    const char* kind;
    const char* rule;
    std::size_t min_lines;
    const char* text;
};
constexpr KernelErrorDef kKernelErrors[] = {
    {"command_timeout", "kernel_command_timeout", 1,
     " firmware command timeout(s): the NIC's firmware stopped answering the driver; update the "
     "firmware, and collect `mlxfwreset`/health data"},
    {"aer_uncorrected", "kernel_pcie_error", 1,
     " uncorrectable PCIe error(s) (AER): the device may have been reset under the job; check "
     "the slot, riser and firmware"},
    // A few corrected errors are ordinary.
    {"aer_corrected", "kernel_pcie_corrected_errors", 10,
     " corrected PCIe errors (AER) logged: a marginal PCIe link; watch for downtraining and "
     "check the slot and riser"},
};

/// A firmware command timeout or PCIe error group, when it has enough lines.
std::optional<Finding> kernel_error_finding(const std::string& host, const std::string& kind,
                                            const std::string& what,
                                            const std::vector<const Placed*>& lines) {
    for (const KernelErrorDef& d : kKernelErrors) {
        if (kind != d.kind) continue;
        if (lines.size() < d.min_lines) return std::nullopt;
        Finding f = log_finding(d.rule, *lines.front());
        f.summary = host + " " + what + ": " + std::to_string(lines.size()) + d.text;
        return f;
    }
    return std::nullopt;
}

/// Async port errors and the kernel's own findings: a link that went down, firmware command
/// timeouts, PCIe errors.
void kernel_findings(EngineResult& result, const std::vector<Placed>& events,
                     std::size_t first_new) {
    std::vector<Finding> found;
    for (const auto& [key, lines] : kernel_groups(events)) {
        const auto& [host, kind, what] = key;
        std::optional<Finding> f =
            kind == "link_down" || kind == "async_event"
                ? link_event_finding(result, events, first_new, host, kind, what, lines)
                : kernel_error_finding(host, kind, what, lines);
        if (!f) continue;
        cite_lines(*f, lines, result.wall_clock);
        f->confidence = "medium";
        found.push_back(std::move(*f));
    }
    for (auto& f : found) result.findings.push_back(std::move(f));
}

/// perftest results far below the port's rate: under half of it.
void slow_result_findings(const SeriesStore& store, EngineResult& result,
                          const std::vector<Placed>& events) {
    for (const auto& e : events) {
        if (e.event.kind != "slow_result" || !e.event.value) continue;
        double rate = 0;
        for (const Series* s : store.find("port_rate_gbps"))
            if (s->key.host == e.host && !s->points.empty())
                if (auto v = s->points.back().value()) rate = std::max(rate, *v);
        if (rate <= 0 || *e.event.value >= rate / 2) continue;
        Finding f = log_finding("job_slow_result", e);
        char buf[160];
        std::snprintf(buf, sizeof buf, "%.1f Gb/s of a %.0f Gb/s port (%.0f %%)", *e.event.value,
                      rate, 100 * *e.event.value / rate);
        f.summary = e.host + ": a perftest run reached " + buf +
                    ": far below the link rate (one QP and a small message size, PCIe, or "
                    "pause/congestion; compare with the port's pause counters)";
        f.evidence.push_back(line_evidence(e));
        f.confidence = "low";
        result.findings.push_back(std::move(f));
    }
}

}  // namespace

void judge_log_events(const SeriesStore& store, EngineResult& result) {
    const auto& events = store.log_events();
    if (events.empty()) return;
    result.log_events = events;
    const std::size_t first_new = result.findings.size();
    qos_findings(store, result, events);  // first: a wrong GID or class explains errors
    completion_findings(store, result, events);
    flush_findings(result, events, first_new);
    kernel_findings(result, events, first_new);
    slow_result_findings(store, result, events);
}

}  // namespace rh
