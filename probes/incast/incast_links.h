// The coordinator's connections to the incast participants, one thread each (all waits bounded
// by deadlines, so joining never hangs past them):
//   SampleLink  hello (clock offset) then a sample session (probes/incast/incast_sampling.h) that
//               streams the host's counter passes until request_stop();
//   SenderLink  hello, incast_prepare -> incast_ready, then on go() incast_start and the
//               progress reports until incast_result (probes/incast/incast_sender.h).
#pragma once

#include <atomic>
#include <cstdint>
#include <mutex>
#include <thread>

#include "core/result.h"
#include "probes/incast/incast_run.h"
#include "probes/wire/tcp.h"

namespace rh::incast {

/// Slack after the end of the traffic for a sender's result: its drain, the receiver's drain and
/// the exchange of results, on a slow host.
inline constexpr int kResultGraceMs = 30000;

/// Connects and exchanges hello: fills `hello`, `offset_ms` (their clock - ours, at the midpoint
/// of the round trip) and `rtt_ms`; returns the connection for the next command. Errors name
/// the host ("cannot reach responder at g3:18520: Connection refused", "... runs a rocehealth
/// without incast support").
Result<tcp::Socket> say_hello(const tcp::HostPort& hp, int timeout_ms, Hello& hello,
                              double& offset_ms, double& rtt_ms);

class SampleLink {
  public:
    /// Starts the thread. `max_ms`: how long the host may sample at most.
    SampleLink(HostRun& host, tcp::HostPort hp, const Options& o, std::uint32_t max_ms);
    ~SampleLink();
    SampleLink(const SampleLink&) = delete;
    SampleLink& operator=(const SampleLink&) = delete;

    /// hello answered or failed (host.hello / host.error are final then).
    bool hello_done() const { return hello_done_.load(); }
    /// Asks the host to stop sampling; the thread collects the last passes and ends.
    void request_stop() { stop_.store(true); }
    bool finished() const { return finished_.load(); }
    /// Waits for the thread (bounded by its own deadlines).
    void join();

  private:
    void main();
    HostRun& host_;
    tcp::HostPort hp_;
    const Options& o_;
    std::uint32_t max_ms_;
    std::atomic<bool> hello_done_{false}, stop_{false}, finished_{false};
    std::thread thread_;
};

class SenderLink {
  public:
    enum class State { preparing, ready, failed, running, done };

    SenderLink(SenderRun& run, tcp::HostPort hp, Prepare prep, const Options& o);
    ~SenderLink();
    SenderLink(const SenderLink&) = delete;
    SenderLink& operator=(const SenderLink&) = delete;

    State state() const { return state_.load(); }
    /// Starts the sender at `start_wall_ms` (our clock; sent in its clock, via its offset).
    void go(std::int64_t start_wall_ms);
    /// The test is called off, before go() or while it runs: the link closes (the sender tears
    /// its stream down).
    void call_off();
    /// Latest progress report: seconds since its start, bytes and errors; nullopt before any.
    std::optional<Progress> latest() const;
    void join();

  private:
    void main();
    void run_test(const tcp::Socket& s, std::int64_t start_wall_ms);
    SenderRun& run_;
    tcp::HostPort hp_;
    Prepare prep_;
    const Options& o_;
    std::atomic<State> state_{State::preparing};
    std::atomic<std::int64_t> start_wall_ms_{0};
    std::atomic<bool> called_off_{false};
    mutable std::mutex mu_;
    std::optional<Progress> latest_;
    std::thread thread_;
};

}  // namespace rh::incast
