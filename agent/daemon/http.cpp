#include "agent/daemon/http.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>

#include <httplib.h>

#include <cctype>
#include <cmath>
#include <cstring>

#include "agent/daemon/healthz.h"
#include "agent/daemon/log.h"
#include "agent/sampling/host_sampler.h"
#include "core/clock.h"
#include "core/duration_arg.h"

namespace rh::agent {

namespace {

/// Requests per connection before the server closes it (the last answer says so).
constexpr unsigned kKeepAliveMax = 100;

/// The connection as cpp-httplib reads and writes it. Reads come only from the buffered
/// request (end of stream after it: a thread never waits on a client's bytes); the response
/// must be taken by the client within write_timeout_s of its first byte, in total.
class GateStream : public httplib::Stream {
  public:
    GateStream(GateConn& c, double write_timeout_s) : c_(c), write_timeout_s_(write_timeout_s) {}

    bool is_readable() const override { return c_.in_off < c_.request_end; }
    bool is_writable() const override {
        pollfd p{c_.fd, POLLOUT, 0};
        return ::poll(&p, 1, 0) == 1 && (p.revents & POLLOUT);
    }
    ssize_t read(char* ptr, size_t size) override {
        const std::size_t n = std::min(size, c_.request_end - c_.in_off);
        std::memcpy(ptr, c_.in.data() + c_.in_off, n);
        c_.in_off += n;
        return static_cast<ssize_t>(n);
    }
    ssize_t write(const char* ptr, size_t size) override {
        if (deadline_ == 0) deadline_ = monotonic_now_s() + write_timeout_s_;
        for (;;) {
            const ssize_t n = ::send(c_.fd, ptr, size, MSG_DONTWAIT | MSG_NOSIGNAL);
            if (n >= 0) return n;
            if (errno == EINTR) continue;
            if (errno != EAGAIN) return -1;
            const double left_s = deadline_ - monotonic_now_s();
            if (left_s <= 0) return -1;
            pollfd p{c_.fd, POLLOUT, 0};
            if (::poll(&p, 1, static_cast<int>(std::ceil(left_s * 1000))) <= 0) return -1;
        }
    }
    void get_remote_ip_and_port(std::string& ip, int& port) const override {
        ip = c_.peer_ip;
        port = c_.peer_port;
    }
    void get_local_ip_and_port(std::string& ip, int& port) const override {
        sockaddr_storage ss{};
        socklen_t len = sizeof ss;
        port = 0;
        ip.clear();
        if (::getsockname(c_.fd, reinterpret_cast<sockaddr*>(&ss), &len) == 0)
            ip = peer_text(ss, port);
    }
    socket_t socket() const override { return c_.fd; }

  private:
    GateConn& c_;
    double write_timeout_s_;
    double deadline_ = 0;
};

void json_reply(httplib::Response& res, int status, const nlohmann::json& body) {
    res.status = status;
    res.set_content(body.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace) + "\n",
                    "application/json");
}

void error_reply(httplib::Response& res, int status, const std::string& message) {
    json_reply(res, status, {{"error", message}});
}

/// ?since=: UTC seconds since the epoch, or a duration ago ("300s", "5m"). Error text or value.
std::optional<std::string> parse_since(const std::string& text, double now_wall_s, double& out) {
    if (!text.empty() && std::isalpha(static_cast<unsigned char>(text.back()))) {
        double ago = 0;
        if (auto e = parse_duration_s("since", text, 0, 86400 * 366, ago)) return e;
        out = now_wall_s - ago;
        return std::nullopt;
    }
    char* end = nullptr;
    out = std::strtod(text.c_str(), &end);
    if (text.empty() || end != text.c_str() + text.size() || !std::isfinite(out) || out < 0)
        return "since: '" + text +
               "' is neither UTC seconds since the epoch nor a duration ago (e.g. 5m)";
    return std::nullopt;
}

double wall_now_s() {
    return static_cast<double>(wall_now_ms()) / 1000.0;
}

}  // namespace

/// cpp-httplib's request processing on a connection the gate (http_gate.h) has read a whole
/// request from: process_request is the library's parser, router and response writer.
class GatedServer : public httplib::Server {
  public:
    /// True: the connection may carry another request.
    bool serve(httplib::Stream& strm, bool last) {
        bool closed = false;
        const bool ok = process_request(strm, last, closed, nullptr);
        return ok && !closed;
    }
};

