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
//                                needs the token (401 without; 403 when none is configured)
// With http.protect_read every endpoint but /healthz needs "Authorization: Bearer TOKEN"
// (compared in constant time; 401 otherwise). Bounded: http.max_threads handler threads,
// http.max_queued connections waiting (the acceptor blocks beyond that, so the kernel backlog
// absorbs a flood), request bodies over http.max_request_bytes get 413, headers and URI are
// capped at 8 KiB by the library, reads and writes time out. Handlers only copy published
// pointers, so no client can delay collection.
#pragma once

#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <thread>

#include "agent/daemon/board.h"
#include "agent/daemon/config.h"
#include "agent/daemon/incast_action.h"
#include "core/result.h"

namespace httplib {
class Server;
}

namespace rh::agent {

/// True when a and b are equal; the time taken depends only on their lengths, not on where
/// they first differ.
bool token_equal(std::string_view a, std::string_view b);

class HttpServer {
  public:
    /// Handles an action's request body (runs in the HTTP thread that received it).
    using Action = std::function<ActionReply(const std::string& body)>;

    /// `token` empty: no token configured (then protect_read must be false, config.h ensures it,
    /// and actions answer 403). `incast` serves POST /api/v1/incast (empty: 404).
    HttpServer(HttpConfig cfg, std::string token, const Board& board, Action incast = {});
    ~HttpServer();  ///< stop()
    HttpServer(const HttpServer&) = delete;
    HttpServer& operator=(const HttpServer&) = delete;

    /// Binds http.listen and starts serving in a thread. Error: the address cannot be bound.
    Status start();
    /// The bound port (the chosen one when listen_port is 0); 0 before start().
    int port() const { return port_; }
    /// Stops accepting, finishes requests in flight (bounded by the timeouts), joins threads.
    void stop();

  private:
    void routes();
    bool authorized(const std::string& authorization_header) const;

    HttpConfig cfg_;
    std::string token_;
    const Board& board_;
    Action incast_;
    std::unique_ptr<httplib::Server> srv_;
    std::thread thread_;
    int port_ = 0;
};

}  // namespace rh::agent
