// The buffers a responder lends to latency probe sessions of peers that did not prove the fabric
// key (issue 27: a stranger's session cost 64 MiB of pinned memory, and a READ phase with a count
// of 10 M held it for 24 h). Limits in probes/wire/probe_limits.h: kUnauthSessionBytes per
// session, kUnauthTotalBytes across sessions, kUnauthReadPhaseMs per READ phase. A session that
// proved the key keeps the protocol's own limits (oob::kMaxBufferBytes). Thread-safe.
#pragma once

#include <cstdint>
#include <mutex>
#include <optional>
#include <string>

namespace rh {

class ProbeBudget {
  public:
    ProbeBudget(std::uint64_t per_session, std::uint64_t total)
        : per_session_(per_session), total_(total) {}

    /// Reserves `bytes` for one unauthenticated session; nullopt when granted (release them when
    /// the session ends), else the refusal naming the cap (fits a fixed error frame):
    /// "unauthenticated probes get 4 MiB of buffers; this one needs 64 MiB: prove the fabric key".
    std::optional<std::string> reserve(std::uint64_t bytes);
    void release(std::uint64_t bytes);
    std::uint64_t in_use() const;

    /// nullopt when an unauthenticated READ phase of `count` messages of `timeout_ms` each fits
    /// `cap_ms`, else its refusal.
    static std::optional<std::string> check_read_phase(std::uint32_t count,
                                                       std::uint32_t timeout_ms,
                                                       std::uint64_t cap_ms);

  private:
    std::uint64_t per_session_;
    std::uint64_t total_;
    mutable std::mutex mutex_;
    std::uint64_t in_use_ = 0;
};

/// "4 MiB", "64 MiB", "512 KiB", "100 B": the budget's messages.
std::string bytes_text(std::uint64_t bytes);

}  // namespace rh
