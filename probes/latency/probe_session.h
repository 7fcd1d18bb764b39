// A probe client session kept open: one RC QP to a `rocehealth responder`, set up once, over
// which (op, size) phases run one after another. `rocehealth probe` runs one round of phases
// (run_probe); the incast's victim flow runs many short WRITE phases over the same QP and keeps
// their raw samples. After a failed phase the QP is in error and the session is broken().
#pragma once

#include <memory>
#include <optional>
#include <vector>

#include "core/result.h"
#include "probes/latency/latency_phases.h"
#include "probes/latency/probe.h"
#include "probes/latency/send_latency.h"
#include "probes/verbs/rc_connection.h"
#include "probes/wire/tcp.h"

namespace rh {

/// "half round trip" (write, send) or "post to completion" (read).
const char* latency_kind(ProbeOp op);

/// True when a responder serves `o` only to a peer that proved the fabric key: its buffer
/// (oob::buffer_bytes of its ops, largest size, queue depth) exceeds limits::kUnauthSessionBytes,
/// or a READ phase may last longer than limits::kUnauthReadPhaseMs (count x timeout). open()
/// then proves the process key first, when there is one.
bool needs_fabric_key(const ProbeOptions& o);

class ProbeSession {
  public:
    /// Validates `o` (ops, sizes, limits), registers a buffer for o.ops and the largest of
    /// o.sizes, connects to o.peer and does the probe_request handshake. An Error means the
    /// session could not start (bad options, no device, unreachable or refusing responder).
    static Result<std::unique_ptr<ProbeSession>> open(const ProbeOptions& o);

    /// Runs one phase: `warmup` untimed then `iterations` timed messages of `size` bytes (an op
    /// of the session, size <= its largest). Failures are in the result's `error`; the timed
    /// samples (µs) are appended to `raw` when given, also those of a phase that failed.
    LatencyStats run_phase(ProbeOp op, std::uint64_t size, unsigned iterations, unsigned warmup,
                           std::vector<double>* raw = nullptr);

    /// A phase failed: the QP is in error, no more phases can run.
    bool broken() const { return broken_; }

    /// Says bye to the responder (when not broken); the session is done.
    void close();

    /// Peer, devices, MTUs and QP attributes of the session; `results` and `errors` empty.
    const ProbeReport& header() const { return header_; }

  private:
    ProbeSession() = default;

    ProbeOptions o_;
    ProbeReport header_;
    tcp::Socket sock_;
    std::unique_ptr<RcConnection> conn_;
    RemoteBuffer rb_;
    std::optional<SendSession> send_;
    std::uint32_t seq_ = 1;
    bool broken_ = false;
};

}  // namespace rh
