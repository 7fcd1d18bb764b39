// libFuzzer harness: the typed messages peers exchange around a traffic run, as JSON text, through
// the readers both ends use: the incast coordinator's (probes/wire/incast_messages.h: hello,
// prepare, ready, start, progress, outcome) and a stream's (probes/wire/stream_protocol.h: open,
// ready, end, received, each QP-count-checked reader at 1, 2 and 4 QPs). fuzz_oob_frame reaches
// them only inside a well-formed control frame; here each reader gets every input. A message a
// reader takes must be written back by its writer and read again to the same JSON (the two ends
// agree on every field). Seeds: `fuzz_make_seeds --messages DIR`, each message as its writer
// writes it.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>

#include "core/json_file.h"
#include "probes/wire/incast_messages.h"
#include "probes/wire/stream_protocol.h"

namespace {

/// Reads `j` with `parse`; when it is taken, its writer's JSON must read back to the same JSON.
template <typename Parse>
void round_trip(const nlohmann::json& j, Parse parse) {
    auto m = parse(j);
    if (!m) {
        (void)m.error().message();
        return;
    }
    const nlohmann::json once = to_json(*m);  // found by argument-dependent lookup
    auto again = parse(once);
    if (!again || to_json(*again) != once) std::abort();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    if (size > (1u << 20)) return 0;  // json frames are at most 1 MiB (oob::kMaxJsonBytes)
    const std::string text(reinterpret_cast<const char*>(data), size);
    auto j = rh::parse_json_text(text, "fuzz", "read");
    if (!j) return 0;
    namespace in = rh::incast;
    namespace st = rh::stream;
    round_trip(*j, [](const nlohmann::json& x) { return in::parse_hello(x); });
    round_trip(*j, [](const nlohmann::json& x) { return in::parse_prepare(x); });
    round_trip(*j, [](const nlohmann::json& x) { return in::parse_ready(x); });
    round_trip(*j, [](const nlohmann::json& x) { return in::parse_start(x); });
    round_trip(*j, [](const nlohmann::json& x) { return in::parse_progress(x); });
    round_trip(*j, [](const nlohmann::json& x) { return in::parse_outcome(x); });
    round_trip(*j, [](const nlohmann::json& x) { return st::parse_open(x); });
    for (std::size_t qps : {std::size_t{1}, std::size_t{2}, std::size_t{4}}) {
        round_trip(*j, [qps](const nlohmann::json& x) { return st::parse_ready(x, qps); });
        round_trip(*j, [qps](const nlohmann::json& x) { return st::parse_end(x, qps); });
        round_trip(*j, [qps](const nlohmann::json& x) { return st::parse_received(x, qps); });
    }
    return 0;
}
