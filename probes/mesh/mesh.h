// The probe mesh: latency to every peer on a schedule. One thread runs rounds every interval
// (with jitter, so hosts do not probe in lockstep) and sleeps between them (no polling between
// rounds; a round's phases are the probe's ping-pongs). Each peer keeps its session (QP) between
// rounds (probes/latency/probe_session.h); after an error the session is dropped and re-established
// with exponential backoff. Every round's results become samples (store/README.md):
// probe_latency_us{peer, op, size_bytes, quantile} gauges and probe_errors{peer, op, status}
// counters, cumulative from 0 at the mesh's start (status: IBV_WC_* name, "timeout", "other", or
// for op "connect", the session could not be set up: "unreachable" (the peer: connect refused or
// timed out, handshake failed) or "local_setup" (this host: no RDMA device or port, verbs)).
#pragma once

#include <atomic>
#include <chrono>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "core/sample.h"
#include "probes/latency/probe.h"
#include "probes/latency/probe_session.h"

namespace rh {

struct MeshSchedule {
    std::vector<std::string> peers;  ///< HOST[:PORT] of each peer's responder
    /// Empty: every round probes every peer. Set: round r (0, 1, ...) probes only the peers at
    /// the indices plan(r) returns (probes/mesh/mesh_plan.h), in that order, and closes the
    /// sessions of those it does not name (a rotating plan would otherwise keep a QP to every
    /// peer).
    std::function<std::vector<std::size_t>(std::uint64_t round)> plan;
    std::vector<ProbeOp> ops{ProbeOp::write};
    std::vector<std::uint64_t> sizes{64};
    unsigned iterations = 20;  ///< timed messages per (op, size) per round
    unsigned warmup = 2;
    double interval_s = 1;      ///< between round starts
    double jitter = 0.1;        ///< each round starts up to +-jitter x interval off the grid
    int timeout_ms = 2000;      ///< per wait (connect, each message)
    double backoff_min_s = 1;   ///< first wait before reconnecting after an error
    double backoff_max_s = 60;  ///< the wait doubles up to this
    std::string device;
    std::optional<unsigned> gid_index;
    std::filesystem::path sysfs_root = "/sys";
};

/// Checks a schedule: at least one peer, no peer twice, ops/sizes/iterations as the probe's,
/// interval 0.1 s .. 1 h, jitter 0 .. 0.5, backoff 0 < min <= max.
Status check_schedule(const MeshSchedule& s);

/// How one peer fared so far.
struct MeshPeerStatus {
    std::string peer;
    std::uint64_t rounds_ok = 0;       ///< rounds whose every phase was measured
    std::uint64_t rounds_failed = 0;   ///< rounds with a failed phase or no session
    std::uint64_t rounds_skipped = 0;  ///< rounds skipped while backing off
    std::uint64_t connects = 0;        ///< sessions set up (1 + reconnects)
    std::string last_error;
    double backoff_s = 0;  ///< current wait before the next attempt (0: connected)
    std::map<std::pair<std::string, std::string>, std::uint64_t> errors;  ///< (op, status) -> n
};

/// Optional observers of a mesh, called from the thread that runs it (either may be empty).
struct MeshHooks {
    /// Every phase that ran: the peer as configured, its summary (error set when it failed) and
    /// its timed samples in µs (also those of a phase that failed).
    std::function<void(const std::string& peer, const LatencyStats& phase,
                       const std::vector<double>& raw_us)>
        on_phase;
    /// Every failure counted in probe_errors: op ("connect" when no session could be set up),
    /// status (IBV_WC_* name, "timeout", "other", "unreachable", "local_setup") and the reason
    /// as the failing call gave it, with its errno or verbs text (Error::message(), e.g.
    /// "ibv_reg_mr: Cannot allocate memory: ..."; the phase's error for a failed phase).
    std::function<void(const std::string& peer, const std::string& op, const std::string& status,
                       const std::string& reason)>
        on_error;
};

class Mesh {
  public:
    using Clock = std::chrono::steady_clock;
    /// `host`: this host's name for the samples; `sink` gets each round's samples of one peer.
    Mesh(MeshSchedule s, std::string host, std::function<void(std::vector<Sample>)> sink,
         MeshHooks hooks = {});
    ~Mesh();

    /// One round now: every peer (or every peer the schedule's plan names for this round) that
    /// is not backing off is probed (connecting if needed).
    /// After request_stop() (or the run's `stop`), the round ends before the next peer or phase.
    void round();

    /// Ends the round in progress early (thread-safe): the peer being probed stops after its
    /// current phase, uncounted, and no further peer is probed. A stop then waits at most one
    /// phase or connect (bounded by timeout_ms) instead of the whole round.
    void request_stop() { stop_requested_.store(true); }

    /// Rounds every interval (jittered) until `stop` or `until`; sleeps between rounds in
    /// slices of at most 100 ms so `stop` is seen promptly.
    void run(const std::atomic<bool>& stop, Clock::time_point until);

    /// Rounds every interval (jittered) until `sleep_until` returns false. `sleep_until(t)`
    /// waits until t (or an earlier stop request) and says whether to go on; it is called
    /// once before every round, so a caller can block on a condition variable: no polling.
    void run(const std::function<bool(Clock::time_point)>& sleep_until);

    const std::vector<MeshPeerStatus>& status() const { return status_; }

  private:
    struct Peer {
        std::unique_ptr<ProbeSession> session;
        Clock::time_point next_attempt{};
        std::vector<std::pair<std::string, std::string>> error_keys;  ///< emitted so far
    };
    void probe_peer(std::size_t i);
    bool stopping() const {
        return stop_requested_.load() || (run_stop_ != nullptr && run_stop_->load());
    }
    void fail(std::size_t i, const std::string& op, const std::string& status,
              const std::string& error);

    MeshSchedule s_;
    std::string host_;
    std::function<void(std::vector<Sample>)> sink_;
    MeshHooks hooks_;
    std::vector<Peer> peers_;
    std::vector<MeshPeerStatus> status_;
    std::atomic<bool> stop_requested_{false};
    const std::atomic<bool>* run_stop_ = nullptr;  ///< run(stop, until)'s flag while it runs
    double start_t_s_ = 0;
    std::int64_t start_wall_ms_ = 0;
    std::mt19937 rng_;
    std::uint64_t round_ = 0;  ///< rounds started, the plan's round index
};

}  // namespace rh