bool token_equal(std::string_view a, std::string_view b) {
    // Every byte of the longer one is visited; the result is accumulated without branches.
    const std::size_t n = std::max(a.size(), b.size());
    unsigned char diff = a.size() == b.size() ? 0 : 1;
    for (std::size_t i = 0; i < n; ++i) {
        const unsigned char x = i < a.size() ? static_cast<unsigned char>(a[i]) : 0;
        const unsigned char y = i < b.size() ? static_cast<unsigned char>(b[i]) : 0;
        diff |= static_cast<unsigned char>(x ^ y);
    }
    return diff == 0 && n > 0;
}

HttpServer::HttpServer(HttpConfig cfg, std::string token, const Board& board,
                       GateCounters& counters, Action incast)
    : cfg_(std::move(cfg)),
      token_(std::move(token)),
      board_(board),
      counters_(counters),
      incast_(std::move(incast)) {}

HttpServer::~HttpServer() {
    stop();
}

bool HttpServer::authorized(const std::string& h) const {
    static constexpr std::string_view kBearer = "bearer ";  // the scheme is case-insensitive
    if (token_.empty() || h.size() <= kBearer.size()) return false;
    for (std::size_t i = 0; i < kBearer.size(); ++i)
        if (std::tolower(static_cast<unsigned char>(h[i])) != kBearer[i]) return false;
    return token_equal(std::string_view(h).substr(kBearer.size()), token_);
}

void HttpServer::routes() {
    srv_->set_pre_routing_handler([this](const httplib::Request& req, httplib::Response& res) {
        // Bodies without Content-Length (Transfer-Encoding) never get here: the gate refuses
        // them with 411 before reading one (http_gate.h).
        if (req.path == "/healthz" || !cfg_.protect_read)
            return httplib::Server::HandlerResponse::Unhandled;
        if (authorized(req.get_header_value("Authorization")))
            return httplib::Server::HandlerResponse::Unhandled;
        res.set_header("WWW-Authenticate", "Bearer realm=\"rocehealth\"");
        error_reply(res, 401, "missing or wrong bearer token (Authorization: Bearer TOKEN)");
        return httplib::Server::HandlerResponse::Handled;
    });
    srv_->Get("/healthz", [this](const httplib::Request&, httplib::Response& res) {
        const HealthReply h = healthz(board_.get(), monotonic_now_s());
        json_reply(res, h.status, h.body);
    });
    srv_->Get("/metrics", [this](const httplib::Request&, httplib::Response& res) {
        const BoardView v = board_.get();
        if (!v.metrics) return error_reply(res, 503, "no collection pass yet");
        res.set_content(v.metrics->get(), "text/plain; version=0.0.4; charset=utf-8");
    });
    srv_->Get("/api/v1/findings", [this](const httplib::Request&, httplib::Response& res) {
        const BoardView v = board_.get();
        if (!v.findings) return error_reply(res, 503, "no rules run yet");
        json_reply(res, 200, v.findings->get());
    });
    srv_->Get("/api/v1/timeline", [this](const httplib::Request& req, httplib::Response& res) {
        const BoardView v = board_.get();
        if (!v.findings) return error_reply(res, 503, "no rules run yet");
        double since = -INFINITY;
        if (req.has_param("since"))
            if (auto e = parse_since(req.get_param_value("since"), wall_now_s(), since))
                return error_reply(res, 400, *e);
        nlohmann::json events = nlohmann::json::array();
        const nlohmann::json& doc = v.findings->get();
        if (const auto it = doc.find("timeline"); it != doc.end())
            for (const auto& e : *it)
                if (e.value("t", 0.0) >= since) events.push_back(e);
        nlohmann::json j = {{"schema", 1}, {"timeline", std::move(events)}};
        if (std::isfinite(since)) j["since"] = since;
        json_reply(res, 200, j);
    });
    srv_->Get("/api/v1/snapshot", [this](const httplib::Request&, httplib::Response& res) {
        const BoardView v = board_.get();
        if (!v.snapshot) return error_reply(res, 503, "no collection pass yet");
        res.set_content(v.snapshot->get(), "application/json");
    });
    if (incast_)
        srv_->Post("/api/v1/incast", [this](const httplib::Request& req, httplib::Response& res) {
            // Actions make traffic: the token always, whatever http.protect_read says.
            if (token_.empty())
                return error_reply(res, 403,
                                   "actions need http.token_file in the agent's config; none "
                                   "is configured");
            if (!authorized(req.get_header_value("Authorization"))) {
                res.set_header("WWW-Authenticate", "Bearer realm=\"rocehealth\"");
                return error_reply(res, 401,
                                   "missing or wrong bearer token (Authorization: Bearer TOKEN)");
            }
            const ActionReply r = incast_(req.body);
            json_reply(res, r.status, r.body);
        });
    // A known path asked with the wrong method is a 405 naming the method it takes (RFC 9110
    // 15.5.6), not a 404 that reads as "no such endpoint".
    const auto method_not_allowed = [](const char* allow) {
        return [allow](const httplib::Request& req, httplib::Response& res) {
            res.set_header("Allow", allow);
            error_reply(res, 405, req.method + " " + req.path + ": not allowed; use " + allow);
        };
    };
    for (const char* path :
         {"/healthz", "/metrics", "/api/v1/findings", "/api/v1/timeline", "/api/v1/snapshot"}) {
        srv_->Post(path, method_not_allowed("GET"));
        srv_->Put(path, method_not_allowed("GET"));
        srv_->Delete(path, method_not_allowed("GET"));
    }
    if (incast_) {
        srv_->Get("/api/v1/incast", method_not_allowed("POST"));
        srv_->Put("/api/v1/incast", method_not_allowed("POST"));
        srv_->Delete("/api/v1/incast", method_not_allowed("POST"));
    }
    // Errors cpp-httplib answers by itself (404 unknown path, 405, 413 body too large, 400
    // malformed request) get the same JSON body as ours.
    srv_->set_error_handler([](const httplib::Request& req, httplib::Response& res) {
        if (!res.body.empty()) return;
        const std::string what = res.status == 404 ? "no such endpoint: " + req.path
                                 : res.status == 413
                                     ? "request body larger than http.max_request_bytes"
                                     : "HTTP " + std::to_string(res.status);
        error_reply(res, res.status, what);
    });
    srv_->set_exception_handler(
        [](const httplib::Request& req, httplib::Response& res, std::exception_ptr ep) {
            std::string what = "unknown";
            try {
                std::rethrow_exception(ep);
            } catch (const std::exception& e) {
                what = e.what();
            } catch (...) {
            }
            log_event("error", "http_handler_failed", {{"path", req.path}, {"what", what}});
            error_reply(res, 500, "internal error");
        });
}

