// The counter sampler `rocehealth responder` offers to `rocehealth incast`
// (probes/incast_sampling.h): this host's HostSampler over every RDMA device, each pass as
// recording lines (core/sample_json.h), the same samples `rocehealth record` writes.
#pragma once

#include <string>

#include "probes/incast_sampling.h"

namespace rh::cli {

/// A factory of PassSources on sysfs root `root` (the live /sys for a responder). Each call
/// discovers devices anew; Error when there is no RDMA device under the root.
incast::PassSourceFactory host_pass_source(std::string root);

}  // namespace rh::cli
