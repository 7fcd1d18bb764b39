// libFuzzer harness: the bytes an HTTP client sends the agent before any thread sees them — the
// gate's request framing (agent/daemon/http_gate.h, frame_request) at the agent's default limits
// and at tiny ones, and the gate thread's own reading of a complete request (http.h,
// healthz_request). A complete request must lie within the bytes given and hold its blank line;
// a refusal must carry a status to answer.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string_view>

#include "agent/daemon/http.h"
#include "agent/daemon/http_gate.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    const std::string_view bytes(reinterpret_cast<const char*>(data), size);
    for (const auto& [head, body] : {std::pair<std::size_t, std::size_t>{16384, 8192}, {32, 4}}) {
        const rh::agent::Framing f = rh::agent::frame_request(bytes, head, body);
        if (f.kind == rh::agent::Framing::complete &&
            (f.bytes > size || f.bytes < 4 || f.bytes > head + body ||
             bytes.substr(0, f.bytes).find("\r\n\r\n") == std::string_view::npos))
            std::abort();
        if (f.kind == rh::agent::Framing::complete)
            (void)rh::agent::healthz_request(bytes.substr(0, f.bytes));
        if (f.kind == rh::agent::Framing::refuse && (f.status < 400 || f.error.empty()))
            std::abort();
    }
    return 0;
}
