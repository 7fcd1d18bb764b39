// The responder's "probe" control command (probes/responder/control_dispatch.h): run a latency
// probe from this host to another host's responder and return what `rocehealth probe --json`
// prints. The acceptance runner uses it for all-pairs latency without a login on each host.
//
//   C -> R  {cmd: "probe", peer: "HOST[:PORT]", ops: ["write", "read"], sizes: [64, ...],
//            iterations, warmup, timeout_ms, host: label of this host, peer_name: label of peer}
//           ops of write|read|send; sizes slot sizes (limits::valid_message_size: 24 B .. 16 MiB,
//           multiple of 8), 1..16 of them; iterations 1..100000; warmup 0..10000;
//           timeout_ms 1..60000. The probe uses the responder's own device and GID index.
//   R -> C  probe_reply (probes/wire/control_replies.h ProbeReply): {report: probe --json
//            document (probes/wire/probe_report.h, or {ok: false, error} when it could not run),
//            start_wall_ms, end_wall_ms,
//            samples: [recording lines: probe_latency_us / probe_errors
//            (probes/latency/probe_samples.h),
//                      host = `host`, peer = `peer_name`]}
//   or      {cmd: "error", error} for a bad request (the field is named).
#pragma once

#include <nlohmann/json.hpp>

#include "core/result.h"
#include "probes/latency/probe.h"
#include "probes/responder/control_dispatch.h"

namespace rh {

/// A decoded "probe" request.
struct ProbeRequest {
    ProbeOptions options;
    std::string host;       ///< label of this host in the samples
    std::string peer_name;  ///< label of the peer in the samples
};

/// Points `o` at the responder's own port: its device, GID index and sysfs root (a probe a
/// responder runs for a control command goes out where the responder serves).
void use_responder_port(ProbeOptions& o, const ControlContext& cx);

/// Decodes a "probe" message; the Error names the first bad field. Pure.
Result<ProbeRequest> parse_probe_request(const nlohmann::json& msg);

/// Serves one "probe" request `msg` (blocks while the probe runs) and returns.
void serve_probe(const tcp::Socket& s, const nlohmann::json& msg, const ControlContext& cx);

}  // namespace rh
