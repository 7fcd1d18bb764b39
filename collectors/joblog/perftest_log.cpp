// Placeholder until the perftest reader lands (issue 28): recognises nothing.
#include "collectors/joblog/job_logs.h"

namespace rh::joblog {

bool is_perftest_line(std::string_view) { return false; }
void read_perftest(const LogText&, LogRead&) {}

}  // namespace rh::joblog
