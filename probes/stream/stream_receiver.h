// The receiving end of a stream session (probes/wire/stream_protocol.h), run by `rocehealth
// responder` for each sender of an incast: one RC QP per sender QP, each with a ring of
// stream::ring_slots(queue depth) message slots and stream::recv_depth receive WQEs posted. Every
// receive completion is checked (stream_slots.h: length, seq, trailer; the whole payload for the
// share Open::verify_ppm picks), counted, and its receive WQE re-posted (for the slot recv_depth
// messages ahead) only after that check.
#pragma once

#include <atomic>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/result.h"
#include "probes/verbs/device_select.h"
#include "probes/verbs/rc_connection.h"
#include "probes/wire/slot.h"
#include "probes/wire/stream_protocol.h"
#include "probes/wire/stream_slots.h"
#include "probes/wire/tcp.h"

namespace rh::stream {

class Receiver {
  public:
    /// Opens one QP per requested one on `where`, registers its ring (REMOTE_WRITE only for
    /// op write), posts its receives and connects it (RTR, RTS) to the sender's QP. Errors name
    /// the verbs step (e.g. "ibv_reg_mr rxe0: ...: 3145728 bytes (memlock limit: ulimit -l?)").
    static Result<std::unique_ptr<Receiver>> open(const Open& req, const PortChoice& where,
                                                  const std::string& hostname);

    /// The stream_ready answer (QPNs, ring addresses and rkeys).
    Ready ready() const;

    /// Serves the stream until the sender's stream_end on `control` and its completed messages
    /// arrived (at most kDrainMs more), or the control connection closes, `stop` is set, or
    /// max_ms passed since open; the reason for an early end is in Received::note.
    Received run(const tcp::Socket& control, const std::atomic<bool>& stop);

  private:
    struct Qp {
        std::unique_ptr<RcConnection> conn;
        std::uint64_t received = 0;  ///< receive completions so far (= next message's number)
        bool dead = false;           ///< an error completion put the QP in error
        QpReceived r;
        slot::Sampler sampler;  ///< which messages get the full payload pass
    };
    Receiver(const Open& req, const PortChoice& where, std::string hostname);
    /// Reaps up to a batch of completions of one QP; true when any arrived.
    bool reap(Qp& q);

    Open req_;
    PortChoice where_;
    std::string hostname_;
    Patterns patterns_;
    unsigned slots_;
    unsigned depth_;
    std::vector<Qp> qps_;
};

/// Responder side of a stream session whose first message is `open` (a stream_open): sets up,
/// answers stream_ready (or an error message), serves, answers stream_result. `log` gets one
/// line per notable event (set up, ended early, bad slots).
void serve_stream(const tcp::Socket& s, const nlohmann::json& open, const PortChoice& where,
                  const std::atomic<bool>& stop,
                  const std::function<void(const std::string&)>& log);

}  // namespace rh::stream
