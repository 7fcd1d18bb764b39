#include "collectors/sources/source_status.h"

#include <cerrno>
#include <chrono>

namespace rh {

bool is_no_data(int err_no) {
    return err_no == ENOENT || err_no == EOPNOTSUPP || err_no == ENOTSUP || err_no == ENODATA;
}

double SourceClock::now_s() {
    return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch())
        .count();
}

}  // namespace rh
