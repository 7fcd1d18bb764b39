#include "core/gid_addr.h"

#include <arpa/inet.h>

#include <cstring>

namespace rh {

std::optional<GidBytes> gid_bytes(const std::string& text) {
    if (text.empty() || text.size() > 64) return std::nullopt;
    GidBytes a{};
    in_addr v4{};
    if (inet_pton(AF_INET, text.c_str(), &v4) == 1) {
        a[10] = a[11] = 0xff;
        std::memcpy(a.data() + 12, &v4, 4);
        return a;
    }
    if (inet_pton(AF_INET6, text.c_str(), a.data()) == 1) return a;
    return std::nullopt;
}

bool is_link_local(const GidBytes& g) {
    return g[0] == 0xfe && (g[1] & 0xc0) == 0x80;
}

}  // namespace rh
