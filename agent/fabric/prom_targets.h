// The answer of Prometheus' HTTP API to /api/v1/targets (?state=active), decoded strictly: the
// scrape targets Prometheus knows, which the agent's `mesh.peers_prometheus` turns into the
// mesh's fleet (agent/fleet/fleet_targets.h). The body is untrusted input (any server, any
// proxy in between): every field used is type-checked and the number of targets is bounded
// before anything is kept. Decoded as a stream (nlohmann's SAX interface): one target at a time
// is built as a small tree and decoded, never the whole answer. Fuzzed by
// tests/fuzz/fuzz_prom_response.cpp; recorded answers of Prometheus 2.42 in
// tests/fixtures/prometheus/targets_*.json.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

#include "core/result.h"
#include "core/sample.h"

namespace rh::fabric {

/// Error::cause of decode_targets beyond prom_response.h's.
inline constexpr const char* kCauseTooManyTargets = "too_many_targets";

/// One active target.
struct PromTarget {
    Labels labels;            ///< after relabelling: instance, job and the static/SD labels
    std::string scrape_pool;  ///< "" when the answer has none (older servers)
    std::string scrape_url;   ///< "http://10.7.12.4:9477/metrics"
    std::string health;       ///< "up", "down" or "unknown"
    /// Where Prometheus scrapes: the authority of scrape_url, else discoveredLabels'
    /// `__address__` ("10.7.12.4:9477", "[fd00::7]:9477", "gpu0712.example:9477").
    std::string address;
    std::string host;  ///< address without its port and brackets ("fd00::7")
};

/// Host part of "HOST", "HOST:PORT", "[V6]" or "[V6]:PORT"; "" when it has none.
std::string host_of_address(const std::string& address);

/// Decodes a /api/v1/targets body: {"status": "success", "data": {"activeTargets": [{"labels":
/// {name: string}, "scrapeUrl": string, "health": string, "scrapePool"?: string,
/// "discoveredLabels"?: {"__address__": string}}, ...], "droppedTargets"?: [...]}}.
/// droppedTargets are not read. Errors (Error::cause): the API's own error
/// (kCausePrometheusError); a missing or mistyped field, named by its path
/// ("data.activeTargets[3].labels.tor: expected a string") or a target without any address
/// (kCauseMalformed); more than `max_targets` active targets (kCauseTooManyTargets). Never
/// throws.
Result<std::vector<PromTarget>> decode_targets(std::string_view body, std::size_t max_targets);

}  // namespace rh::fabric
