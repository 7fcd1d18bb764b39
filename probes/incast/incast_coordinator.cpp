#include "probes/incast/incast_coordinator.h"

#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <memory>
#include <optional>
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

void add_event(Run& run, std::string host, std::string text) {
    run.events.push_back({wall_now_ms(), std::move(host), std::move(text)});
}

/// A new run of `o`: its id, the coordinator's host, the participants' names and roles.
Run new_run(const Options& o) {
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
    return run;
}

/// One incast test, in the steps run_incast takes in order: hello and sampling on every
/// participant, the senders' setup, the victim's baseline, one start, the traffic, the results.
/// The links and the victim live as long as this object; `run` outlives it.
class Coordinator {
  public:
    Coordinator(const Options& o, const std::function<void(const Live&)>& live, Run& run,
                tcp::HostPort receiver, std::vector<tcp::HostPort> senders)
        : o_(o), live_(live), run_(run), rhp_(std::move(receiver)), shp_(std::move(senders)) {}

    /// 1. hello and sampling on every participant. Error: the receiver gave no hello.
    Status hello() {
        const Options& o = o_;
        const std::uint32_t sample_max = o.pre_ms + static_cast<std::uint32_t>(o.setup_timeout_ms) +
                                         kBaselineMaxMs + kStartMarginMs + o.duration_ms +
                                         kResultGraceMs + o.post_ms + 30000;
        samplers_.push_back(std::make_unique<SampleLink>(run_.receiver, rhp_, o, sample_max));
        for (std::size_t i = 0; i < shp_.size(); ++i)
            samplers_.push_back(
                std::make_unique<SampleLink>(run_.sender_hosts[i], shp_[i], o, sample_max));
        const auto hello_dl =
            Clock::now() + std::chrono::milliseconds(2 * o.connect_timeout_ms + 1000);
        while (Clock::now() < hello_dl && !stopping() &&
               !std::all_of(samplers_.begin(), samplers_.end(),
                            [](auto& l) { return l->hello_done(); }))
            std::this_thread::sleep_for(std::chrono::milliseconds(10));
        if (!run_.receiver.hello) {
            for (auto& l : samplers_) l->request_stop();
            return Error{"incast", "receiver " + o.receiver, 0,
                         run_.receiver.error.empty() ? "no hello" : run_.receiver.error};
        }
        add_event(run_, run_.receiver.name,
                  "hello: " + run_.receiver.hello->hostname + " " + run_.receiver.hello->device +
                      ", clock offset " + std::to_string(std::lround(run_.receiver.offset_ms)) +
                      " ms");
        sampling_t0_ = Clock::now();
        return ok_status();
    }

    /// 2. every sender sets up its stream; those not ready by the deadline are called off.
    void prepare() {
        const Options& o = o_;
        for (std::size_t i = 0; i < shp_.size(); ++i) {
            Prepare p{run_.id, o.receiver, o.op, o.size_bytes, o.qps, o.queue_depth, o.duration_ms};
            links_.push_back(std::make_unique<SenderLink>(run_.senders[i], shp_[i], p, o));
        }
        const auto prep_dl = Clock::now() + std::chrono::milliseconds(o.setup_timeout_ms +
                                                                      o.connect_timeout_ms + 2000);
        auto preparing = [this] {
            return std::any_of(links_.begin(), links_.end(),
                               [](auto& l) { return l->state() == SenderLink::State::preparing; });
        };
        while (Clock::now() < prep_dl && preparing() && !stopping())
            std::this_thread::sleep_for(std::chrono::milliseconds(10));
        for (std::size_t i = 0; i < links_.size(); ++i) {
            auto st = links_[i]->state();
            if (st == SenderLink::State::ready) {
                ++ready_;
                add_event(run_, run_.senders[i].name, "ready: stream to the receiver set up");
            } else if (st == SenderLink::State::preparing) {
                links_[i]->call_off();
            }
        }
        if (ready_ > 0 && stopping()) {
            stop_now("before the start");
            ready_ = 0;
        }
    }

    /// 3. the victim's baseline, while the counters cover the pre-window.
    void baseline() {
        victim_.emplace(o_, run_.victim, ready_ == 0);
        Victim& victim = *victim_;
        if (ready_ == 0) {
            run_.notes.push_back("no sender started: nothing was sent");
            return;
        }
        double secs = 0;
        const auto base_dl = Clock::now() + std::chrono::milliseconds(kBaselineMaxMs);
        unsigned warm = 10;
        while (victim.alive() && run_.victim.before_us.size() < kBaselineSamples &&
               Clock::now() < base_dl && !stopping()) {
            victim.round(run_.victim.before_us, secs, 2 * kVictimRoundMs, warm);
            warm = 0;
        }
        run_.victim.before = stats_of(run_.victim.before_us, secs);
        if (victim.alive())
            add_event(
                run_, "",
                "victim baseline: " + std::to_string(run_.victim.before_us.size()) + " samples");
        const auto pre_end = sampling_t0_ + std::chrono::milliseconds(o_.pre_ms);
        while (Clock::now() < pre_end && !stopping())
            std::this_thread::sleep_for(
                std::min<Clock::duration>(pre_end - Clock::now(), std::chrono::milliseconds(100)));
        if (stopping()) {
            stop_now("before the start");
            ready_ = 0;
        }
    }

