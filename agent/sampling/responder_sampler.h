// The counter sampler `rocehealth responder` offers to `rocehealth incast`
// (probes/incast/incast_sampling.h): this host's HostSampler over every RDMA device, each pass as
// recording lines (core/recording/sample_json.h), the same samples `rocehealth record` writes.
#pragma once

#include <string>

#include "probes/incast/incast_sampling.h"
#include "probes/responder/responder.h"

namespace rh {

/// A factory of PassSources on sysfs root `root` (the live /sys for a responder). Each call
/// discovers devices anew; Error when there is no RDMA device under the root.
incast::PassSourceFactory host_pass_source(std::string root);

/// The responder's "inventory" facts (probes/responder/responder.h InventoryReader):
/// collect_snapshot of the device, its samples with the inventory (store/from_snapshot.h) as
/// recording lines.
InventoryReader host_inventory();

}  // namespace rh
