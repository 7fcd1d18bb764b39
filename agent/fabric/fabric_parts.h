// The three fabric analyses behind analyse_fabric (agent/fabric/fabric_analysis.h), one file
// each: the pause storm (fabric_pause.cpp), ToR localisation from the mesh (fabric_mesh.cpp) and
// configuration drift (fabric_drift.cpp). Each appends its findings, notes and not-judged
// reasons to `out`. Internal to rh_fabric.
#pragma once

#include <string>

#include "agent/fabric/fabric_grid.h"

namespace rh::fabric::detail {

/// Rules group rocehealth-fabric-pause: the storm's origin, then its victims in time order.
void analyse_pause(const FabricSeries& in, const Topology& topo, const FabricThresholds& th,
                   FabricResult& out);

/// Rules group rocehealth-fabric-mesh: the ToR that most mesh pairs into it fail.
void analyse_mesh(const FabricSeries& in, const Topology& topo, const FabricThresholds& th,
                  FabricResult& out);

/// Rules group rocehealth-fabric-config: ports whose setting differs from the fabric's majority.
void analyse_config(const FabricSeries& in, const Topology& topo, const FabricThresholds& th,
                    FabricResult& out);

/// Why configuration drift had too little input to be judged ("" when it had enough).
std::string config_too_little(const FabricSeries& in, const FabricThresholds& th);

}  // namespace rh::fabric::detail
