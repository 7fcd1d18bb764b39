// The agent's HTTP endpoint (cpp-httplib, Debian's libcpp-httplib-dev): serves what the run loop
// published on the Board. Endpoints (agent/daemon/README.md, "HTTP API"):
//   GET /metrics                 Prometheus text exposition (agent/daemon/metrics.h)
//   GET /api/v1/findings         the last rules run as `diagnose --json` (schema 1)
//   GET /api/v1/timeline?since=T its timeline events with t >= T; T = UTC seconds since the
//                                epoch, or a duration ago ("300s", "5m", "1h"); default all
//   GET /api/v1/snapshot         this host's inventory (`snapshot --json`)
//   GET /healthz                 {"status": "ok"|"starting"|"stale"|"no_device", ...}: 200 ok,
//                                else 503 (healthz.h)
//   POST /api/v1/incast          an incast with this host as receiver (incast_action.h); always
//                                needs the action token (http.action_token_file; 401 without,
//                                403 with the read token, 403 when none is configured)
// With http.protect_read every endpoint but /healthz and the actions needs "Authorization:
// Bearer TOKEN" (compared in constant time; 401 otherwise). /healthz is answered by the gate
// thread itself (healthz_request), never queued behind handler threads. Connections go through
// HttpGate (http_gate.h): at most http.max_connections_per_address per source address and
// http.max_connections in all, each request read whole (head <= 16 KiB, body <=
// http.max_request_bytes by Content-Length) within http.request_timeout_s before one of
// http.max_threads threads serves it, each response rendered in memory and written by the gate
// within http.write_timeout_s; refusals are counted in GateCounters. Handlers only copy published
// pointers, so no client can delay collection. With http.tls_cert_file the endpoint speaks
// HTTPS only (TLS 1.2+), terminated in the gate (http_tls.h), every bound above kept.
#pragma once

#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "agent/daemon/board.h"
#include "agent/daemon/config.h"
#include "agent/daemon/healthz.h"
#include "agent/daemon/http_gate.h"
#include "agent/daemon/http_tls.h"
#include "agent/daemon/incast_action.h"
#include "core/result.h"

namespace httplib {
struct Request;
struct Response;
}  // namespace httplib

namespace rh::agent {

/// True when a and b are equal; the time taken depends only on their lengths, not on where
/// they first differ.
bool token_equal(std::string_view a, std::string_view b);

/// A request the gate answers itself: GET /healthz[?...] over HTTP/1.x. `keep_alive`: false when
/// the client asked to close (HTTP/1.0, "Connection: close").
struct HealthzRequest {
    bool keep_alive = true;
};
/// `request`: a whole request as the gate framed it (head, then any body). nullopt: not /healthz.
std::optional<HealthzRequest> healthz_request(std::string_view request);
/// The whole HTTP/1.1 answer (status line, JSON body) for `h`; "Connection: close" unless `keep`.
std::string healthz_answer(const HealthReply& h, bool keep);

class GatedServer;  // http.cpp: cpp-httplib's server, fed by the gate

class HttpServer {
  public:
    /// Handles an action's request body (runs in the HTTP thread that received it).
    using Action = std::function<ActionReply(const std::string& body)>;

    /// `token` (the read token) empty: none configured (then protect_read must be false,
    /// config.h ensures it). `action_token` empty: none configured, and actions answer 403
    /// naming http.action_token_file. `counters` (outliving this) counts refused connections.
    /// `incast` serves POST /api/v1/incast (empty: 404). `tls`: HTTPS with that certificate
    /// and key (TlsContext::load of http.tls_cert_file / tls_key_file); nullptr: plain HTTP.
    HttpServer(HttpConfig cfg, std::string token, std::string action_token, const Board& board,
               GateCounters& counters, Action incast = {},
               std::shared_ptr<const TlsContext> tls = {});
    ~HttpServer();  ///< stop()
    HttpServer(const HttpServer&) = delete;
    HttpServer& operator=(const HttpServer&) = delete;

    /// Binds http.listen and starts serving in a thread. Error: the address cannot be bound.
    Status start();
    /// The bound port (the chosen one when listen_port is 0); 0 before start().
    int port() const;
    /// Stops accepting, finishes requests in flight (bounded by the write timeout), closes
    /// every connection, joins threads.
    void stop();
    /// One line per token this endpoint would carry in clear over the network: plain HTTP (no
    /// http.tls_cert_file) on a non-loopback http.listen with protect_read and a read token, or
    /// with an action token. None with HTTPS. The agent logs each at start and reload (event
    /// http_token_in_clear).
    std::vector<std::string> warnings() const;

  private:
    /// Every endpoint: the read token's gate, the read routes, the incast action, 405s and the
    /// JSON body of errors cpp-httplib answers by itself.
    void routes();
    void read_routes();
    void method_routes();
    void error_handlers();
    /// POST /api/v1/incast: checks the action token, then runs `incast_`.
    void incast_request(const httplib::Request& req, httplib::Response& res) const;
    static bool authorized(const std::string& authorization_header, const std::string& token);

    HttpConfig cfg_;
    std::string token_;
    std::string action_token_;
    const Board& board_;
    GateCounters& counters_;
    Action incast_;
    std::shared_ptr<const TlsContext> tls_;
    std::unique_ptr<GatedServer> srv_;  ///< routes; before gate_, whose threads use it
    std::unique_ptr<HttpGate> gate_;
};

}  // namespace rh::agent
