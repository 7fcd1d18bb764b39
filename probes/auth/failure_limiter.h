// Rate limit on failed fabric-key proofs, per source address: a guesser (or a misconfigured host
// hammering with the wrong key) costs the responder a few handshakes a minute, not a thread per
// connection, and fills its log with one line a minute instead of one per try.
#pragma once

#include <chrono>
#include <cstddef>
#include <mutex>
#include <string>
#include <unordered_map>

namespace rh::auth {

class FailureLimiter {
  public:
    using Clock = std::chrono::steady_clock;
    static constexpr unsigned kMaxFailures = 5;         ///< within one window ...
    static constexpr std::chrono::seconds kWindow{60};  ///< ... block the address this long
    static constexpr std::size_t kMaxAddresses = 4096;  ///< memory bound: oldest forgotten

    /// True while `address` is blocked (its connections are closed unread). `first_refusal` is
    /// set true once per block, so the caller logs it once.
    bool blocked(const std::string& address, Clock::time_point now, bool& first_refusal);
    /// Counts a failed proof from `address`; the kMaxFailures-th within kWindow blocks it.
    void failed(const std::string& address, Clock::time_point now);

  private:
    struct Entry {
        unsigned failures = 0;
        Clock::time_point window_start{};
        Clock::time_point blocked_until{};
        bool refusal_logged = false;
    };
    std::mutex mutex_;
    std::unordered_map<std::string, Entry> entries_;
};

/// "10.0.0.2" of "peer 10.0.0.2:5678", "fe80::1" of "peer [fe80::1]:5678".
std::string address_of_peer(const std::string& peer);

}  // namespace rh::auth
