// The traffic class and GID index a job set (NCCL_IB_TC, NCCL_IB_SL, NCCL_IB_GID_INDEX, UCX's QP
// dump) against the port's QoS (trust mode, dscp2prio, PFC-enabled priorities) and GID table.
// Internal to rules/joblog.
#pragma once

#include <vector>

#include "rules/engine/engine.h"

namespace rh::joblog_rules {

/// The priority RoCE traffic of traffic class `tc` and service level `sl` takes on a port with
/// `trust` ("dscp" or "pcp"/"" = PCP, mlx5's default) and DCB APP DSCP entries `apps`: under DSCP
/// trust the DSCP is tc >> 2 (tc = DSCP << 2 | ECN) mapped by the APP table, else DSCP >> 3
/// (the default dscp2prio); under PCP trust the SL. nullopt when neither is known.
std::optional<unsigned> roce_priority(const std::string& trust, const std::vector<DcbApp>& apps,
                                      std::optional<unsigned> tc, std::optional<unsigned> sl);

}  // namespace rh::joblog_rules

namespace rh {

/// Findings job_traffic_class (the job's RoCE traffic on a priority without PFC while PFC
/// protects another, confirmed by that priority's tx bytes where counted) and job_gid_index
/// (the GID index the job set is a RoCE v1 or missing GID).
void qos_findings(const SeriesStore& store, EngineResult& result,
                  const std::vector<SeriesStore::PlacedLogEvent>& events);

}  // namespace rh
