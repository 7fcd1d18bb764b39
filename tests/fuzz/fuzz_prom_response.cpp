// libFuzzer harness: a Prometheus answer as rocehealth receives it from the network — to
// /api/v1/query_range and /api/v1/query (`rocehealth fabric`: agent/fabric/prom_response.h,
// decode_matrix and decode_vector) and to
// /api/v1/targets (the agent's mesh.peers_prometheus: agent/fabric/prom_targets.h,
// decode_targets) — each decoder on every input, at a roomy and a tiny bound. A decoded answer
// must respect the bound (and every target have a host); an error must say what went wrong and
// carry one of the decoder's causes.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <string_view>

#include "agent/fabric/prom_response.h"
#include "agent/fabric/prom_targets.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    const std::string_view body(reinterpret_cast<const char*>(data), size);
    for (const std::size_t max_series : {std::size_t{100000}, std::size_t{1}})
        for (const bool vector : {false, true}) {
            const auto r = vector ? rh::fabric::decode_vector(body, max_series)
                                  : rh::fabric::decode_matrix(body, max_series);
            if (r) {
                if (r->size() > max_series) std::abort();
                // An instant answer has one point a series.
                if (vector)
                    for (const auto& s : *r)
                        if (s.points.size() != 1) std::abort();
                continue;
            }
            const std::string& cause = r.error().cause;
            if (r.error().detail.empty() ||
                (cause != rh::fabric::kCausePrometheusError &&
                 cause != rh::fabric::kCauseMalformed && cause != rh::fabric::kCauseTooManySeries))
                std::abort();
        }
    for (const std::size_t max_targets : {std::size_t{100000}, std::size_t{1}}) {
        const auto r = rh::fabric::decode_targets(body, max_targets);
        if (r) {
            if (r->size() > max_targets) std::abort();
            for (const auto& t : *r)
                if (t.host.empty()) std::abort();
            continue;
        }
        const std::string& cause = r.error().cause;
        if (r.error().detail.empty() ||
            (cause != rh::fabric::kCausePrometheusError && cause != rh::fabric::kCauseMalformed &&
             cause != rh::fabric::kCauseTooManyTargets))
            std::abort();
    }
    return 0;
}
