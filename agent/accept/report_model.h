// The acceptance report (DIR/report.json, schema 1) as C++ types, with JSON reading (validated:
// every problem names its JSON path) and writing. agent/accept/README.md documents each field;
// this header mirrors it. The renderers (render_html.h, render_md.h) read these types only.
//
// Conventions: units are in the field names (_us microseconds, _s seconds, _gbps 10^9 bit/s,
// _mib_s 2^20 bytes/s, _bytes bytes, _ms milliseconds); a measurement that was not made or
// could not be read is null in JSON and std::nullopt here — never 0. Times t_s/start_s/end_s are
// seconds since the report's started_wall_ms.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <ostream>
#include <string>
#include <utility>
#include <variant>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/finding.h"
#include "core/json/json_reader.h"

namespace rh::accept {

inline constexpr int kReportSchema = 1;

enum class Verdict { pass, fail, incomplete };
/// not_run: the run stopped (Report::interrupted) before the stage began.
enum class StageVerdict { pass, fail, skipped, error, not_run };
enum class StageId {
    inventory,
    idle_latency,
    bandwidth,
    concurrency,
    incast,
    fault,
    rkey_revocation
};

/// All stage ids in run order.
const std::vector<StageId>& all_stage_ids();
std::string to_string(Verdict v);
std::string to_string(StageVerdict v);
std::string to_string(StageId id);
inline std::ostream& operator<<(std::ostream& os, Verdict v) {
    return os << to_string(v);
}
inline std::ostream& operator<<(std::ostream& os, StageVerdict v) {
    return os << to_string(v);
}
inline std::ostream& operator<<(std::ostream& os, StageId id) {
    return os << to_string(id);
}
/// Parses "pass"/"fail"/"incomplete" etc.; nullopt for anything else.
std::optional<Verdict> verdict_from(const std::string& s);
std::optional<StageVerdict> stage_verdict_from(const std::string& s);
std::optional<StageId> stage_id_from(const std::string& s);
/// The title shown when a stage has none: "Idle latency baseline", "Incast (N to 1)", ...
std::string default_title(StageId id);

/// A criterion's threshold or measured value: a number, a string ("IBV_WC_REM_ACCESS_ERR",
/// "9000 on every host") or nothing (null: not measured).
using Scalar = std::variant<std::monostate, double, std::string>;

/// One pass/fail criterion of a stage: `measured` `comparison` `threshold` must hold.
/// comparison: "<=", "<", ">=", ">", "==" (numbers or strings), "!=".
struct Criterion {
    std::string name;        ///< "p99 WRITE latency at 64 B, worst pair"
    std::string comparison;  ///< see above
    Scalar threshold;
    std::string unit;  ///< of threshold and measured ("us", "fraction", "" for text)
    Scalar measured;   ///< null when it could not be measured (then pass is false)
    bool pass = false;
    /// JSON pointers into this stage showing why: "/results/latency/3", "/findings/0",
    /// "/counter_timelines/2", "/results/consistency/1", "/results".
    std::vector<std::string> evidence;
};

/// Whether `measured comparison threshold` holds; false when either is null, the types differ
/// (number vs string) or the comparison is unknown. Ordering comparisons need numbers.
bool criterion_holds(const Criterion& c);

/// A moment or a period on the stage's charts: a vertical line ("port ACTIVE") or, with end_s,
/// a shaded span ("incast" from its start to its end, "link down").
struct Mark {
    double t_s = 0;
    std::string label;
    std::optional<double> end_s;
};

/// One counter series over the stage window. A null value is a sample that could not be read
/// (a gap in the chart), never zero.
struct CounterTimeline {
    std::string host;
    std::string series;  ///< normalized name (store/README.md), e.g. "pfc_pause_duration_us"
    Labels labels;
    std::string unit;  ///< of the plotted value, e.g. "us/s" for a rate of a _us counter
    std::vector<std::pair<double, std::optional<double>>> points;  ///< [t_s, value]
};

/// A file of the run beside report.json (a recording for `diagnose --replay`, raw probe
/// output): `href` is a relative path inside DIR (no scheme, no "..", not absolute).
struct EvidenceLink {
    std::string label;
    std::string href;
};

struct Host {
    std::string name;     ///< as the spec names it; results refer to hosts by this name
    std::string address;  ///< agent address used
    std::string version;  ///< the host's rocehealth version; "" when unknown
};

// ---- stage results ----------------------------------------------------------------------------

/// Per-NIC inventory facts. Unknown facts are nullopt/empty.
struct InventoryNic {
    std::string device;  ///< "mlx5_0"
    unsigned port = 0;   ///< 1-based
    std::string netdev;
    std::string model;                      ///< NIC model / board id, "" when unknown
    std::string firmware;                   ///< fw_ver
    std::string pcie_current;               ///< "16 GT/s x16" of the NIC function
    std::string pcie_max;                   ///< "16 GT/s x16"
    std::string pcie_limited_by;            ///< BDF of the link that limits, "" when none
    std::optional<std::int64_t> numa_node;  ///< -1 = the kernel reports none
    std::optional<std::uint64_t> netdev_mtu_bytes;
    std::optional<std::uint64_t> active_mtu_bytes;  ///< RoCE active_mtu
    std::optional<double> link_gbps;
    std::string roce_version;  ///< "v2", "v1", "" unknown
    std::optional<std::uint64_t> gid_index;
    std::optional<std::vector<unsigned>> pfc_priorities;  ///< nullopt = could not be read
    std::optional<std::vector<unsigned>> ecn_priorities;
    std::string trust;  ///< "pcp" | "dscp" | "" unknown
};
struct InventoryHost {
    std::string host;
    std::string kernel;
    std::optional<std::uint64_t> memlock_limit_bytes;  ///< nullopt: unknown or unlimited
    bool memlock_unlimited = false;
    std::vector<InventoryNic> nics;
};
/// One fact compared across hosts: which value each host has, which hosts differ.
struct ConsistencyRow {
    std::string fact;        ///< e.g. "netdev_mtu_bytes"
    bool must_match = true;  ///< false: shown for information (e.g. firmware may differ)
    struct Group {
        std::string value;  ///< as printed; "unknown" when not read
        std::vector<std::string> hosts;
    };
    std::vector<Group> values;                 ///< most common first
    std::vector<std::string> differing_hosts;  ///< hosts outside the most common group
    bool consistent = true;
};
struct InventoryResults {
    std::vector<InventoryHost> hosts;
    std::vector<ConsistencyRow> consistency;
};

/// One (src, dst, op, size) latency phase: the probe's LatencyStats
/// (probes/latency/latency_stats.h) as measured from src to dst's responder, plus an optional CDF.
struct LatencyResult {
    std::string src, dst;
    std::string op;  ///< "write" | "read"
    std::uint64_t size_bytes = 0;
    std::uint64_t iterations = 0;
    std::optional<double> min_us, p50_us, p99_us, p999_us, max_us, mean_us;  ///< null on error
    std::optional<std::uint64_t> checksum_errors;
    std::string error;  ///< non-empty when the phase failed
    /// Optional: [latency_us, cumulative fraction] ascending in both; the renderer falls back to
    /// min/p50/p99/p99.9/max when empty.
    std::vector<std::pair<double, double>> cdf;
};
struct IdleLatencyResults {
    bool sampled = false;           ///< true: a subset of pairs (large fabric)
    std::uint64_t pairs_total = 0;  ///< ordered pairs in the fabric
    std::string sampling;           ///< how pairs were chosen, when sampled
    std::vector<LatencyResult> latency;
};

/// Throughput of one flow, src -> dst.
struct FlowResult {
    std::string src, dst;
    std::string op;                   ///< "write" | "read" | "send"
    std::optional<double> gbps;       ///< goodput, 10^9 bit/s
    std::optional<double> link_gbps;  ///< the slower end's link rate
    std::optional<double> fraction;   ///< gbps / link_gbps
    double duration_s = 0;
    std::string error;
};
struct BandwidthResults {
    std::vector<FlowResult> pairs;  ///< one pair at a time
};
struct ConcurrencyResults {
    std::uint64_t concurrent_pairs = 0;
    double duration_s = 0;
    std::vector<FlowResult> flows;
    std::optional<double> aggregate_gbps;
    std::optional<double> jain_index;  ///< fairness of flows' gbps, 1/n..1
};

struct Percentiles {
    std::optional<double> p50_us, p99_us, p999_us;
};
struct IncastSender {
    std::string host;
    std::optional<double> goodput_gbps;
    std::optional<double> goodput_mib_s;
    std::map<std::string, std::uint64_t> errors_by_status;  ///< "IBV_WC_RETRY_EXC_ERR" -> count
};
struct IncastResults {
    std::string receiver;
    std::uint64_t message_size_bytes = 0;
    double duration_s = 0;
    std::vector<IncastSender> senders;
    std::optional<double> aggregate_goodput_gbps, aggregate_goodput_mib_s, link_gbps, fraction;
    std::optional<double> jain_index;
    /// What the receiver looked at (agent/reports/incast_report.h "integrity"): slots that failed a
    /// check; of the received messages, those whose whole payload was hashed and their bytes,
    /// and that share (0..1). Every received message's trailer is checked regardless. Absent in
    /// reports written before protocol 4.
    std::optional<std::uint64_t> bad_slots, verified_messages, verified_bytes;
    std::optional<double> verified_fraction;
    struct Victim {
        std::string src, dst, op;
        std::uint64_t size_bytes = 0;
        Percentiles before, during;
    };
    std::optional<Victim> victim;  ///< the latency probe that ran beside the incast
};

struct FaultResults {
    std::string host, device, netdev;  ///< the link taken down
    std::string traffic_src, traffic_dst;
    std::optional<double> link_down_s, link_up_s;  ///< when the fault was applied / removed
    std::optional<double> link_recovery_s;         ///< link_up -> port ACTIVE again
    std::optional<double> traffic_recovery_s;      ///< link_up -> RDMA traffic src -> dst back
    std::optional<double> traffic_attempts;        ///< connections tried after the link was back
    /// 64 B RDMA WRITE half round trip src -> dst before the fault and once traffic was back (µs).
    std::optional<double> baseline_p50_us, recovered_p50_us;
    /// Routes and addresses that taking the link down removed and the run put back
    /// (probes/fault/net_setup.h), e.g. "route 10.200.0.0/24 via 10.99.0.11 table 254".
    std::vector<std::string> restored;
    /// What the fault left changed: not restored ("not restored: route ...: why"), GIDs gone.
    std::vector<std::string> setup_changes;
};

struct RkeyAttempt {
    std::string src, dst, op;
    std::string expected_status;  ///< "IBV_WC_REM_ACCESS_ERR"
    std::string got_status;       ///< the completion status seen ("IBV_WC_SUCCESS" fails)
    bool pass = false;
};
struct RkeyResults {
    std::vector<RkeyAttempt> attempts;
};

using StageResults =
    std::variant<std::monostate, InventoryResults, IdleLatencyResults, BandwidthResults,
                 ConcurrencyResults, IncastResults, FaultResults, RkeyResults>;

struct Stage {
    StageId id = StageId::inventory;
    std::string title;
    StageVerdict verdict = StageVerdict::skipped;
    std::string reason;  ///< why skipped / error; optional note otherwise
    std::optional<double> start_s, end_s;
    std::vector<Criterion> criteria;
    StageResults results;           ///< monostate when the stage produced none (skipped, error)
    std::vector<Finding> findings;  ///< diagnose findings over this stage's window
    std::vector<CounterTimeline> counter_timelines;
    std::vector<Mark> marks;
    std::vector<EvidenceLink> evidence_links;
};

/// Tallies the summaries show: criteria met, findings of severity error and warning.
struct StageCounts {
    std::size_t criteria_met = 0, error_findings = 0, warning_findings = 0;
};
StageCounts stage_counts(const Stage& s);
/// The stage's title, or default_title(id) when it has none.
std::string title_of(const Stage& s);

/// Why a run ended before its last stage (issue 16 §3): SIGINT/SIGTERM, or a stage that ran past
/// its time limit (the spec's stage_time_limit_s).
struct Interruption {
    StageId stage = StageId::inventory;  ///< the stage cut short (or the next one, between stages)
    std::string cause;                   ///< "signal" | "time_limit"
    /// "interrupted by SIGTERM 12 s into the stage", "stage bandwidth exceeded its 120 s limit"
    std::string reason;
};

struct Report {
    int schema = kReportSchema;
    Verdict verdict = Verdict::incomplete;
    nlohmann::json spec = nlohmann::json::object();          ///< the spec with defaults filled
    std::int64_t started_wall_ms = 0, finished_wall_ms = 0;  ///< UTC ms since the epoch
    std::vector<Host> hosts;
    std::vector<Stage> stages;
    /// Set when the run was stopped early: then the verdict is incomplete, the stage it names is
    /// `error` (cut short, keeping what it measured) or `not_run`, and later stages `not_run`.
    std::optional<Interruption> interrupted;

    const Stage* stage(StageId id) const;
};

/// The verdict the stages imply: fail if any stage failed, else incomplete if any ended in
/// error or was not run, else pass (skipped stages do not count against it).
Verdict derived_verdict(const std::vector<Stage>& stages);
/// The report's verdict: incomplete when it was interrupted (even if a finished stage failed:
/// the run did not finish; the failing stage shows in the table), else derived_verdict(stages).
Verdict derived_verdict(const Report& r);

/// Reading gives either a report or every problem found (paths from the document root).
struct ParsedReport {
    std::optional<Report> report;
    JsonErrors errors;
};

/// Reads and validates a report document: types and required fields, schema == 1, each stage
/// id exactly once, hosts named in results are in hosts[], criteria agree with their
/// measured/threshold values, stage verdicts with their criteria, the report verdict with its
/// stages, evidence pointers resolve, evidence links stay inside DIR. Unknown members are
/// ignored.
ParsedReport report_from_json(const nlohmann::json& j);

/// report.json text -> ParsedReport; a JSON syntax error is one error naming line and column.
ParsedReport report_from_text(const std::string& text);

/// The document, in the documented field order; report_from_json(report_to_json(r)) == r.
nlohmann::json report_to_json(const Report& r);

}  // namespace rh::accept
