#include "probes/responder/probe_budget.h"

#include <algorithm>

namespace rh {

std::string bytes_text(std::uint64_t b) {
    if (b >= (1ull << 20) && b % (1ull << 20) == 0) return std::to_string(b >> 20) + " MiB";
    if (b >= (1ull << 20)) return std::to_string((b + (1ull << 20) - 1) >> 20) + " MiB";
    if (b >= 1024) return std::to_string((b + 1023) >> 10) + " KiB";
    return std::to_string(b) + " B";
}

std::optional<std::string> ProbeBudget::reserve(std::uint64_t bytes) {
    if (bytes > per_session_)
        return "unauthenticated probes get " + bytes_text(per_session_) +
               " of buffers; this one needs " + bytes_text(bytes) + ": prove the fabric key";
    std::lock_guard<std::mutex> l(mutex_);
    if (in_use_ + bytes > total_)
        return "busy: unauthenticated probes hold " + bytes_text(in_use_) + " of " +
               bytes_text(total_) + " of buffers; retry or prove the fabric key";
    in_use_ += bytes;
    return std::nullopt;
}

void ProbeBudget::release(std::uint64_t bytes) {
    std::lock_guard<std::mutex> l(mutex_);
    in_use_ -= std::min(in_use_, bytes);
}

std::uint64_t ProbeBudget::in_use() const {
    std::lock_guard<std::mutex> l(mutex_);
    return in_use_;
}

std::optional<std::string> ProbeBudget::check_read_phase(std::uint32_t count,
                                                         std::uint32_t timeout_ms,
                                                         std::uint64_t cap_ms) {
    const std::uint64_t ms = std::uint64_t(count) * std::max<std::uint32_t>(timeout_ms, 1000);
    if (ms <= cap_ms) return std::nullopt;
    return "unauthenticated READ phases get " + std::to_string(cap_ms / 1000) +
           " s (count x timeout); this one " + std::to_string(ms / 1000) +
           " s: prove the fabric key";
}

}  // namespace rh
