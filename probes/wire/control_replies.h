// The replies of the responder's control commands for `rocehealth accept` (the commands are in
// probes/responder/control_dispatch.h): one struct per reply, written by to_json at the responder
// and read by parse_* at the client, both on the one strict reader (core/json/json_reader.h).
// Every field the writer writes is required; a missing field, one of another type or out of range
// is an Error that names the peer and the field, e.g.
//   "read inventory_reply from responder at h1:18520: kernel: missing (expected a string)",
// never a 0 or "" in the acceptance report. Members nobody reads are let through (an added
// optional field costs the reader nothing). The protocol version is checked once per frame by
// the frame header (oob::kJsonVersion, probes/wire/oob_protocol.h) and at the key handshake,
// which binds it: a peer of another version is refused by name before any reply is read.
// Times: wall_ms are UTC milliseconds of the host that wrote them; *_s are seconds. Pure.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <variant>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/result.h"
#include "probes/wire/probe_report.h"

namespace rh::wire {

/// "inventory" -> inventory_reply: the responder host's facts
/// (probes/responder/control_inventory.h).
struct InventoryReply {
    std::string hostname;                              ///< the responder's host name
    std::string version;                               ///< rocehealth's version
    std::string kernel;                                ///< uname release
    std::optional<std::uint64_t> memlock_limit_bytes;  ///< RLIMIT_MEMLOCK; nullopt: unlimited or
                                                       ///< unreadable (null on the wire)
    bool memlock_unlimited = false;
    std::string device;  ///< the RDMA device the responder serves
    unsigned port = 0;
    unsigned gid_index = 0;
    std::string gid;       ///< compact text
    std::string gid_type;  ///< "RoCE v2", ...
    /// collect_snapshot() of the device without counter lists (store/from_snapshot.h
    /// inventory_json): an object, decoded by snapshot_from_json (core/inventory).
    nlohmann::json snapshot = nlohmann::json::object();
    /// Recording lines of that pass (core/recording/sample_json.h): an array of objects.
    nlohmann::json samples = nlohmann::json::array();
};

/// "probe" -> probe_reply: a latency probe from the responder to a peer
/// (probes/responder/control_probe.h).
struct ProbeReply {
    /// What the probe measured; nullopt when it could not run, then `error` says why (on the
    /// wire: report {ok: false, error}).
    std::optional<ProbeReport> report;
    std::string error;
    std::int64_t start_wall_ms = 0;
    std::int64_t end_wall_ms = 0;
    /// Recording lines probe_latency_us / probe_errors (probes/latency/probe_samples.h).
    nlohmann::json samples = nlohmann::json::array();
};

/// "fault" -> fault_reply: the link taken down and up, measured on the responder's clock
/// (probes/responder/control_fault.h says what each time means). nullopt = null on the wire:
/// not measured, or not back within the recovery timeout.
struct FaultReply {
    std::string device;
    unsigned port = 0;
    std::string netdev;
    std::uint64_t down_ms = 0;
    double down_at_s = 0, up_at_s = 0;  ///< from the request's arrival
    std::optional<double> port_left_active_s, link_recovery_s, traffic_recovery_s;
    std::uint64_t traffic_attempts = 0;
    std::optional<double> baseline_p50_us, recovered_p50_us;
    std::string last_error;   ///< why the last traffic attempt failed ("")
    std::string interrupted;  ///< "" or why the sequence was cut short
    std::uint64_t saved_addresses = 0, saved_routes = 0;  ///< wire: saved {addresses, routes}
    std::vector<std::string> restored;
    std::vector<std::string> setup_changes;
};

/// "sample" -> sample_started, then sample_pass frames (a pass split into parts of about 256 KiB,
/// part 0 first), then sample_end (probes/incast/incast_sampling.h).
struct SampleStarted {
    std::int64_t wall_ms = 0;
};
struct SamplePass {
    std::int64_t wall_ms = 0;
    std::uint64_t part = 0;                            ///< 0 = the pass's first frame
    nlohmann::json samples = nlohmann::json::array();  ///< recording lines (core/recording/sample_json.h)
    std::vector<std::string> notes;                    ///< the pass's notes (part 0 only)
};
struct SampleEnd {
    std::uint64_t passes = 0;
    std::string reason;  ///< "max_ms reached", "stopped by the coordinator", ...
};
using SampleReply = std::variant<SampleStarted, SamplePass, SampleEnd>;

/// "rkey_open" -> rkey_ready: the responder's QP and the buffer whose rkey it will revoke
/// (probes/responder/rkey_revocation.h). qpn 1..2^24-1, psn 0..2^24-1, gid 32 hex digits on the
/// wire, active_mtu 256..4096.
struct RkeyReady {
    std::uint32_t qpn = 0, psn = 0;
    std::array<std::uint8_t, 16> gid{};
    unsigned active_mtu = 0;
    std::uint32_t rkey = 0;
    std::uint64_t addr = 0;
    std::uint64_t size_bytes = 0;
};

nlohmann::json to_json(const InventoryReply& m);
nlohmann::json to_json(const ProbeReply& m);
nlohmann::json to_json(const FaultReply& m);
nlohmann::json to_json(const RkeyReady& m);
nlohmann::json to_json(const SampleStarted& m);
nlohmann::json to_json(const SamplePass& m);
nlohmann::json to_json(const SampleEnd& m);

/// Reads a reply `j` from `peer` ("responder at HOST:PORT", named in every error). Error op
/// "read", subject "<cmd> from <peer>", detail one "field: problem" line per problem.
Result<InventoryReply> parse_inventory_reply(const nlohmann::json& j, const std::string& peer);
Result<ProbeReply> parse_probe_reply(const nlohmann::json& j, const std::string& peer);
Result<FaultReply> parse_fault_reply(const nlohmann::json& j, const std::string& peer);
Result<RkeyReady> parse_rkey_ready(const nlohmann::json& j, const std::string& peer);
/// Any of the three sample replies (its cmd picks which).
Result<SampleReply> parse_sample_reply(const nlohmann::json& j, const std::string& peer);

}  // namespace rh::wire
