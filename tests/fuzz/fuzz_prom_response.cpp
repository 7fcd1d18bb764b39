// libFuzzer harness: a Prometheus /api/v1/query_range answer as `rocehealth fabric` receives it
// from the network (agent/fabric/prom_response.h, decode_matrix), at a roomy and a tiny series
// bound. A decoded answer must respect the bound; an error must say what went wrong and carry one
// of the decoder's causes.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <string_view>

#include "agent/fabric/prom_response.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    const std::string_view body(reinterpret_cast<const char*>(data), size);
    for (const std::size_t max_series : {std::size_t{100000}, std::size_t{1}}) {
        const auto r = rh::fabric::decode_matrix(body, max_series);
        if (r) {
            if (r->size() > max_series) std::abort();
            continue;
        }
        const std::string& cause = r.error().cause;
        if (r.error().detail.empty() ||
            (cause != rh::fabric::kCausePrometheusError && cause != rh::fabric::kCauseMalformed &&
             cause != rh::fabric::kCauseTooManySeries))
            std::abort();
    }
    return 0;
}
