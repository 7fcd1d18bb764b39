// The responder's "inventory" control command (probes/responder/control_dispatch.h): this host's
// facts for the acceptance runner's consistency stage (agent/accept/README.md, stage `inventory`).
//
//   C -> R  {cmd: "inventory", host: NAME}     NAME labels the recording samples ("" = hostname)
//   R -> C  inventory_reply (probes/wire/control_replies.h InventoryReply: hostname, version
//            (rocehealth's), kernel, memlock_limit_bytes: int|null, memlock_unlimited, device,
//            port, gid_index, gid, gid_type, snapshot: collect_snapshot() of the responder's
//            device without counter lists (store/from_snapshot.h inventory_json; verbs
//            active_mtu included), samples: [recording lines (core/recording/sample_json.h) of that pass])
//   or      {cmd: "error", error}
// Nothing is read by hand here: the collectors give the facts (sysfs, rtnetlink, DCB netlink),
// through ResponderOptions::inventory (probes/responder/responder.h), which the agent sets.
#pragma once

#include <nlohmann/json.hpp>

#include "probes/responder/control_dispatch.h"
#include "probes/wire/control_replies.h"

namespace rh {

/// Serves one "inventory" request `msg` and returns (the connection is done).
void serve_inventory(const tcp::Socket& s, const nlohmann::json& msg, const ControlContext& cx);

/// The inventory_reply for this host (collects now; takes ~0.1-1 s). `host` labels the samples.
wire::InventoryReply inventory_reply(const ControlContext& cx, const std::string& host);

}  // namespace rh
