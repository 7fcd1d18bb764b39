// libFuzzer harness: a peer's control replies and control requests as JSON text, through the
// strict readers both ends use (probes/wire/control_replies.h, probes/wire/probe_report.h): the
// replies `rocehealth accept` and the incast coordinator read from a responder (inventory_reply,
// probe_reply with its probe report, fault_reply, rkey_ready, sample_started / sample_pass /
// sample_end) and the requests a responder reads (parse_probe_request, parse_fault_request). A
// reply a reader takes must be written back by its writer and read again to the same JSON (the
// two ends agree on every field). The same text is also read as a mesh peers file
// (agent/fleet/mesh_peers_file.h: one {host, address, tor} object per line), the other peer-fed
// list the agent reads. Seeds: `fuzz_make_seeds --replies DIR`, real replies written by the
// writers, and a peers file.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>

#include "core/json_file.h"
#include "agent/fleet/mesh_peers_file.h"
#include "probes/responder/control_fault.h"
#include "probes/responder/control_probe.h"
#include "probes/wire/control_replies.h"

namespace {

/// Reads `j` with `parse`; when it is taken, its writer's JSON must read back to the same JSON.
template <typename T>
void round_trip(const nlohmann::json& j,
                rh::Result<T> (*parse)(const nlohmann::json&, const std::string&)) {
    auto m = parse(j, "responder at fuzz:18520");
    if (!m) {
        (void)m.error().message();
        return;
    }
    const nlohmann::json once = rh::wire::to_json(*m);
    auto again = parse(once, "responder at fuzz:18520");
    if (!again || rh::wire::to_json(*again) != once) std::abort();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    if (size > (1u << 20)) return 0;  // json frames are at most 1 MiB (oob::kMaxJsonBytes)
    const std::string text(reinterpret_cast<const char*>(data), size);
    if (auto peers = rh::parse_mesh_peers(text, "fuzz"); !peers) (void)peers.error().message();
    auto j = rh::parse_json_text(text, "fuzz", "read");
    if (!j) return 0;
    namespace w = rh::wire;
    round_trip<w::InventoryReply>(*j, w::parse_inventory_reply);
    round_trip<w::ProbeReply>(*j, w::parse_probe_reply);
    round_trip<w::FaultReply>(*j, w::parse_fault_reply);
    round_trip<w::RkeyReady>(*j, w::parse_rkey_ready);
    if (auto s = w::parse_sample_reply(*j, "responder at fuzz:18520")) {
        const nlohmann::json once = std::visit([](const auto& m) { return w::to_json(m); }, *s);
        auto again = w::parse_sample_reply(once, "responder at fuzz:18520");
        if (!again) std::abort();
    }
    (void)rh::parse_probe_request(*j);
    (void)rh::parse_fault_request(*j);
    return 0;
}
