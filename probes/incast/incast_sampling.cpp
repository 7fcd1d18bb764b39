#include "probes/incast/incast_sampling.h"

#include "core/clock.h"
#include "probes/wire/control_fields.h"
#include "probes/wire/control_replies.h"
#include "probes/wire/stream_protocol.h"

namespace rh::incast {

std::vector<nlohmann::json> pass_frames(const nlohmann::json& samples,
                                        const std::vector<std::string>& notes,
                                        std::int64_t wall_ms) {
    std::vector<wire::SamplePass> parts;
    auto start = [&] {
        wire::SamplePass p;
        p.wall_ms = wall_ms;
        p.part = parts.size();
        if (parts.empty()) p.notes = notes;
        parts.push_back(std::move(p));
    };
    start();
    std::size_t bytes = 0;
    for (const auto& s : samples) {
        const std::size_t n =
            s.dump(-1, ' ', true, nlohmann::json::error_handler_t::replace).size();
        if (bytes > 0 && bytes + n > kChunkBytes) {
            start();
            bytes = 0;
        }
        parts.back().samples.push_back(s);
        bytes += n + 1;
    }
    std::vector<nlohmann::json> frames;
    for (const auto& p : parts) frames.push_back(wire::to_json(p));
    return frames;
}

void serve_sample(const tcp::Socket& s, const nlohmann::json& req, const PassSourceFactory& make,
                  const std::atomic<bool>& stop,
                  const std::function<void(const std::string&)>& log) {
    ctl::Fields f(req);
    const auto interval_ms = f.u32("interval_ms", kMinIntervalMs, 60000);
    const auto max_ms = f.u32("max_ms", 1, kMaxSampleMs);
    auto refuse = [&](const std::string& why) {
        log("sample session refused: " + why);
        (void)tcp::send_json(s, stream::error_message(why), tcp::deadline_in(2000));
    };
    if (!f.ok()) return refuse(f.error().message());
    if (!make) return refuse("this responder has no counter sampler");
    if (!tcp::send_json(s, wire::to_json(wire::SampleStarted{wall_now_ms()}),
                        tcp::deadline_in(2000)))
        return;
    auto source = make();
    if (!source) return refuse("cannot sample counters: " + source.error().message());
    using Clock = std::chrono::steady_clock;
    const auto t0 = Clock::now(), end = t0 + std::chrono::milliseconds(max_ms);
    unsigned passes = 0;
    std::string reason = "max_ms reached";
    for (auto next = t0; next < end;) {
        std::vector<std::string> notes;
        const auto samples = (*source)->pass(notes);
        ++passes;
        for (const auto& fr : pass_frames(samples, notes, wall_now_ms()))
            if (auto st = tcp::send_json(s, fr, tcp::deadline_in(5000)); !st) {
                log("sample session ended: " + st.error().message());
                return;
            }
        next += std::chrono::milliseconds(interval_ms);
        const auto until = std::min(next, end);
        if (until <= Clock::now()) continue;  // a slow pass: the next one at once
        auto msg = tcp::recv_any(s, until, stop);
        if (msg) {
            if (msg->json && msg->json->is_object() && msg->json->value("cmd", "") == "stop") {
                reason = "stopped by the coordinator";
                break;
            }
            reason = "unexpected message";
            break;
        }
        if (msg.error().err_no == ETIMEDOUT) continue;
        if (stop.load()) {
            reason = "responder stopping";
            break;
        }
        log("sample session ended after " + std::to_string(passes) +
            " passes: " + msg.error().message());
        return;
    }
    (void)tcp::send_json(s, wire::to_json(wire::SampleEnd{passes, reason}), tcp::deadline_in(5000));
}

}  // namespace rh::incast
