// The sending end of a stream session (probes/wire/stream_protocol.h): 1..kMaxQps RC QPs to a
// receiver's `rocehealth responder`, each keeping up to queue_depth messages outstanding
// (RDMA WRITE with immediate into the receiver's ring, or SEND), every message signaled. Message
// n of a QP is posted only after message n - queue_depth completed, which is what keeps the
// receiver's ring safe (stream_slots.h). Errors are counted per completion status.
#pragma once

#include <atomic>
#include <chrono>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "core/result.h"
#include "probes/verbs/device_select.h"
#include "probes/verbs/rc_connection.h"
#include "probes/wire/stream_protocol.h"
#include "probes/wire/stream_slots.h"
#include "probes/wire/tcp.h"

namespace rh::stream {

struct SenderConfig {
    PortChoice where;
    tcp::HostPort receiver;
    Op op = Op::write;
    std::uint64_t size_bytes = 65536;
    unsigned qps = 1;
    unsigned queue_depth = 16;
    std::uint32_t seed = 1;
    std::uint32_t max_ms = 60000;  ///< how long the receiver waits for stream_end
    std::string hostname;
    int setup_timeout_ms = 30000;  ///< connect + stream_ready
};

/// One QP's count at the sender.
struct QpSent {
    std::uint64_t posted = 0;
    std::uint64_t completed = 0;  ///< successful completions (the receiver took the message)
    std::uint64_t failed = 0;     ///< error completions, incl. IBV_WC_WR_FLUSH_ERR
    std::map<std::string, std::uint64_t> errors;  ///< by IBV_WC_* name
    std::string error;                            ///< first error, "" if none
    std::chrono::steady_clock::time_point first_post{}, last_completion{};
    std::uint64_t outstanding() const { return posted - completed - failed; }
};

/// A progress tick: seconds since run() began, and totals over all QPs.
struct SendProgress {
    double elapsed_s = 0;
    std::uint64_t completed_messages = 0;
    std::uint64_t completed_bytes = 0;
    std::uint64_t errors = 0;
};

class Sender {
  public:
    /// Opens the QPs, then the control connection to the receiver: stream_open -> stream_ready,
    /// and connects the QPs. Errors say which step and name the receiver (an error message from
    /// it is quoted).
    static Result<std::unique_ptr<Sender>> open(const SenderConfig& cfg);

    /// Streams until `until`; every ~1 s calls `tick`, and stops posting early when it returns
    /// false. Then waits (at most kDrainMs) for the outstanding messages.
    void run(std::chrono::steady_clock::time_point until,
             const std::function<bool(const SendProgress&)>& tick);

    /// Sends stream_end and returns the receiver's stream_result.
    Result<Received> finish();

    const std::vector<QpSent>& sent() const { return sent_; }
    const Ready& ready() const { return ready_; }
    /// Steady instant run() began posting.
    std::chrono::steady_clock::time_point started() const { return started_; }

  private:
    explicit Sender(const SenderConfig& cfg);
    bool reap(std::size_t q);
    bool fill(std::size_t q, std::chrono::steady_clock::time_point now);
    SendProgress totals(std::chrono::steady_clock::time_point now) const;

    SenderConfig cfg_;
    Patterns patterns_;
    std::vector<std::unique_ptr<RcConnection>> conns_;
    std::vector<QpSent> sent_;
    std::vector<bool> dead_;
    tcp::Socket control_;
    Ready ready_;
    std::chrono::steady_clock::time_point started_{};
};

}  // namespace rh::stream
