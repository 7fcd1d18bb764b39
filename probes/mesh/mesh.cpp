#include "probes/mesh/mesh.h"

#include <algorithm>
#include <set>
#include <thread>

#include "core/clock.h"
#include "probes/latency/probe_samples.h"
#include "probes/verbs/wc_status.h"

namespace rh {

namespace {

Error bad_schedule(std::string detail) {
    return Error{"mesh", "schedule", EINVAL, std::move(detail)};
}

Sample error_sample(const std::string& host, const std::string& peer, const std::string& op,
                    const std::string& status, std::uint64_t n, double t_s, std::int64_t wall_ms) {
    Sample s;
    s.t_s = t_s;
    s.wall_ms = wall_ms;
    s.host = host;
    s.series = "probe_errors";
    s.labels = {{"peer", peer}, {"op", op}, {"status", status}};
    s.kind = SampleKind::counter;
    s.unit = "events";
    s.count = n;
    s.source = "rocehealth mesh";
    return s;
}

}  // namespace

Status check_schedule(const MeshSchedule& s) {
    if (s.peers.empty()) return bad_schedule("no peer");
    std::set<std::string> seen;
    for (const auto& p : s.peers)
        if (!seen.insert(p).second) return bad_schedule("peer " + p + " given twice");
    if (s.ops.empty() || s.sizes.empty()) return bad_schedule("no operation or size");
    if (s.iterations == 0) return bad_schedule("iterations must be >= 1");
    if (!(s.interval_s >= 0.1 && s.interval_s <= 3600))
        return bad_schedule("interval must be 0.1 s .. 1 h");
    if (!(s.jitter >= 0 && s.jitter <= 0.5)) return bad_schedule("jitter must be 0 .. 0.5");
    if (!(s.backoff_min_s > 0 && s.backoff_min_s <= s.backoff_max_s))
        return bad_schedule("backoff must be 0 < min <= max");
    return ok_status();
}

Mesh::Mesh(MeshSchedule s, std::string host, std::function<void(std::vector<Sample>)> sink,
           MeshHooks hooks)
    : s_(std::move(s)),
      host_(std::move(host)),
      sink_(std::move(sink)),
      hooks_(std::move(hooks)),
      peers_(s_.peers.size()),
      status_(s_.peers.size()),
      start_t_s_(monotonic_s(Clock::now())),
      start_wall_ms_(wall_now_ms()),
      rng_(std::random_device{}()) {
    for (std::size_t i = 0; i < s_.peers.size(); ++i) status_[i].peer = s_.peers[i];
}

Mesh::~Mesh() {
    for (auto& p : peers_)
        if (p.session) p.session->close();
}

void Mesh::fail(std::size_t i, const std::string& op, const std::string& status,
                const std::string& error) {
    auto& st = status_[i];
    ++st.errors[{op, status}];
    if (hooks_.on_error) hooks_.on_error(s_.peers[i], op, status, error);
    ++st.rounds_failed;
    st.last_error = error;
    peers_[i].session.reset();  // its QP is in error (or there was none): set up anew later
    st.backoff_s =
        st.backoff_s == 0 ? s_.backoff_min_s : std::min(s_.backoff_max_s, 2 * st.backoff_s);
    peers_[i].next_attempt = Clock::now() + std::chrono::duration_cast<Clock::duration>(
                                                std::chrono::duration<double>(st.backoff_s));
}

void Mesh::probe_peer(std::size_t i) {
    auto& p = peers_[i];
    auto& st = status_[i];
    const auto t0 = Clock::now();
    const ProbeRunTimes when0{monotonic_s(t0), 0, wall_now_ms(), 0};
    std::vector<Sample> out;
    if (!p.session) {
        if (t0 < p.next_attempt) {
            ++st.rounds_skipped;
            return;
        }
        ProbeOptions o;
        o.peer = s_.peers[i];
        o.ops = s_.ops;
        o.sizes = s_.sizes;
        o.iterations = s_.iterations;
        o.warmup = s_.warmup;
        o.timeout_ms = s_.timeout_ms;
        o.device = s_.device;
        o.gid_index = s_.gid_index;
        o.sysfs_root = s_.sysfs_root;
        auto session = ProbeSession::open(o);
        if (session) {
            p.session = std::move(*session);
            ++st.connects;
            st.backoff_s = 0;
        } else {
            // Not the peer's fault when this host could not set up its side (no device, ...).
            fail(i, "connect",
                 session.error().cause == kCauseLocalSetup ? kCauseLocalSetup : "unreachable",
                 session.error().message());
        }
    }
    if (p.session) {
        ProbeReport r = p.session->header();
        std::string failed_op, failed_error, failed_cause;
        for (auto op : s_.ops) {
            for (auto size : s_.sizes) {
                std::vector<double> raw;
                if (stopping()) break;
                r.results.push_back(p.session->run_phase(op, size, s_.iterations, s_.warmup, &raw));
                if (hooks_.on_phase) hooks_.on_phase(s_.peers[i], r.results.back(), raw);
                if (!r.results.back().error.empty()) {
                    failed_op = to_string(op);
                    failed_error = r.results.back().error;
                    failed_cause = r.results.back().error_cause;
                    break;
                }
            }
            if (!failed_op.empty() || stopping()) break;
        }
        if (failed_op.empty() && stopping()) return;  // interrupted: neither ok nor failed
        ProbeRunTimes when = when0;
        when.end_t_s = monotonic_s(Clock::now());
        when.end_wall_ms = wall_now_ms();
        for (Sample& s : samples_from_probe(r, host_, s_.peers[i], when))
            if (s.series == "probe_latency_us") out.push_back(std::move(s));
        if (failed_op.empty())
            ++st.rounds_ok;
        else
            fail(i, failed_op, failed_cause.empty() ? "other" : failed_cause, failed_error);
    }
    // Error counters: every (op, status) seen so far, from 0 at the mesh's start.
    const double t_s = monotonic_s(Clock::now());
    const auto wall = wall_now_ms();
    for (const auto& [key, n] : st.errors) {
        if (std::find(p.error_keys.begin(), p.error_keys.end(), key) == p.error_keys.end()) {
            p.error_keys.push_back(key);
            out.push_back(error_sample(host_, s_.peers[i], key.first, key.second, 0, start_t_s_,
                                       start_wall_ms_));
        }
        out.push_back(error_sample(host_, s_.peers[i], key.first, key.second, n, t_s, wall));
    }
    if (!out.empty()) sink_(std::move(out));
}

void Mesh::round() {
    if (!s_.plan) {
        for (std::size_t i = 0; i < peers_.size() && !stopping(); ++i) probe_peer(i);
        return;
    }
    std::vector<std::size_t> chosen = s_.plan(round_++);
    std::vector<bool> in_round(peers_.size(), false);
    for (std::size_t i : chosen)
        if (i < peers_.size()) in_round[i] = true;
    for (std::size_t i = 0; i < peers_.size(); ++i)
        if (!in_round[i] && peers_[i].session) {
            peers_[i].session->close();
            peers_[i].session.reset();
        }
    for (std::size_t i : chosen) {
        if (stopping()) break;
        if (i < peers_.size()) probe_peer(i);
    }
}

void Mesh::run(const std::atomic<bool>& stop, Clock::time_point until) {
    run_stop_ = &stop;
    run([&](Clock::time_point at) {
        while (!stop.load() && Clock::now() < at && Clock::now() < until)
            std::this_thread::sleep_for(
                std::min<Clock::duration>(at - Clock::now(), std::chrono::milliseconds(100)));
        return !stop.load() && Clock::now() < until;
    });
    run_stop_ = nullptr;
}

void Mesh::run(const std::function<bool(Clock::time_point)>& sleep_until) {
    const auto interval =
        std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(s_.interval_s));
    std::uniform_real_distribution<double> jitter(-s_.jitter, s_.jitter);
    auto grid = Clock::now();
    for (;;) {
        const auto at = grid + std::chrono::duration_cast<Clock::duration>(
                                   std::chrono::duration<double>(jitter(rng_) * s_.interval_s));
        if (!sleep_until(at)) return;
        round();
        grid += interval;
        if (grid < Clock::now()) grid = Clock::now();  // a round longer than the interval
    }
}

}  // namespace rh
