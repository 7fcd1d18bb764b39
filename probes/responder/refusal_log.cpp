#include "probes/responder/refusal_log.h"

namespace rh {

bool RefusalLog::note(const std::string& group, const std::string& kind, Clock::time_point now) {
    if (!started_) {
        window_start_ = now;
        started_ = true;
    }
    ++window_count_;
    if (window_groups_.size() < kMaxGroups)
        window_groups_.insert(group);
    else if (!window_groups_.count(group))
        window_groups_full_ = true;
    if (last_line_.size() >= kMaxGroups)
        std::erase_if(last_line_, [now](const auto& e) { return now - e.second >= kQuiet; });
    const std::string key = group + " " + kind;
    const auto it = last_line_.find(key);
    if (it != last_line_.end() && now - it->second < kQuiet) return false;
    if (it == last_line_.end() && last_line_.size() >= kMaxGroups) return false;
    if (now - lines_start_ >= kQuiet) {
        lines_start_ = now;
        lines_ = 0;
    }
    if (lines_ >= kMaxLines) return false;
    ++lines_;
    last_line_[key] = now;
    return true;
}

std::optional<std::string> RefusalLog::summary(Clock::time_point now) {
    if (!started_ || now - window_start_ < kSummary) return std::nullopt;
    return flush(now);
}

std::optional<std::string> RefusalLog::flush(Clock::time_point now) {
    if (!started_) return std::nullopt;
    std::optional<std::string> line;
    if (window_count_ > 0)
        line = "refused " + std::to_string(window_count_) + " connections from " +
               (window_groups_full_ ? "more than " : "") + std::to_string(window_groups_.size()) +
               " addresses in the last " +
               std::to_string(
                   std::chrono::duration_cast<std::chrono::seconds>(now - window_start_).count()) +
               " s";
    window_count_ = 0;
    window_groups_.clear();
    window_groups_full_ = false;
    window_start_ = now;
    std::erase_if(last_line_, [now](const auto& e) { return now - e.second >= kQuiet; });
    return line;
}

}  // namespace rh
