#include "collectors/joblog/job_logs.h"

#include <algorithm>

namespace rh::joblog {

bool is_log_line(std::string_view line) {
    return is_nccl_line(line) || is_ucx_line(line) || is_perftest_line(line) ||
           is_kernel_line(line);
}

void read_logs(const LogText& text, LogRead& out) {
    const std::size_t first = out.events.size();
    read_nccl(text, out);
    read_ucx(text, out);
    read_perftest(text, out);
    read_kernel(text, out);
    // Each reader appends in line order; one file's events are kept in line order overall.
    std::stable_sort(out.events.begin() + static_cast<std::ptrdiff_t>(first), out.events.end(),
                     [](const LogEvent& a, const LogEvent& b) { return a.line < b.line; });
}

}  // namespace rh::joblog
