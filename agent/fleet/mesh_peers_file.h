// The mesh's fleet list (`mesh.peers_file` in the agent config, probes/mesh/mesh_plan.h): JSON
// lines, one host per line,
//     {"host": "gpu0712", "address": "10.7.12.4:18520", "tor": "r07"}
// `host` the host's name (as its agent's `host`), `address` its responder as HOST or HOST:PORT
// (port 1..65535), `tor` its ToR; each a non-empty string, no other fields. Blank lines and lines
// starting with '#' are skipped. JSON lines rather than one array so that a generated file can be
// appended to, and every error names its line: "FILE:3: field \"tor\": expected a non-empty
// string".
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "core/result.h"
#include "probes/mesh/mesh_plan.h"

namespace rh {

/// Hosts a peers file may list.
inline constexpr std::size_t kMaxFleetHosts = 100000;

/// Parses the text of a peers file called `name`. Error: op "mesh.peers_file", subject `name`,
/// detail one line per problem (at most 20, then how many more), each "LINE: ...": not JSON
/// (with the parser's column), not an object, a missing, empty or non-string field, an unknown
/// field, a field given twice on one line, an address that is not HOST[:PORT], a host or a
/// responder given on an earlier line (naming it; addresses compare with the default port 18520
/// filled in and the host case-insensitively, so "gpu01" and "GPU01:18520" are one responder); no
/// host at all; more than kMaxFleetHosts.
Result<std::vector<FleetHost>> parse_mesh_peers(const std::string& text, const std::string& name);

/// Reads FILE and parse_mesh_peers. Errors: as parse_mesh_peers, or the file cannot be read.
Result<std::vector<FleetHost>> load_mesh_peers_file(const std::string& path);

}  // namespace rh
