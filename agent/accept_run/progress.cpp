#include "agent/accept_run/progress.h"

#include <cstdio>
#include <ctime>

namespace rh::accept {

void Progress::log_line(const std::string& text) {
    const std::time_t now = std::time(nullptr);
    std::tm tm{};
    char stamp[32] = "?";
    if (::gmtime_r(&now, &tm)) std::strftime(stamp, sizeof stamp, "%Y-%m-%dT%H:%M:%SZ", &tm);
    std::fprintf(stderr, "%s accept: %s\n", stamp, text.c_str());
    std::fflush(stderr);
}

void Progress::update(const std::string& stage, const std::string& what, double percent,
                      const std::string& detail) {
    if (mode_ == ProgressMode::log) {
        if (stage == last_stage_ && what == last_what_) return;
        last_stage_ = stage;
        last_what_ = what;
        log_line("[" + stage + "] " + what);
        return;
    }
    if (mode_ != ProgressMode::tty) return;
    std::fprintf(stderr, "\r\033[K  [%s] %s%s  %3.0f%%", stage.c_str(), what.c_str(),
                 detail.c_str(), percent);
    std::fflush(stderr);
    shown_ = true;
}

void Progress::stage_started(const std::string& stage, double limit_s) {
    if (mode_ != ProgressMode::log) return;
    last_stage_ = stage;
    last_what_.clear();
    char limit[48];
    std::snprintf(limit, sizeof limit, " (time limit %.0f s)", limit_s);
    log_line("stage " + stage + " started" + limit);
}

void Progress::stage_ended(const std::string& stage, const std::string& verdict,
                           double duration_s) {
    char took[32];
    std::snprintf(took, sizeof took, "%.1f s", duration_s);
    if (mode_ == ProgressMode::log)
        log_line("stage " + stage + " ended: " + verdict + " in " + took);
    if (mode_ != ProgressMode::tty) return;
    finish();
    std::fprintf(stderr, "  %s: %s\n", stage.c_str(), verdict.c_str());
}

void Progress::finish() {
    if (mode_ == ProgressMode::tty && shown_) std::fprintf(stderr, "\n");
    shown_ = false;
}

}  // namespace rh::accept
