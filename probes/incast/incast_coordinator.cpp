#include "probes/incast/incast_coordinator.h"

#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <memory>
#include <random>
#include <set>
#include <thread>

#include "core/clock.h"
#include "core/hostname.h"
#include "probes/incast/incast_links.h"
#include "probes/incast/incast_sampling.h"
#include "probes/latency/probe_session.h"
#include "probes/wire/oob_protocol.h"
#include "probes/wire/slot.h"

namespace rh::incast {

namespace {

using Clock = std::chrono::steady_clock;
constexpr int kStartMarginMs = 1000;         // from sending the start to the start itself
constexpr int kVictimRoundMs = 250;          // a victim round's target length
constexpr unsigned kBaselineSamples = 1000;  // baseline: this many samples (p99.9) ...
constexpr int kBaselineMaxMs = 4000;         // ... or this long, whichever first

Error bad_option(std::string detail) {
    return Error{"incast", "options", EINVAL, std::move(detail)};
}

std::string random_id() {
    std::random_device rd;
    char b[16];
    std::snprintf(b, sizeof b, "%08x", rd());
    return b;
}

void sleep_until_wall(std::int64_t wall_ms) {
    const auto ms = wall_ms - wall_now_ms();
    if (ms > 0) std::this_thread::sleep_for(std::chrono::milliseconds(ms));
}

/// The victim flow: short WRITE 64 B rounds over one session, raw samples kept.
class Victim {
  public:
    /// Opens the session unless --no-victim or `nothing_to_measure` (no sender started).
    Victim(const Options& o, VictimRun& out, bool nothing_to_measure) : out_(out) {
        if (!o.victim || nothing_to_measure) {
            out_.error = o.victim ? "not run: no sender started" : "not run (--no-victim)";
            return;
        }
        ProbeOptions p;
        p.peer = o.receiver;
        p.ops = {ProbeOp::write};
        p.sizes = {64};
        p.iterations = 1;
        p.warmup = 0;
        p.timeout_ms = 5000;
        p.device = o.device;
        p.gid_index = o.gid_index;
        p.sysfs_root = o.sysfs_root;
        auto s = ProbeSession::open(p);
        if (!s) {
            out_.error = "victim probe could not start: " + s.error().message();
            return;
        }
        session_ = std::move(*s);
        out_.ran = true;
        out_.local_device = session_->header().device;
    }
    bool alive() const { return session_ && !session_->broken(); }

    /// One round of about kVictimRoundMs (no longer than `budget_ms`) into `into`, then a pause
    /// as long as the round (at most the rest of the budget): the victim is a small
    /// latency-sensitive flow, not a second busy-polling load on the receiver's CPU.
    void round(std::vector<double>& into, double& seconds, int budget_ms, unsigned warmup = 0) {
        if (!alive()) return;
        const double rt_ms = std::max(0.01, 2 * last_us_ / 1000);  // a round trip
        const unsigned n = static_cast<unsigned>(
            std::clamp(std::min(kVictimRoundMs, budget_ms) / rt_ms, 3.0, 5000.0));
        const auto t0 = Clock::now();
        const std::size_t before = into.size();
        auto st = session_->run_phase(ProbeOp::write, 64, n, warmup, &into);
        seconds += std::chrono::duration<double>(Clock::now() - t0).count();
        if (into.size() > before) {
            double sum = 0;
            for (std::size_t i = before; i < into.size(); ++i) sum += into[i];
            last_us_ = sum / static_cast<double>(into.size() - before);
        }
        if (!st.error.empty() && out_.error.empty()) out_.error = "victim probe: " + st.error;
        const auto took = Clock::now() - t0;
        const auto rest = std::chrono::milliseconds(budget_ms) - took;
        if (rest > Clock::duration::zero()) std::this_thread::sleep_for(std::min(took, rest));
    }
    void close() {
        if (session_) session_->close();
    }

