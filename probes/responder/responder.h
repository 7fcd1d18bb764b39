// `rocehealth responder`: serves probes and peer queries over TCP (default port 18520). Until a
// connection proves the fabric key it is read by the accept loop, within per-address caps and
// 4 KiB frames (probes/responder/front_door.h); a probe session or a connection that proved the
// key then runs on its own thread, in pools apart (unauthenticated probes and keyed sessions, at
// most max_sessions each; probes/responder/admission.h); a probe session
// gets its own PD, buffer, MR (registered with only the remote access its operations need), CQ
// and QP, all released when the session ends. A session with SEND also gets recv_depth receive
// WQEs, posted before the probe_reply and re-posted one per message
// (probes/latency/send_latency.h). A misbehaving client costs one stderr line naming it; the
// responder keeps serving. A connection whose first frame is a json frame is a control session of
// `rocehealth incast` (probes/responder/control_dispatch.h).
#pragma once

#include <atomic>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <optional>
#include <string>

#include "core/result.h"
#include "core/sample.h"
#include "probes/incast/incast_sampling.h"
#include "probes/wire/oob_protocol.h"

namespace rh {

/// This host's inventory for the "inventory" control command
/// (probes/responder/control_inventory.h): the snapshot of one device without counter lists
/// (inventory_json) and that pass's recording lines with the inventory (core/recording/sample_json.h).
struct InventoryFacts {
    nlohmann::json snapshot;
    nlohmann::json samples = nlohmann::json::array();
};
/// Reads InventoryFacts of `device` under `sysfs_root` now; `host` ("" = the hostname the
/// snapshot found) labels the samples, stamped `when`. Probes include neither collection nor the
/// store (README.md, "Layers"): the agent passes this in (agent/sampling/responder_sampler.h), as
/// it passes the sampler.
using InventoryReader =
    std::function<InventoryFacts(const std::filesystem::path& sysfs_root, const std::string& device,
                                 const std::string& host, const SampleTime& when)>;

struct ResponderOptions {
    std::string listen_addr = "0.0.0.0";
    std::uint16_t port = oob::kDefaultPort;
    std::string device;                 ///< empty: first device with an ACTIVE Ethernet port
    std::optional<unsigned> gid_index;  ///< nullopt: RoCE v2, IPv4-mapped preferred
    unsigned max_sessions = 16;  ///< keyed sessions, and as many unauthenticated probe sessions
    /// Receive WQEs kept posted per SEND session, 0..oob::kMaxRecvDepth; 0 posts none, so the
    /// client's SENDs meet receiver-not-ready (RNR NAKs, then IBV_WC_RNR_RETRY_EXC_ERR there).
    unsigned recv_depth = oob::kDefaultRecvDepth;
    int handshake_timeout_ms = 5000;  ///< first message of a connection must arrive by then (and
                                      ///< auth, after a hello, by the same deadline)
                                      ///< (clients set up verbs before connecting; the probe
                                      ///< waits >= 30 s for the reply, see kSetupTimeoutMs)
    int idle_timeout_ms = 120000;     ///< wait for a client's next phase (after a READ phase:
                                      ///< at least count x its timeout_ms)
    std::filesystem::path sysfs_root = "/sys";
    /// Counters for `rocehealth incast` "sample" sessions (probes/incast/incast_sampling.h); empty:
    /// such sessions are refused by name, the other incast roles still work.
    incast::PassSourceFactory sampler;
    /// This host's inventory for the "inventory" control command; empty: that command is
    /// refused by name.
    InventoryReader inventory;
    /// Serve the "fault" control command (probes/responder/control_fault.h): let an acceptance run
    /// take this host's RDMA link down and up. Off unless asked for (`--allow-fault`).
    bool allow_fault = false;
    /// The fabric key file (probes/auth/fabric_key.h) read again when *reload_key turns true
    /// (the command's SIGHUP handler sets it; checked between connections), with host_key_file
    /// and known_hosts_file when set, all or none (probes/auth/key_reload.h). The keys in use are
    /// auth::process_key() etc., set by the command before run_responder; "" key_file = the
    /// default path.
    std::string key_file;
    std::string host_key_file;     ///< this responder's host key; "" none
    std::string known_hosts_file;  ///< responders' host keys its own control clients require
    std::atomic<bool>* reload_key = nullptr;
};

/// Runs until `stop` becomes true (then waits for sessions to wind down, ~0.2 s). An Error means
/// it could not start (no device, port in use).
Status run_responder(const ResponderOptions& opts, const std::atomic<bool>& stop);

}  // namespace rh
