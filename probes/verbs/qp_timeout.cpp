#include "probes/verbs/qp_timeout.h"

#include <charconv>
#include <cstdlib>

namespace rh {

Result<unsigned> parse_qp_timeout(const std::string& value, const std::string& source) {
    unsigned n = 0;
    const auto* end = value.data() + value.size();
    const auto [p, ec] = std::from_chars(value.data(), end, n);
    if (value.empty() || ec != std::errc{} || p != end || n < 1 || n > 31)
        return Error{"qp timeout", source, 0,
                     "'" + value +
                         "' is not an integer 1..31 (IB encoding: 4.096 us * 2^N; 14 = 67 ms, "
                         "18 = 1.07 s)"};
    return n;
}

Result<unsigned> configured_qp_timeout() {
    const char* env = std::getenv(kQpTimeoutEnv);
    if (env == nullptr) return kQpTimeout;
    return parse_qp_timeout(env, kQpTimeoutEnv);
}

double qp_timeout_ms(unsigned n) {
    return 4.096e-3 * static_cast<double>(1ull << n);
}

}  // namespace rh
