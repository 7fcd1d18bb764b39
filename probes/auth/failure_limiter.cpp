#include "probes/auth/failure_limiter.h"

namespace rh::auth {

bool FailureLimiter::blocked(const std::string& address, Clock::time_point now,
                             bool& first_refusal) {
    first_refusal = false;
    std::lock_guard<std::mutex> l(mutex_);
    const auto it = entries_.find(address);
    if (it == entries_.end() || now >= it->second.blocked_until) return false;
    first_refusal = !it->second.refusal_logged;
    it->second.refusal_logged = true;
    return true;
}

void FailureLimiter::failed(const std::string& address, Clock::time_point now) {
    std::lock_guard<std::mutex> l(mutex_);
    if (entries_.size() >= kMaxAddresses && !entries_.count(address)) {
        // Forget the addresses whose windows are over; if none, the one seen longest ago.
        std::erase_if(entries_, [now](const auto& e) {
            return now >= e.second.blocked_until && now - e.second.window_start >= kWindow;
        });
        if (entries_.size() >= kMaxAddresses) {
            auto oldest = entries_.begin();
            for (auto it = entries_.begin(); it != entries_.end(); ++it)
                if (it->second.window_start < oldest->second.window_start) oldest = it;
            entries_.erase(oldest);
        }
    }
    Entry& e = entries_[address];
    if (e.failures == 0 || now - e.window_start >= kWindow) {
        e.failures = 0;
        e.window_start = now;
    }
    if (++e.failures >= kMaxFailures) {
        e.blocked_until = now + kWindow;
        e.refusal_logged = false;
        e.failures = 0;
    }
}

std::string address_of_peer(const std::string& peer) {
    std::string a = peer.rfind("peer ", 0) == 0 ? peer.substr(5) : peer;
    if (!a.empty() && a.front() == '[') {
        const auto close = a.find(']');
        return close == std::string::npos ? a : a.substr(1, close - 1);
    }
    const auto colon = a.rfind(':');
    return colon == std::string::npos ? a : a.substr(0, colon);
}

}  // namespace rh::auth
