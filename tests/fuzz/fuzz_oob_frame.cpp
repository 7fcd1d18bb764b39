// libFuzzer harness: what a peer sends on the control port (TCP 18520) — fixed probe frames and
// json control frames — through the same checks the responder and clients apply: header, length,
// decode (also as tcp::decode_frame, the responder's pre-auth lobby reader), request checks, then
// every json command's field reader and the fabric-key handshake's messages
// (probes/auth/handshake.h, with the dialled address its request carries). Bytes after the frame
// are read as its MAC trailer (probes/wire/frame_mac.h) under kFuzzFrameKey, as a protected
// connection reads them (the seeds carry valid trailers).
#include <cstddef>
#include <cstdint>
#include <span>

#include "probes/auth/handshake.h"
#include "probes/wire/frame_mac.h"
#include "probes/wire/incast_messages.h"
#include "probes/wire/oob_protocol.h"
#include "probes/wire/stream_protocol.h"
#include "probes/wire/tcp.h"
#include "tests/fuzz/fuzz_frame_key.h"

namespace {

void json_commands(const nlohmann::json& j) {
    namespace in = rh::incast;
    namespace st = rh::stream;
    (void)in::parse_hello(j);
    (void)in::parse_prepare(j);
    (void)in::parse_ready(j);
    (void)in::parse_start(j);
    (void)in::parse_progress(j);
    (void)in::parse_outcome(j);
    (void)st::parse_open(j);
    for (std::size_t qps : {std::size_t{1}, std::size_t{4}}) {
        (void)st::parse_ready(j, qps);
        (void)st::parse_end(j, qps);
        (void)st::parse_received(j, qps);
    }
    (void)st::error_text(j);
    (void)rh::auth::parse_auth_request(j);
    (void)rh::auth::parse_auth_challenge(j);
    (void)rh::auth::parse_auth_proof(j);
    // The responder logs and echoes parts of what it got: dumping must be safe for any frame.
    (void)j.dump();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    namespace oob = rh::oob;
    const std::span<const std::byte> frame(reinterpret_cast<const std::byte*>(data), size);
    if (size < oob::kHeaderSize) return 0;
    const auto header = frame.first(oob::kHeaderSize);
    (void)oob::check_header(header);
    const auto len = oob::frame_length(header);
    if (!len || *len > size) return 0;
    const auto whole = frame.first(*len);
    // The responder's pre-auth lobby (probes/responder/front_door.h) decodes whole frames of at
    // most 4 KiB with this, after the same header checks.
    (void)rh::tcp::decode_frame(whole);
    if (size >= *len + rh::tcp::kFrameMacBytes) {
        // A protected connection: the trailer is checked before the frame is decoded.
        rh::tcp::FrameAuth a(rh::fuzz::kFrameKey, rh::fuzz::kFrameKey);
        if (!a.open(whole, frame.subspan(*len, rh::tcp::kFrameMacBytes), "peer fuzz")) return 0;
    }
    if (oob::is_json_header(header)) {
        if (auto j = oob::decode_json(whole)) json_commands(*j);
        return 0;
    }
    if (auto m = oob::decode(whole)) {
        (void)oob::check_probe_request(*m);
        (void)oob::check_probe_reply(*m, *m);
        (void)oob::check_phase(*m, *m);
    }
    return 0;
}
