// Rate-limited log of refused connections (issue 27: one line per refusal wrote 146k lines in
// 20 s). At most one line per address group and kind of refusal (cap, idle, bad header, ...) per
// kQuiet (and kMaxLines in all), and once per kSummary a count of all refusals: "refused N
// connections from M addresses in the last 60 s". Memory is bounded: kMaxGroups addresses
// remembered at once (past that, refusals are still counted, not named). Not thread-safe: the
// accept loop owns it.
#pragma once

#include <chrono>
#include <cstddef>
#include <optional>
#include <string>
#include <unordered_map>
#include <unordered_set>

namespace rh {

class RefusalLog {
  public:
    using Clock = std::chrono::steady_clock;
    static constexpr std::chrono::seconds kQuiet{10};
    static constexpr std::chrono::seconds kSummary{60};
    static constexpr std::size_t kMaxGroups = 4096;
    /// Named lines in all per kQuiet (a flood from many addresses is then only counted).
    static constexpr std::size_t kMaxLines = 20;

    /// Counts one refusal of `kind` from `group`; true when the caller should write its line now.
    bool note(const std::string& group, const std::string& kind, Clock::time_point now);
    /// The summary line when kSummary has passed since the last one and refusals happened in it
    /// (then the count starts again); nullopt otherwise.
    std::optional<std::string> summary(Clock::time_point now);
    /// The summary line of the window so far whatever its length (nullopt without refusals):
    /// at stop, so a responder stopped within kSummary still says what it refused.
    std::optional<std::string> flush(Clock::time_point now);

  private:
    std::unordered_map<std::string, Clock::time_point> last_line_;
    Clock::time_point lines_start_{};
    std::size_t lines_ = 0;
    std::unordered_set<std::string> window_groups_;
    std::size_t window_count_ = 0;
    bool window_groups_full_ = false;
    Clock::time_point window_start_{};
    bool started_ = false;
};

}  // namespace rh
