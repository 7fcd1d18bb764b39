// libFuzzer harness: a known_hosts file (probes/auth/known_hosts.h), text anyone with write access
// to a host's configuration gives the client that decides whom it trusts, and a public key text
// alone. A parse either succeeds with entries that hold what the format promises, or fails with
// an error naming the file and line.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <string_view>

#include "probes/auth/known_hosts.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    const std::string_view text(reinterpret_cast<const char*>(data), size);
    auto r = rh::auth::parse_known_hosts(text, "kh");
    if (r) {
        for (const auto& h : r->hosts) {
            if (h.name.empty() || h.name.size() > rh::auth::kMaxHostNameChars || h.line < 1)
                std::abort();
            // One text a key: what was parsed prints back as it was given.
            if (rh::auth::parse_public_key_text(rh::auth::public_key_text(h.key)) != h.key)
                std::abort();
            if (r->find(h.name) != &h) std::abort();  // names are unique
        }
    } else if (r.error().subject.rfind("kh:", 0) != 0) {
        std::abort();  // every parse error names file:line
    }
    if (auto k = rh::auth::parse_public_key_text(text))
        if (rh::auth::public_key_text(*k) != text) std::abort();
    return 0;
}