    /// 4. one start for all ready senders.
    void start() {
        if (ready_ == 0) return;
        run_.start_wall_ms = wall_now_ms() + kStartMarginMs;
        run_.end_wall_ms = run_.start_wall_ms + o_.duration_ms;
        for (auto& l : links_)
            if (l->state() == SenderLink::State::ready) l->go(run_.start_wall_ms);
        run_.events.push_back({run_.start_wall_ms, "",
                               "start (" + std::to_string(ready_) + " of " +
                                   std::to_string(links_.size()) + " senders)"});
        sleep_until_wall(run_.start_wall_ms);
    }

    /// 5. traffic: victim rounds, live line; cut short by Options::stop.
    void traffic() {
        Victim& victim = *victim_;
        double during_s = 0;
        auto next_live = Clock::now();
        while (ready_ > 0 && wall_now_ms() < run_.end_wall_ms && !stopping()) {
            if (Clock::now() >= next_live) {
                report_live();
                next_live = Clock::now() + std::chrono::milliseconds(500);
            }
            const auto left = static_cast<int>(run_.end_wall_ms - wall_now_ms());
            if (victim.alive() && left > 20)
                victim.round(run_.victim.during_us, during_s, left);
            else
                std::this_thread::sleep_for(std::chrono::milliseconds(std::clamp(left, 1, 100)));
        }
        cut_ = ready_ > 0 && stopping();
        if (cut_) {
            run_.end_wall_ms = std::max(run_.start_wall_ms, wall_now_ms());
            stop_now("during the traffic");
        } else if (ready_ > 0) {
            report_live();
            run_.events.push_back({run_.end_wall_ms, "", "end of the traffic"});
        }
        run_.victim.during = stats_of(run_.victim.during_us, during_s);
        victim.close();
    }

    /// 6. results (each link ends by its own deadline), then the post-window, then sampling
    /// ends; the events in time order.
    void results() {
        for (auto& l : links_) l->join();
        if (ready_ > 0 && !cut_) sleep_until_wall(run_.end_wall_ms + o_.post_ms);
        for (auto& l : samplers_) l->request_stop();
        for (auto& l : samplers_) l->join();
        for (const auto& s : run_.senders) sender_events(s, run_.events);
        add_event(run_, "", "incast " + run_.id + " done");
        std::stable_sort(run_.events.begin(), run_.events.end(),
                         [](const Event& a, const Event& b) { return a.wall_ms < b.wall_ms; });
    }

  private:
    bool stopping() const { return o_.stop && o_.stop->load(); }

    /// Cuts the test short (Options::stop): every sender link closes, the run says when.
    void stop_now(const char* when) {
        for (auto& l : links_) l->call_off();
        add_event(run_, "", std::string("stopped ") + when);
        run_.notes.push_back(std::string("the run was stopped ") + when);
    }

    /// The live line: elapsed time, running senders' aggregate rate and errors, victim p99.
    void report_live() {
        if (!live_) return;
        Live l;
        l.duration_s = o_.duration_ms / 1000.0;
        l.elapsed_s = std::min<double>(l.duration_s, (wall_now_ms() - run_.start_wall_ms) / 1000.0);
        for (auto& lk : links_)
            if (auto p = lk->latest()) {
                ++l.running;
                l.aggregate_gbps += gbps(p->completed_bytes, p->elapsed_s);
                l.errors += p->errors;
            }
        if (!run_.victim.during_us.empty()) {
            auto v = run_.victim.during_us;
            std::sort(v.begin(), v.end());
            l.victim_p99_us = nearest_rank(v, 99);
        }
        live_(l);
    }

    const Options& o_;
    const std::function<void(const Live&)>& live_;
    Run& run_;
    const tcp::HostPort rhp_;
    const std::vector<tcp::HostPort> shp_;
    // Declared in the order the steps make them: destroyed in reverse, as locals were.
    std::vector<std::unique_ptr<SampleLink>> samplers_;
    Clock::time_point sampling_t0_;
    std::vector<std::unique_ptr<SenderLink>> links_;
    std::size_t ready_ = 0;
    std::optional<Victim> victim_;
    bool cut_ = false;
};

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
    Run run = new_run(o);
    add_event(run, "", "incast " + run.id + " begins");
    Coordinator c(o, live, run, *rhp, std::move(shp));
    if (auto h = c.hello(); !h) return h.error();
    c.prepare();
    c.baseline();
    c.start();
    c.traffic();
    c.results();
    return run;
}

}  // namespace rh::incast
