// `rocehealth mesh`'s closing summary: per peer the rounds measured, failed and skipped
// (backoff), connects and errors, and the wall time and CPU the mesh used.
#pragma once

#include <cstddef>
#include <ostream>
#include <vector>

#include <nlohmann/json.hpp>

#include "probes/mesh/mesh.h"

namespace rh {

/// {"peers": [{peer, rounds_ok, rounds_failed, rounds_skipped, connects, errors {"op/size":
/// count}, last_error}], "wall_s", "cpu_s" (seconds), "cpu_percent" (of one core), "samples"}.
nlohmann::json mesh_summary_json(const std::vector<MeshPeerStatus>& peers, double wall_s,
                                 double cpu_s, std::size_t samples);

/// The summary as text: a line per peer, then "W s, CPU C s (P% of one core), N samples".
void print_mesh_summary(std::ostream& out, const nlohmann::json& summary);

}  // namespace rh
