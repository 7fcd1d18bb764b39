// The topology-aware mesh's series budget on /metrics (issue 29): with a fleet (mesh.peers_file,
// peers_dns, peers_prometheus) a host exports a bounded summary of its mesh, whatever the
// fleet's size — per destination group (its own ToR's peers, the other ToRs) counters that
// recording rules sum, and latency and recent failures only for its worst destinations: at most
// kWorstPeers own-ToR peers and kWorstTors other ToRs. With one op and one size that is at most
// (kWorstPeers + kWorstTors) x 4 (3 quantiles, 1 window-failure gauge) + 2 x 4 = 200 series
// (agent/daemon/README.md, "Series with a fleet"); mesh_series_in counts them on a page.
#pragma once

#include <cstddef>
#include <map>
#include <string>
#include <vector>

#include "agent/daemon/probe_summary.h"
#include "probes/mesh/mesh_plan.h"

namespace rh::agent {

/// Own-ToR peers whose rows a host exports at most (its worst ones).
inline constexpr std::size_t kWorstPeers = 24;
/// Other ToRs whose rows a host exports at most (its worst ones).
inline constexpr std::size_t kWorstTors = 24;
/// The mesh series a host with a fleet exports at most, with one op and one size.
inline constexpr std::size_t kMeshSeriesBudget = 300;

/// A planned host's mesh rows: its own ToR's other hosts by address (rows of their own), and
/// every other ToR (one row each) with the address -> ToR map that sends their hosts' results
/// there (agent/daemon/mesh_thread.h).
struct MeshRows {
    std::vector<std::string> own_peers;         ///< addresses, in the fleet's order
    std::vector<std::string> other_tors;        ///< sorted
    std::map<std::string, std::string> tor_of;  ///< other ToRs' hosts: address -> ToR
};
MeshRows mesh_rows(const MeshPlan& plan);

/// The destinations (rows' `peer`) of `m`, worst first, at most `k`: those with failures in the
/// window (most first), then those with samples in the window by their highest p50 (slowest
/// first); ties by name. Destinations with neither in the window (not probed lately) are left
/// out: they have nothing to say.
std::vector<std::string> worst_destinations(const ProbeMetrics& m, std::size_t k);

/// `m` cut to the rows and window failures of worst_destinations(m, k), marked `summarised`
/// (its totals stay whole).
ProbeMetrics keep_worst(ProbeMetrics m, std::size_t k);

/// Mesh series in a /metrics page: its sample lines of the rocehealth_probe_* families (what
/// the budget counts; the fleet's size and source errors, rocehealth_mesh_*, are 2 more).
std::size_t mesh_series_in(const std::string& metrics_text);

}  // namespace rh::agent
