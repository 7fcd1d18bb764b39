#include "probes/incast/incast_sender.h"

#include <unistd.h>

#include <random>
#include <thread>

#include "core/clock.h"
#include "core/hostname.h"
#include "probes/stream/stream_sender.h"
#include "probes/wire/incast_messages.h"

namespace rh::incast {

namespace {

using Clock = std::chrono::steady_clock;

void refuse(const tcp::Socket& s, const ControlContext& cx, const std::string& why) {
    cx.log("incast sender: " + why);
    (void)tcp::send_json(s, stream::error_message(why), tcp::deadline_in(2000));
}

/// Waits until `t`, or until the coordinator closes the connection (false) or the responder
/// stops (false).
bool wait_until(Clock::time_point t, const tcp::Socket& s, const std::atomic<bool>& stop) {
    while (Clock::now() < t) {
        if (stop.load() || tcp::peer_closed(s.fd())) return false;
        std::this_thread::sleep_for(
            std::min<Clock::duration>(t - Clock::now(), std::chrono::milliseconds(20)));
    }
    return true;
}

Outcome outcome(const stream::Sender& snd, std::uint64_t size) {
    Outcome o;
    o.size_bytes = size;
    for (const auto& q : snd.sent()) {
        QpResult r;
        r.posted = q.posted;
        r.completed = q.completed;
        r.failed = q.failed;
        r.errors = q.errors;
        r.error = q.error;
        if (q.posted) r.first_post_wall_ms = wall_ms_at(q.first_post);
        if (q.completed) r.last_completion_wall_ms = wall_ms_at(q.last_completion);
        if (const auto unfinished = q.outstanding())
            r.error += (r.error.empty() ? "" : "; ") + std::to_string(unfinished) +
                       " messages still outstanding " + std::to_string(stream::kDrainMs) +
                       " ms after the end (neither completed nor failed)";
        o.qps.push_back(std::move(r));
    }
    return o;
}

}  // namespace

void serve_sender(const tcp::Socket& s, const nlohmann::json& prepare_msg,
                  const ControlContext& cx) {
    auto prep = parse_prepare(prepare_msg);
    if (!prep) return refuse(s, cx, prep.error().message());
    auto hp = tcp::parse_host_port(prep->receiver, oob::kDefaultPort);
    if (!hp) return refuse(s, cx, hp.error().message());
    stream::SenderConfig cfg;
    cfg.where = cx.where;
    cfg.receiver = *hp;
    cfg.op = prep->op;
    cfg.size_bytes = prep->size_bytes;
    cfg.qps = prep->qps;
    cfg.queue_depth = prep->queue_depth;
    cfg.seed = std::random_device{}();
    // The receiver waits for our stream_end at most: the start wait, the traffic, some slack.
    cfg.max_ms =
        static_cast<std::uint32_t>(kStartWaitMs + kMaxStartAheadMs) + prep->duration_ms + 30000;
    cfg.hostname = host_name();
    const std::string what = "incast " + prep->id + " to " + hp->str();
    auto snd = stream::Sender::open(cfg);
    if (!snd) return refuse(s, cx, "cannot set up the stream: " + snd.error().message());
    const auto& rdy = (*snd)->ready();
    auto local_mtu = query_active_mtu(cx.where.device, cx.where.port);
    Ready ready{rdy.hostname, rdy.slots, local_mtu ? std::min(*local_mtu, rdy.active_mtu) : 0};
    if (!tcp::send_json(s, to_json(ready), tcp::deadline_in(5000))) return;
    cx.log(what + ": ready, " + std::to_string(cfg.qps) + " QPs, " +
           std::to_string(cfg.size_bytes) + " B " + stream::to_string(cfg.op));

    auto msg = tcp::recv_any(s, tcp::deadline_in(kStartWaitMs), cx.stop);
    if (!msg || !msg->json) {
        cx.log(what + ": no incast_start: " +
               (msg ? std::string("unexpected fixed frame") : msg.error().message()));
        return;  // closing our stream tells the receiver
    }
    auto start = parse_start(*msg->json);
    if (!start) return refuse(s, cx, start.error().message());
    const std::int64_t ahead = start->start_at_wall_ms - wall_now_ms();
    if (ahead > kMaxStartAheadMs)
        return refuse(s, cx,
                      "start time " + std::to_string(ahead) + " ms ahead of this host's clock " +
                          "(limit " + std::to_string(kMaxStartAheadMs) + " ms)");
    Outcome out;
    out.scheduled_start_wall_ms = start->start_at_wall_ms;
    const auto t0 = Clock::now() + std::chrono::milliseconds(std::max<std::int64_t>(ahead, 0));
    if (!wait_until(t0, s, cx.stop)) {
        cx.log(what + ": coordinator went away (or stopping) before the start");
        return;
    }
    bool coordinator_gone = false;
    (*snd)->run(
        t0 + std::chrono::milliseconds(start->duration_ms), [&](const stream::SendProgress& p) {
            if (cx.stop.load() || tcp::peer_closed(s.fd())) {
                coordinator_gone = true;
                return false;
            }
            const Progress pm{p.elapsed_s, p.completed_bytes, p.completed_messages, p.errors};
            (void)tcp::send_json(s, to_json(pm), tcp::deadline_in(1000));
            return true;
        });
    const auto ended = wall_now_ms();
    auto got = (*snd)->finish();
    const auto sched = out.scheduled_start_wall_ms;
    out = outcome(**snd, cfg.size_bytes);
    out.scheduled_start_wall_ms = sched;
    out.started_wall_ms = wall_ms_at((*snd)->started());
    out.ended_wall_ms = ended;
    out.receiver_ok = got.ok();
    if (got)
        out.receiver = std::move(*got);
    else
        out.receiver_error = got.error().message();
    if (coordinator_gone) out.note = "coordinator went away or responder stopping: stopped early";
    std::uint64_t completed = 0;
    for (const auto& q : out.qps) completed += q.completed;
    cx.log(what + ": done, " + std::to_string(completed) + " messages completed" +
           (out.receiver_ok ? "" : "; no result from the receiver: " + out.receiver_error));
    if (!coordinator_gone)
        if (auto st = tcp::send_json(s, to_json(out), tcp::deadline_in(5000)); !st)
            cx.log(what + ": incast_result not sent: " + st.error().message());
}

}  // namespace rh::incast
