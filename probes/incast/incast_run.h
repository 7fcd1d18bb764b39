// What `rocehealth incast` asked for and what it saw, before any figures are computed
// (probes/incast/incast_stats.h) and before the rule engine runs over the samples
// (agent/incast_report). Wall times are the coordinator's UTC milliseconds unless a field says
// otherwise; a participant's own times convert with its clock offset (its clock - the
// coordinator's).
#pragma once

#include <atomic>
#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "probes/incast/incast_stats.h"
#include "probes/latency/latency_stats.h"
#include "probes/wire/incast_messages.h"
#include "probes/wire/stream_protocol.h"

namespace rh::incast {

struct Options {
    std::string receiver;              ///< HOST[:PORT] of the receiver's responder
    std::vector<std::string> senders;  ///< HOST[:PORT] each
    stream::Op op = stream::Op::write;
    std::uint64_t size_bytes = 65536;
    unsigned qps = 1;           ///< QPs per sender
    unsigned queue_depth = 16;  ///< outstanding messages per QP
    std::uint32_t duration_ms = 10000;
    bool victim = true;  ///< run the 64 B WRITE victim probe to the receiver
    std::uint32_t sample_interval_ms = 1000;
    std::uint32_t pre_ms = 2000;   ///< counters sampled this long before the start
    std::uint32_t post_ms = 2000;  ///< ... and after the end
    int connect_timeout_ms = 5000;
    int setup_timeout_ms = 60000;  ///< a sender's incast_prepare -> incast_ready
    std::string device;            ///< for the victim probe (this host); empty = auto
    std::optional<unsigned> gid_index;
    std::filesystem::path sysfs_root = "/sys";
    /// When set and it becomes true, the run ends early (looked at every <= 500 ms): senders not
    /// started are called off, running ones are cut (status "stopped": their closed control
    /// connection makes them tear their streams down), the post-window is skipped.
    const std::atomic<bool>* stop = nullptr;
};

/// A participant host (the receiver or a sender) as the coordinator saw it.
struct HostRun {
    std::string name;  ///< as given on the command line
    std::string role;  ///< "receiver" | "sender"
    std::optional<Hello> hello;
    std::string error;     ///< why there is no hello (unreachable, refused)
    double offset_ms = 0;  ///< its clock - ours, from hello (midpoint of the round trip)
    double rtt_ms = 0;     ///< of that hello
    // Counter sampling (probes/incast/incast_sampling.h).
    bool sampled = false;
    std::string sample_error;             ///< why not (no sampler, no device, connection lost)
    std::vector<nlohmann::json> samples;  ///< recording lines, wall_ms already in our clock
    unsigned passes = 0;
    std::string sample_end;  ///< how sampling ended ("stopped by the coordinator", ...)
};

/// One sender of the incast.
struct SenderRun {
    std::string name;
    /// "completed" (a result arrived), "unreachable" (connect or hello failed), "failed to
    /// start" (its incast_prepare failed), "died" (lost during the test, no result), "not
    /// started" (the test was called off before its start), "stopped" (Options::stop cut the
    /// test: no result).
    std::string status = "not started";
    std::string error;     ///< the reason for any status but completed
    double offset_ms = 0;  ///< its clock - ours
    std::optional<Ready> ready;
    std::optional<Outcome> outcome;
    ProgressSeries progress;            ///< (s since its start, bytes completed)
    std::uint64_t progress_errors = 0;  ///< errors at its last progress report
};

/// The victim flow: 64 B RDMA WRITE ping-pong from this host to the receiver, before the incast
/// and during it, over one QP (probes/latency/probe_session.h).
struct VictimRun {
    bool ran = false;
    std::string error;  ///< why it did not run or stopped early
    std::string local_device;
    LatencyStats before, during;
    std::vector<double> before_us, during_us;  ///< raw samples (half round trips, µs)
};

/// A moment of the test itself, for the timeline.
struct Event {
    std::int64_t wall_ms = 0;
    std::string host;  ///< "" = the coordinator
    std::string text;
};

struct Run {
    Options options;
    std::string id;  ///< random, also in the participants' logs
    std::string coordinator_host;
    std::int64_t start_wall_ms = 0;  ///< the agreed start
    std::int64_t end_wall_ms = 0;    ///< start + duration
    HostRun receiver;
    std::vector<HostRun> sender_hosts;  ///< sampling/hello of each sender host
    std::vector<SenderRun> senders;
    VictimRun victim;
    std::vector<Event> events;
    std::vector<std::string> notes;
};

/// Live state for a progress line, about twice a second.
struct Live {
    double elapsed_s = 0;
    double duration_s = 0;
    double aggregate_gbps = 0;  ///< over the last report of each running sender
    std::uint64_t errors = 0;
    unsigned running = 0;                 ///< senders reporting
    std::optional<double> victim_p99_us;  ///< during, so far
};

}  // namespace rh::incast