  private:
    VictimRun& out_;
    std::unique_ptr<ProbeSession> session_;
    double last_us_ = 500;  // first guess; rounds adapt to what they measure
};

LatencyStats stats_of(std::vector<double> samples, double seconds) {
    LatencyStats s;
    s.op = "write";
    s.latency_kind = "half round trip";
    s.size_bytes = 64;
    summarize(samples, seconds, s);
    return s;
}

/// Progress events of a sender's result, in our clock.
void sender_events(const SenderRun& s, std::vector<Event>& ev) {
    if (!s.outcome) return;
    const auto off = static_cast<std::int64_t>(std::llround(s.offset_ms));
    std::int64_t first = 0, last = 0;
    for (const auto& q : s.outcome->qps) {
        if (q.first_post_wall_ms && (!first || q.first_post_wall_ms < first))
            first = q.first_post_wall_ms;
        last = std::max(last, q.last_completion_wall_ms);
    }
    if (first) ev.push_back({first - off, s.name, "first message posted"});
    if (last) ev.push_back({last - off, s.name, "last message completed"});
}

}  // namespace

Status check_options(const Options& o) {
    if (o.receiver.empty()) return bad_option("no --receiver");
    if (o.senders.empty()) return bad_option("no --senders");
    std::set<std::string> seen{o.receiver};
    for (const auto& s : o.senders) {
        if (s == o.receiver) return bad_option("sender " + s + " is also the receiver");
        if (!seen.insert(s).second) return bad_option("sender " + s + " given twice");
    }
    if (!limits::valid_message_size(o.size_bytes))
        return bad_option("--size " + std::to_string(o.size_bytes) +
                          ": must be a multiple of 8 from " + std::to_string(slot::kMinSize) +
                          " B to 16 MiB (each slot ends with a 16-byte trailer: sequence number "
                          "and checksum)");
    if (o.queue_depth < 1 || o.queue_depth > limits::kMaxQueueDepth)
        return bad_option("--queue-depth must be 1.." + std::to_string(limits::kMaxQueueDepth));
    if (o.qps < 1 || o.qps > stream::kMaxQps)
        return bad_option("--qps-per-sender must be 1.." + std::to_string(stream::kMaxQps));
    if (const auto ring = stream::ring_bytes(o.size_bytes, o.queue_depth);
        ring > oob::kMaxBufferBytes)
        return bad_option(
            "the receiver's ring per QP (3 x queue depth x size = " + std::to_string(ring) +
            " B) exceeds " + std::to_string(oob::kMaxBufferBytes) +
            " B: lower --queue-depth or --size");
    if (const auto all = stream::ring_bytes(o.size_bytes, o.queue_depth) * o.qps;
        all > stream::kMaxSessionBytes)
        return bad_option("the receiver's rings per sender (QPs x 3 x queue depth x size = " +
                          std::to_string(all) + " B) exceed " +
                          std::to_string(stream::kMaxSessionBytes) +
                          " B: fewer --qps-per-sender, a lower --queue-depth or --size");
    if (o.duration_ms < 100 || o.duration_ms > kMaxDurationMs)
        return bad_option("--duration must be 0.1 s .. 1 h");
    if (o.sample_interval_ms < kMinIntervalMs) return bad_option("sample interval too short");
    return ok_status();
}

Result<Run> run_incast(const Options& o, const std::function<void(const Live&)>& live) {
    if (auto c = check_options(o); !c) return c.error();
    auto rhp = tcp::parse_host_port(o.receiver, oob::kDefaultPort);
    if (!rhp) return rhp.error();
    std::vector<tcp::HostPort> shp;
    for (const auto& s : o.senders) {
        auto hp = tcp::parse_host_port(s, oob::kDefaultPort);
        if (!hp) return hp.error();
        shp.push_back(*hp);
    }

    Run run;
    run.options = o;
    run.id = random_id();
    run.coordinator_host = host_name();
    run.receiver.name = o.receiver;
    run.receiver.role = "receiver";
    for (const auto& s : o.senders) {
        run.sender_hosts.push_back({});
        run.sender_hosts.back().name = s;
        run.sender_hosts.back().role = "sender";
        run.senders.push_back({});
        run.senders.back().name = s;
    }
    auto event = [&run](std::string host, std::string text) {
        run.events.push_back({wall_now_ms(), std::move(host), std::move(text)});
    };
    auto stopping = [&o] { return o.stop && o.stop->load(); };
    // Cuts the test short (Options::stop): every sender link closes, the run says when.
    auto stop_now = [&](std::vector<std::unique_ptr<SenderLink>>& links, const char* when) {
        for (auto& l : links) l->call_off();
        event("", std::string("stopped ") + when);
        run.notes.push_back(std::string("the run was stopped ") + when);
    };
    event("", "incast " + run.id + " begins");

    // 1. hello and sampling on every participant.
    const std::uint32_t sample_max = o.pre_ms + static_cast<std::uint32_t>(o.setup_timeout_ms) +
                                     kBaselineMaxMs + kStartMarginMs + o.duration_ms +
                                     kResultGraceMs + o.post_ms + 30000;
    std::vector<std::unique_ptr<SampleLink>> samplers;
    samplers.push_back(std::make_unique<SampleLink>(run.receiver, *rhp, o, sample_max));
    for (std::size_t i = 0; i < shp.size(); ++i)
        samplers.push_back(
            std::make_unique<SampleLink>(run.sender_hosts[i], shp[i], o, sample_max));
    const auto hello_dl = Clock::now() + std::chrono::milliseconds(2 * o.connect_timeout_ms + 1000);
    while (Clock::now() < hello_dl && !stopping() &&
           !std::all_of(samplers.begin(), samplers.end(), [](auto& l) { return l->hello_done(); }))
        std::this_thread::sleep_for(std::chrono::milliseconds(10));
    if (!run.receiver.hello) {
        for (auto& l : samplers) l->request_stop();
        return Error{"incast", "receiver " + o.receiver, 0,
                     run.receiver.error.empty() ? "no hello" : run.receiver.error};
    }
    event(run.receiver.name, "hello: " + run.receiver.hello->hostname + " " +
                                 run.receiver.hello->device + ", clock offset " +
                                 std::to_string(std::lround(run.receiver.offset_ms)) + " ms");
    const auto sampling_t0 = Clock::now();

    // 2. every sender sets up its stream.
    std::vector<std::unique_ptr<SenderLink>> links;
    for (std::size_t i = 0; i < shp.size(); ++i) {
        Prepare p{run.id, o.receiver, o.op, o.size_bytes, o.qps, o.queue_depth, o.duration_ms};
        links.push_back(std::make_unique<SenderLink>(run.senders[i], shp[i], p, o));
    }
    const auto prep_dl =
        Clock::now() + std::chrono::milliseconds(o.setup_timeout_ms + o.connect_timeout_ms + 2000);
    auto preparing = [&links] {
        return std::any_of(links.begin(), links.end(),
                           [](auto& l) { return l->state() == SenderLink::State::preparing; });
    };
    while (Clock::now() < prep_dl && preparing() && !stopping())
        std::this_thread::sleep_for(std::chrono::milliseconds(10));
    std::size_t ready = 0;
    for (std::size_t i = 0; i < links.size(); ++i) {
        auto st = links[i]->state();
        if (st == SenderLink::State::ready) {
            ++ready;
            event(run.senders[i].name, "ready: stream to the receiver set up");
        } else if (st == SenderLink::State::preparing) {
            links[i]->call_off();
        }
    }

    if (ready > 0 && stopping()) {
        stop_now(links, "before the start");
        ready = 0;
    }

    // 3. the victim's baseline, while the counters cover the pre-window.
    Victim victim(o, run.victim, ready == 0);
    if (ready == 0) {
        run.notes.push_back("no sender started: nothing was sent");
    } else {
        double secs = 0;
        const auto base_dl = Clock::now() + std::chrono::milliseconds(kBaselineMaxMs);
        unsigned warm = 10;
        while (victim.alive() && run.victim.before_us.size() < kBaselineSamples &&
               Clock::now() < base_dl && !stopping()) {
            victim.round(run.victim.before_us, secs, 2 * kVictimRoundMs, warm);
            warm = 0;
        }
        run.victim.before = stats_of(run.victim.before_us, secs);
        if (victim.alive())
            event("",
                  "victim baseline: " + std::to_string(run.victim.before_us.size()) + " samples");
        const auto pre_end = sampling_t0 + std::chrono::milliseconds(o.pre_ms);
        while (Clock::now() < pre_end && !stopping())
            std::this_thread::sleep_for(
                std::min<Clock::duration>(pre_end - Clock::now(), std::chrono::milliseconds(100)));
        if (stopping()) {
            stop_now(links, "before the start");
            ready = 0;
        }
    }

    // 4. one start for all ready senders.
    if (ready > 0) {
        run.start_wall_ms = wall_now_ms() + kStartMarginMs;
        run.end_wall_ms = run.start_wall_ms + o.duration_ms;
        for (auto& l : links)
            if (l->state() == SenderLink::State::ready) l->go(run.start_wall_ms);
        run.events.push_back({run.start_wall_ms, "",
                              "start (" + std::to_string(ready) + " of " +
                                  std::to_string(links.size()) + " senders)"});
        sleep_until_wall(run.start_wall_ms);
    }

    // 5. traffic: victim rounds, live line.
    auto report_live = [&] {
        if (!live) return;
        Live l;
        l.duration_s = o.duration_ms / 1000.0;
        l.elapsed_s = std::min<double>(l.duration_s, (wall_now_ms() - run.start_wall_ms) / 1000.0);
        for (auto& lk : links)
            if (auto p = lk->latest()) {
                ++l.running;
                l.aggregate_gbps += gbps(p->completed_bytes, p->elapsed_s);
                l.errors += p->errors;
            }
        if (!run.victim.during_us.empty()) {
            auto v = run.victim.during_us;
            std::sort(v.begin(), v.end());
            l.victim_p99_us = nearest_rank(v, 99);
        }
        live(l);
    };
    double during_s = 0;
    auto next_live = Clock::now();
    while (ready > 0 && wall_now_ms() < run.end_wall_ms && !stopping()) {
        if (Clock::now() >= next_live) {
            report_live();
            next_live = Clock::now() + std::chrono::milliseconds(500);
        }
        const auto left = static_cast<int>(run.end_wall_ms - wall_now_ms());
        if (victim.alive() && left > 20)
            victim.round(run.victim.during_us, during_s, left);
        else
            std::this_thread::sleep_for(std::chrono::milliseconds(std::clamp(left, 1, 100)));
    }
    const bool cut = ready > 0 && stopping();
    if (cut) {
        run.end_wall_ms = std::max(run.start_wall_ms, wall_now_ms());
        stop_now(links, "during the traffic");
    } else if (ready > 0) {
        report_live();
        run.events.push_back({run.end_wall_ms, "", "end of the traffic"});
    }
    run.victim.during = stats_of(run.victim.during_us, during_s);
    victim.close();

    // 6. results (each link ends by its own deadline), then the post-window, then sampling ends.
    for (auto& l : links) l->join();
    if (ready > 0 && !cut) sleep_until_wall(run.end_wall_ms + o.post_ms);
    for (auto& l : samplers) l->request_stop();
    for (auto& l : samplers) l->join();
    for (const auto& s : run.senders) sender_events(s, run.events);
    event("", "incast " + run.id + " done");
    std::stable_sort(run.events.begin(), run.events.end(),
                     [](const Event& a, const Event& b) { return a.wall_ms < b.wall_ms; });
    return run;
}

}  // namespace rh::incast
