#include "core/hostname.h"

#include <sys/utsname.h>

#include <cstdio>

namespace rh {

std::string host_name() {
    // uname(2) cannot truncate (nodename is sized for the kernel's limit), unlike a
    // gethostname(2) into a caller's buffer that may end without a NUL.
    utsname u{};
    if (::uname(&u) != 0) return {};
    return u.nodename;
}

std::string check_host_name(std::string_view name) {
    if (name.empty()) return "empty";
    if (name.size() > kMaxHostNameBytes)
        return std::to_string(name.size()) + " bytes long: at most " +
               std::to_string(kMaxHostNameBytes) + " (a DNS name)";
    for (std::size_t i = 0; i < name.size(); ++i) {
        const auto c = static_cast<unsigned char>(name[i]);
        if (c > 0x20 && c < 0x7f) continue;
        char hex[8];
        std::snprintf(hex, sizeof hex, "0x%02x", c);
        return "byte " + std::to_string(i + 1) + " is not a printable character other than a " +
               "space (" + hex + ")";
    }
    return {};
}

}  // namespace rh