Status HttpServer::start() {
    srv_ = std::make_unique<GatedServer>();
    // Used by the response headers ("Keep-Alive: timeout=N, max=M") and the body limit; reads,
    // writes and keep-alive waits are the gate's (http_gate.h).
    srv_->set_keep_alive_timeout(static_cast<time_t>(std::ceil(cfg_.read_timeout_s)));
    srv_->set_keep_alive_max_count(kKeepAliveMax);
    srv_->set_payload_max_length(cfg_.max_request_bytes);
    routes();
    GateLimits lim;
    lim.threads = cfg_.max_threads;
    lim.max_queued = cfg_.max_queued;
    lim.max_connections = cfg_.max_connections;
    lim.max_per_address = cfg_.max_connections_per_address;
    lim.max_body_bytes = cfg_.max_request_bytes;
    lim.request_timeout_s = cfg_.request_timeout_s;
    lim.idle_timeout_s = cfg_.read_timeout_s;
    lim.keep_alive_max = kKeepAliveMax;
    const double write_timeout_s = cfg_.write_timeout_s;
    gate_ = std::make_unique<HttpGate>(lim, counters_, [this, write_timeout_s](GateConn& c) {
        GateStream strm(c, write_timeout_s);
        return srv_->serve(strm, c.served + 1 >= kKeepAliveMax);
    });
    if (auto s = gate_->start(cfg_.listen_host, cfg_.listen_port); !s) {
        gate_.reset();
        srv_.reset();
        return s;
    }
    return ok_status();
}

int HttpServer::port() const {
    return gate_ ? gate_->port() : 0;
}

void HttpServer::stop() {
    if (gate_) gate_->stop();
    gate_.reset();
    srv_.reset();
}

}  // namespace rh::agent
