#include "probes/incast/incast_links.h"
#include "probes/auth/handshake.h"

#include <chrono>
#include <cmath>

#include "core/clock.h"
#include "probes/wire/control_replies.h"

namespace rh::incast {

namespace {

using Clock = std::chrono::steady_clock;

double wall_ms_precise() {
    return std::chrono::duration<double, std::milli>(
               std::chrono::system_clock::now().time_since_epoch())
        .count();
}

/// A reply frame as a json object, or an Error naming what came instead. `closed`: what the
/// peer closing the connection means at this point.
Result<nlohmann::json> expect_json(Result<tcp::Received> r, const std::string& waiting_for,
                                   const char* closed = "its process ended or crashed") {
    if (!r) {
        Error e = r.error();
        if (tcp::closed_between_messages(e))
            e.detail =
                "closed the connection while we waited for " + waiting_for + " (" + closed + ")";
        else
            e.detail = "waiting for " + waiting_for + ": " + e.detail;
        return e;
    }
    if (r->fixed)
        return Error{"recv", "", 0,
                     r->fixed->type == oob::Type::error ? "refused: " + r->fixed->text
                                                        : "unexpected fixed frame"};
    if (auto e = stream::error_text(*r->json)) return Error{"recv", "", 0, *e};
    return std::move(*r->json);
}

/// Subtracts the host's clock offset from every sample's wall_ms (0 = unknown stays 0).
void to_our_clock(nlohmann::json& samples, double offset_ms) {
    const auto off = static_cast<std::int64_t>(std::llround(offset_ms));
    for (auto& s : samples)
        if (s.is_object() && s.contains("wall_ms") && s["wall_ms"].is_number_integer() &&
            s["wall_ms"].get<std::int64_t>() != 0)
            s["wall_ms"] = s["wall_ms"].get<std::int64_t>() - off;
}

}  // namespace

Result<tcp::Socket> say_hello(const tcp::HostPort& hp, int timeout_ms, Hello& hello,
                              double& offset_ms, double& rtt_ms) {
    auto s = auth::connect_control(hp, tcp::deadline_in(timeout_ms));
    if (!s) return s.error();
    const auto dl = tcp::deadline_in(timeout_ms);
    const double t0 = wall_ms_precise();
    if (auto st = tcp::send_json(*s, {{"cmd", "hello"}}, dl); !st) return st.error();
    auto rep = expect_json(tcp::recv_any(*s, dl), "hello_reply",
                           "an older rocehealth without incast support, or it is stopping");
    const double t1 = wall_ms_precise();
    if (!rep) return Error{"hello", "responder at " + hp.str(), 0, rep.error().message()};
    auto h = parse_hello(*rep);
    if (!h) return Error{"hello", "responder at " + hp.str(), 0, h.error().message()};
    hello = std::move(*h);
    rtt_ms = t1 - t0;
    offset_ms = static_cast<double>(hello.wall_ms) - (t0 + t1) / 2;
    return s;
}

// ---- SampleLink

SampleLink::SampleLink(HostRun& host, tcp::HostPort hp, const Options& o, std::uint32_t max_ms)
    : host_(host), hp_(std::move(hp)), o_(o), max_ms_(max_ms), thread_([this] { main(); }) {}

SampleLink::~SampleLink() {
    request_stop();
    join();
}

void SampleLink::join() {
    if (thread_.joinable()) thread_.join();
}

void SampleLink::main() {
    Hello h;
    auto s = say_hello(hp_, o_.connect_timeout_ms, h, host_.offset_ms, host_.rtt_ms);
    if (!s) {
        host_.error = s.error().message();
        hello_done_.store(true);
        finished_.store(true);
        return;
    }
    host_.hello = h;
    hello_done_.store(true);
    auto fail = [this](const std::string& why) {
        host_.sample_error = why;
        finished_.store(true);
    };
    if (!h.sampler) return fail("its responder has no counter sampler");
    const nlohmann::json req{
        {"cmd", "sample"}, {"interval_ms", o_.sample_interval_ms}, {"max_ms", max_ms_}};
    if (auto st = tcp::send_json(*s, req, tcp::deadline_in(o_.connect_timeout_ms)); !st)
        return fail(st.error().message());
    const std::string peer = "responder at " + hp_.str();
    auto started =
        expect_json(tcp::recv_any(*s, tcp::deadline_in(o_.connect_timeout_ms)), "sample_started");
    if (!started) return fail(started.error().message());
    auto first = wire::parse_sample_reply(*started, peer);
    if (!first) return fail(first.error().message());
    if (!std::holds_alternative<wire::SampleStarted>(*first))
        return fail(peer + ": expected sample_started, got " + started->value("cmd", ""));
    host_.sampled = true;
    // Passes until we ask it to stop; then its last passes and sample_end (bounded).
    const auto give_up =
        Clock::now() + std::chrono::milliseconds(max_ms_) + std::chrono::seconds(30);
    std::optional<Clock::time_point> end_by;
    for (;;) {
        if (stop_.load() && !end_by) {
            end_by = Clock::now() + std::chrono::seconds(10);
            (void)tcp::send_json(*s, {{"cmd", "stop"}}, tcp::deadline_in(2000));
        }
        const auto dl =
            std::min(end_by.value_or(give_up), Clock::now() + std::chrono::milliseconds(200));
        auto r = tcp::recv_any(*s, dl);
        if (!r && r.error().err_no == ETIMEDOUT) {
            if (Clock::now() >= end_by.value_or(give_up)) {
                host_.sample_error = "no sample_end in time";
                break;
            }
            continue;
        }
        auto j = expect_json(std::move(r), "counter samples");
        if (!j) {
            host_.sample_error = j.error().message();
            break;
        }
        auto reply = wire::parse_sample_reply(*j, peer);
        if (!reply) {
            host_.sample_error = reply.error().message();
            break;
        }
        if (auto* pass = std::get_if<wire::SamplePass>(&*reply)) {
            to_our_clock(pass->samples, host_.offset_ms);
            if (pass->part == 0) ++host_.passes;
            for (auto& x : pass->samples) host_.samples.push_back(std::move(x));
            continue;
        }
        if (auto* end = std::get_if<wire::SampleEnd>(&*reply)) {
            host_.sample_end = end->reason;
            break;
        }
    }
    finished_.store(true);
}

// ---- SenderLink

SenderLink::SenderLink(SenderRun& run, tcp::HostPort hp, Prepare prep, const Options& o)
    : run_(run), hp_(std::move(hp)), prep_(std::move(prep)), o_(o), thread_([this] { main(); }) {}

SenderLink::~SenderLink() {
    call_off();
    join();
}

void SenderLink::join() {
    if (thread_.joinable()) thread_.join();
}

void SenderLink::go(std::int64_t start_wall_ms) {
    start_wall_ms_.store(start_wall_ms);
}

void SenderLink::call_off() {
    called_off_.store(true);
}

std::optional<Progress> SenderLink::latest() const {
    std::lock_guard lock(mu_);
    return latest_;
}

void SenderLink::main() {
    Hello h;
    double rtt = 0;
    auto s = say_hello(hp_, o_.connect_timeout_ms, h, run_.offset_ms, rtt);
    if (!s) {
        run_.status = "unreachable";
        run_.error = s.error().message();
        state_.store(State::failed);
        return;
    }
    const auto dl = tcp::deadline_in(o_.setup_timeout_ms);
    if (auto st = tcp::send_json(*s, to_json(prep_), dl); !st) {
        run_.status = "unreachable";
        run_.error = st.error().message();
        state_.store(State::failed);
        return;
    }
    // Watch for call_off while the sender sets up (it may take long on a loaded host).
    Result<tcp::Received> r = Error{"recv", "", ETIMEDOUT, ""};
    for (;;) {
        r = tcp::recv_any(*s, std::min(dl, tcp::deadline_in(200)));
        if (r || r.error().err_no != ETIMEDOUT || tcp::Clock::now() >= dl || called_off_.load())
            break;
    }
    if (called_off_.load() && !r) {
        run_.status = "failed to start";
        run_.error = "no incast_ready within " + std::to_string(o_.setup_timeout_ms) +
                     " ms (still setting up its stream when the test started without it)";
        state_.store(State::failed);
        return;
    }
    auto j = expect_json(std::move(r), "incast_ready");
    auto ready = j ? parse_ready(*j) : Result<Ready>(j.error());
    if (!ready) {
        run_.status = "failed to start";
        run_.error = ready.error().message();
        state_.store(State::failed);
        return;
    }
    run_.ready = *ready;
    state_.store(State::ready);
    while (start_wall_ms_.load() == 0 && !called_off_.load())
        std::this_thread::sleep_for(std::chrono::milliseconds(10));
    if (called_off_.load() && start_wall_ms_.load() == 0) {
        run_.error = "the test was called off before its start";
        state_.store(State::done);
        return;
    }
    state_.store(State::running);
    run_test(*s, start_wall_ms_.load());
    state_.store(State::done);
}

void SenderLink::run_test(const tcp::Socket& s, std::int64_t start_wall_ms) {
    const Start st{start_wall_ms + static_cast<std::int64_t>(std::llround(run_.offset_ms)),
                   prep_.duration_ms};
    if (auto sent = tcp::send_json(s, to_json(st), tcp::deadline_in(o_.connect_timeout_ms));
        !sent) {
        run_.status = "died";
        run_.error = "incast_start not delivered: " + sent.error().message();
        return;
    }
    const std::int64_t until = start_wall_ms + prep_.duration_ms + kResultGraceMs;
    const auto dl =
        tcp::deadline_in(static_cast<int>(std::max<std::int64_t>(until - wall_now_ms(), 1000)));
    for (;;) {
        auto j = expect_json(tcp::recv_any(s, dl, called_off_), "its progress or result");
        if (!j && called_off_.load()) {
            run_.status = "stopped";
            run_.error = "the coordinator stopped the test (after " +
                         std::to_string(run_.progress.size()) + " progress reports)";
            return;
        }
        if (!j) {
            run_.status = "died";
            run_.error = j.error().message() + " (after " + std::to_string(run_.progress.size()) +
                         " progress reports)";
            return;
        }
        const std::string cmd = (*j)["cmd"].get<std::string>();
        if (cmd == "incast_progress") {
            auto p = parse_progress(*j);
            if (!p) continue;
            std::lock_guard lock(mu_);
            run_.progress.emplace_back(p->elapsed_s, p->completed_bytes);
            run_.progress_errors = p->errors;
            latest_ = *p;
            continue;
        }
        auto o = parse_outcome(*j);
        if (!o) {
            run_.status = "died";
            run_.error = "bad result: " + o.error().message();
            return;
        }
        run_.outcome = std::move(*o);
        run_.status = "completed";
        return;
    }
}

}  // namespace rh::incast
