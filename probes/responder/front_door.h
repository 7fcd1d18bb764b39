// A responder's accept loop and everything a connection does before it proves the fabric key
// (issue 27, "Unauthenticated budgets"). run_responder (probes/responder/responder.h) hands it the
// verbs-side work as handlers, so this part runs and is tested without an RDMA device.
//
// A new connection joins the lobby (probes/responder/admission.h): no thread, at most
// AdmissionLimits::preauth_per_address per address (the next is refused at once with a fixed
// error frame naming the cap), at most AdmissionLimits::lobby in all (then the oldest is closed
// for the newcomer: an idle flood from many addresses cannot lock out a client that sends its
// first frame at once, as every real client does). The accept loop reads lobby frames itself,
// without blocking, up to kPreauthFrameBytes each (a longer header is refused by name before its
// body is read). The first frame decides:
//
//   query                 answered inline, closed
//   hello (json)          answered inline; the connection stays in the lobby for auth, under the
//                         same deadline (a second hello closes it)
//   probe_request         an unauthenticated probe session, in the probe pool (own per-address
//                         cap and total, so an idle flood of the lobby cannot starve the mesh)
//   auth (json)           the fabric-key handshake on a thread of the auth pool; once proven, the
//                         connection moves to the keyed pool and its next frame (up to the
//                         protocol's 1 MiB) starts a control session or a keyed probe session
//   anything else         refused by name, closed
//
// A connection that sends nothing useful within first_frame_ms of its accept is closed. Refusals
// and closes are logged at most once per address per 10 s, with a count every 60 s
// (probes/responder/refusal_log.h).
#pragma once

#include <atomic>
#include <cstddef>
#include <functional>
#include <memory>
#include <string>

#include <nlohmann/json.hpp>

#include "probes/auth/failure_limiter.h"
#include "probes/responder/admission.h"
#include "probes/wire/tcp.h"

namespace rh {

/// Largest frame of a peer that has not proven the fabric key, header included (issue 27: a
/// 1 MiB pre-auth json frame cost ~31 MiB to parse).
inline constexpr std::size_t kPreauthFrameBytes = 4096;

struct FrontDoorOptions {
    AdmissionLimits limits;
    int first_frame_ms = 5000;  ///< from accept to the first frame, and to auth after a hello
    int handshake_ms = 5000;    ///< the key handshake, then the first command after it
};

/// The verbs-side work, each with the connection's socket (its peer() names it for logs).
struct FrontDoorHandlers {
    /// On the accept thread: send the query_reply (a short send deadline; the socket is new).
    std::function<void(const tcp::Socket&)> query;
    /// On the accept thread: this host's hello_reply.
    std::function<nlohmann::json()> hello;
    /// On a session thread: one probe session whose probe_request is `req`; `proven` when the
    /// peer proved the fabric key (else the unauthenticated budget applies).
    std::function<void(const tcp::Socket&, const oob::Message& req, bool proven)> probe;
    /// On a session thread, after the key was proven: a control session whose first command is
    /// `first` (probes/responder/control_dispatch.h).
    std::function<void(const tcp::Socket&, const nlohmann::json& first)> control;
    /// On the accept thread between polls (SIGHUP key reload); may be empty.
    std::function<void()> between;
};

class FrontDoor {
  public:
    FrontDoor(FrontDoorOptions o, FrontDoorHandlers h);
    ~FrontDoor();
    FrontDoor(const FrontDoor&) = delete;
    FrontDoor& operator=(const FrontDoor&) = delete;

    /// Serves `listener` until `stop` is true, then closes the lobby and joins every session.
    void run(const tcp::Socket& listener, const std::atomic<bool>& stop);

    /// Live counts (tests, figures).
    const Admission& admission() const;

  private:
    struct Impl;
    std::unique_ptr<Impl> impl_;
};

}  // namespace rh
