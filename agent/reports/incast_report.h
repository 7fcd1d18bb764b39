// The result of `rocehealth incast` as a JSON document, and its text rendering (text is rendered
// from the JSON, so both say the same). Units are in the names: _gbps = Gb/s = 10^9 bit/s,
// _mib_per_s = 2^20 byte/s, _us, _ms, _s; times "utc_ms" are the coordinator's clock (each
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
//    "diagnosis": diagnose_json (findings over the samples) | null,
//    "findings": [rule ids], "notes": [...], "ok": bool}
#pragma once

#include <ostream>

#include <nlohmann/json.hpp>

#include "agent/reports/incast_analysis.h"
#include "probes/incast/incast_run.h"

namespace rh {

/// The victim's p99 "rose" when it is at least this many times the baseline p99.
inline constexpr double kVictimRiseFactor = 1.5;

nlohmann::json incast_json(const incast::Run& run, const IncastAnalysis& a);

/// Human-readable rendering of incast_json's document.
void render_incast_text(std::ostream& out, const nlohmann::json& doc);

/// 0: every sender completed, no error completion, no bad slot, no finding; 1: any of those;
/// 2: no sender ran at all.
int incast_exit_code(const nlohmann::json& doc);

}  // namespace rh
