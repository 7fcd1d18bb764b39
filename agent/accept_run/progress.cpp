#include "agent/accept_run/progress.h"

#include <cstdio>

namespace rh::accept {

void Progress::update(const std::string& stage, const std::string& what, double percent) {
    if (!enabled_) return;
    std::fprintf(stderr, "\r\033[K  [%s] %s  %3.0f%%", stage.c_str(), what.c_str(), percent);
    std::fflush(stderr);
    shown_ = true;
}

void Progress::finish() {
    if (enabled_ && shown_) std::fprintf(stderr, "\n");
    shown_ = false;
}

}  // namespace rh::accept
