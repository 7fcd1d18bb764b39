#include "core/hostname.h"

#include <sys/utsname.h>

namespace rh {

std::string host_name() {
    // uname(2) cannot truncate (nodename is sized for the kernel's limit), unlike a
    // gethostname(2) into a caller's buffer that may end without a NUL.
    utsname u{};
    if (::uname(&u) != 0) return {};
    return u.nodename;
}

}  // namespace rh
