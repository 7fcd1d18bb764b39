// The result of `rocehealth incast`: one typed model (IncastReport) that the JSON writer and the
// text formatter both take, so both say the same. Units are in the names: _gbps = Gb/s = 10^9
// bit/s, _mib_per_s = 2^20 byte/s, _us, _ms, _s; times "utc_ms" are the coordinator's clock (each
// participant's own times corrected by its measured clock offset).
//
// JSON shape (schema 1):
//   {"schema": 1, "id", "coordinator",
//    "config": {receiver, senders, op, size_bytes, qps_per_sender, queue_depth, duration_s},
//    "start_utc_ms", "end_utc_ms",
//    "receiver": {name, hostname, device, port, port_rate, link_rate_gbps, active_mtu,
//                 clock_offset_ms, rtt_ms, counters: {sampled, passes, samples, error}},
//    "senders": [{name, hostname, status, error, clock_offset_ms, start_late_ms, qps,
//                 messages_posted, messages_completed, messages_failed, messages_received,
//                 intact_bytes, bad_slots, verified_messages, verified_bytes,
//                 verified_fraction, bad: {kind: n}, errors: {IBV_WC_*: n},
//                 receiver_errors: {IBV_WC_*: n}, active_s, goodput_gbps, goodput_mib_per_s,
//                 notes: [...], counters: {...}}],
//    "aggregate": {goodput_gbps, goodput_mib_per_s, link_rate_gbps, share_of_link, senders_ran,
//                  senders_total},
//    "fairness": {jain_index, senders},
//    "completion": {first_finish_s, last_finish_s, spread_ms},
//    "integrity": {messages_verified, verified_messages, verified_bytes, verified_fraction,
//                  bad_slots, bad: {kind: n}},
//      messages_verified: received messages, each checked at least by its trailer (seq, checksum
//      field, first 64 payload bytes); verified_messages/_bytes: of them, those whose whole
//      payload was hashed too (stream_protocol.h verify_ppm); verified_fraction =
//      verified_messages / messages_verified (null when none arrived). "0 bad slots" covers
//      the trailers of all messages and the payloads of verified_bytes.
//    "errors": {IBV_WC_*: n}                          (senders' and receiver's completions),
//    "victim": {ran, error, from, to, size_bytes, before: LatencyStats, during: LatencyStats,
//               p99_ratio, p99_rose, verdict},
//    "per_second": [{t_s, aggregate_gbps}],          (from the senders' progress reports)
//    "activity": {host: [{utc_ms, <counter>_per_s}]},  (counters, per sampling interval)
//    "timeline": [{utc_ms, host, source, text}],      (the test's events + the findings')
//    "diagnosis": the DiagnoseReport JSON (findings over the samples) | null,
//    "findings": [rule ids], "notes": [...], "ok": bool}
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <ostream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "agent/reports/incast_analysis.h"
#include "probes/incast/incast_run.h"

namespace rh {

/// The victim's p99 "rose" when it is at least this many times the baseline p99.
inline constexpr double kVictimRiseFactor = 1.5;

/// Counts by name: completion statuses (IBV_WC_*) or kinds of bad slot.
using IncastCounts = std::map<std::string, std::uint64_t>;

/// A participant's counter sampling: "counters" of the receiver and of each sender.
struct IncastCounters {
    bool sampled = false;
    unsigned passes = 0;
    std::size_t samples = 0;
    std::string error;  ///< why not sampled (or the host's error)
};

/// What the receiver looked at ("integrity" above), over all senders or one.
struct IncastIntegrity {
    std::uint64_t messages_verified = 0;  ///< received, each checked by its trailer
    std::uint64_t verified_messages = 0;  ///< of them, whole payload hashed
    std::uint64_t verified_bytes = 0;
    std::uint64_t bad_slots = 0;
    IncastCounts bad;  ///< by kind
    /// verified_messages / messages_verified; none when nothing arrived.
    std::optional<double> verified_fraction() const;
};

struct IncastSenderRow {
    std::string name, hostname, status, error;
    double clock_offset_ms = 0;
    std::optional<std::int64_t> start_late_ms;  ///< when the sender reported an outcome
    std::optional<std::size_t> qps;             ///< ditto
    std::uint64_t messages_posted = 0, messages_completed = 0, messages_failed = 0;
    IncastIntegrity received;  ///< messages_verified = messages received
    std::uint64_t intact_bytes = 0;
    IncastCounts errors, receiver_errors;
    double active_s = 0;  ///< from its scheduled start to its last completion, seconds
    double goodput_gbps = 0, goodput_mib_per_s = 0;
    std::vector<std::string> notes;
    IncastCounters counters;
};

struct IncastReceiverRow {
    std::string name;
    std::optional<incast::Hello> hello;  ///< hostname, device, port, port_rate, active_mtu
    double clock_offset_ms = 0, rtt_ms = 0;
    std::optional<double> link_rate_gbps;
    std::string link_rate_note;
    IncastCounters counters;
};

struct IncastVictim {
    bool ran = false;
    std::string error, from, to;
    LatencyStats before, during;
    std::optional<double> p99_ratio;  ///< during / before p99, when both were measured
    std::string verdict;              ///< "victim p99 rose during the incast: ..."
    bool p99_rose() const { return p99_ratio && *p99_ratio >= kVictimRiseFactor; }
};

struct IncastTimelineEntry {
    std::int64_t utc_ms = 0;
    std::string host;    ///< "" = the coordinator
    std::string source;  ///< "incast" or "rule <id> (<severity>)"
    std::string text;
};

/// The result of one incast, built by incast_report() where the run is analysed and taken by
/// every formatter (to_json, render_incast_text) and by the acceptance runner.
struct IncastReport {
    std::string id, coordinator;
    incast::Options config;
    std::int64_t start_utc_ms = 0, end_utc_ms = 0;
    IncastReceiverRow receiver;
    std::vector<IncastSenderRow> senders;
    incast::Figures figures;  ///< aggregate, fairness and completion
    unsigned senders_ran = 0;
    IncastIntegrity integrity;
    IncastCounts errors;  ///< senders' and receiver's completions
    IncastVictim victim;
    std::vector<double> per_second_gbps;  ///< aggregate, second 1, 2, ...
    IncastActivity activity;
    std::vector<IncastTimelineEntry> timeline;  ///< by time
    std::optional<DiagnoseReport> diagnosis;
    std::vector<std::string> findings;  ///< "<rule>@<host>" of each diagnosis finding
    std::vector<std::string> notes;
};

IncastReport incast_report(const incast::Run& run, const IncastAnalysis& a);

/// A latency figure of `s` (&LatencyStats::p50_us, p99_us, p999_us) as the report gives it:
/// none when the phase measured nothing (failed or skipped), and p99.9 none below
/// LatencyStats::kMinIterationsForP999 iterations.
std::optional<double> latency_figure(const LatencyStats& s, double LatencyStats::*field);

/// The JSON shape above.
void to_json(nlohmann::json& j, const IncastReport& r);

/// Human-readable rendering of the report.
void render_incast_text(std::ostream& out, const IncastReport& r);

/// 0: every sender completed, no error completion, no bad slot, no finding; 1: any of those;
/// 2: no sender ran at all.
int incast_exit_code(const IncastReport& r);

}  // namespace rh
