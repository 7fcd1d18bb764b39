#include "agent/daemon/http.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>

#include <httplib.h>

#include <cctype>
#include <cmath>
#include <cstring>
#include <optional>
#include <vector>

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
/// request (end of stream after it: a thread never waits on a client's bytes); writes go to
/// memory (GateConn::out), which the gate sends under http.write_timeout_s: a thread never
/// waits on a client that does not read.
class GateStream : public httplib::Stream {
  public:
    explicit GateStream(GateConn& c) : c_(c) {}

    bool is_readable() const override { return c_.in_off < c_.request_end; }
    bool is_writable() const override { return true; }
    ssize_t read(char* ptr, size_t size) override {
        const std::size_t n = std::min(size, c_.request_end - c_.in_off);
        std::memcpy(ptr, c_.in.data() + c_.in_off, n);
        c_.in_off += n;
        return static_cast<ssize_t>(n);
    }
    ssize_t write(const char* ptr, size_t size) override {
        c_.out.append(ptr, size);
        return static_cast<ssize_t>(size);
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
};

bool ieq(std::string_view a, std::string_view b) {
    return a.size() == b.size() && std::equal(a.begin(), a.end(), b.begin(), [](char x, char y) {
               return std::tolower(static_cast<unsigned char>(x)) ==
                      std::tolower(static_cast<unsigned char>(y));
           });
}

/// Whether the client asked to close after this answer: HTTP/1.0 without keep-alive, or a
/// "Connection: close" header (RFC 9112 9.3).
bool wants_close(std::string_view head, std::string_view version) {
    bool close = version != "HTTP/1.1";
    std::size_t pos = head.find("\r\n");
    while (pos != std::string_view::npos && pos + 2 < head.size()) {
        const std::size_t eol = head.find("\r\n", pos + 2);
        const std::string_view line = head.substr(pos + 2, eol - pos - 2);
        pos = eol;
        const std::size_t colon = line.find(':');
        if (colon == std::string_view::npos || !ieq(line.substr(0, colon), "connection")) continue;
        std::string v(line.substr(colon + 1));
        for (char& ch : v) ch = static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
        if (v.find("close") != std::string::npos) close = true;
        if (v.find("keep-alive") != std::string::npos) close = false;
    }
    return close;
}

}  // namespace

std::optional<HealthzRequest> healthz_request(std::string_view request) {
    const std::size_t eol = request.find("\r\n");
    const std::string_view line = request.substr(0, eol);
    const std::size_t sp1 = line.find(' ');
    const std::size_t sp2 = line.rfind(' ');
    if (sp1 == std::string_view::npos || sp2 <= sp1) return std::nullopt;
    const std::string_view method = line.substr(0, sp1);
    const std::string_view target = line.substr(sp1 + 1, sp2 - sp1 - 1);
    const std::string_view version = line.substr(sp2 + 1);
    const std::string_view path = target.substr(0, target.find('?'));
    if (method != "GET" || path != "/healthz" || version.rfind("HTTP/1.", 0) != 0)
        return std::nullopt;
    return HealthzRequest{!wants_close(request.substr(0, request.find("\r\n\r\n") + 2), version)};
}

std::string healthz_answer(const HealthReply& h, bool keep) {
    const std::string body =
        h.body.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace) + "\n";
    return "HTTP/1.1 " + std::to_string(h.status) +
           (h.status == 200 ? " OK" : " Service Unavailable") +
           "\r\nContent-Type: application/json\r\nContent-Length: " + std::to_string(body.size()) +
           (keep ? "" : "\r\nConnection: close") + "\r\n\r\n" + body;
}

namespace {

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

HttpServer::HttpServer(HttpConfig cfg, std::string token, std::string action_token,
                       const Board& board, GateCounters& counters, Action incast,
                       std::shared_ptr<const TlsContext> tls)
    : cfg_(std::move(cfg)),
      token_(std::move(token)),
      action_token_(std::move(action_token)),
      board_(board),
      counters_(counters),
      incast_(std::move(incast)),
      tls_(std::move(tls)) {}

HttpServer::~HttpServer() {
    stop();
}

bool HttpServer::authorized(const std::string& h, const std::string& token) {
    static constexpr std::string_view kBearer = "bearer ";  // the scheme is case-insensitive
    if (token.empty() || h.size() <= kBearer.size()) return false;
    for (std::size_t i = 0; i < kBearer.size(); ++i)
        if (std::tolower(static_cast<unsigned char>(h[i])) != kBearer[i]) return false;
    return token_equal(std::string_view(h).substr(kBearer.size()), token);
}

std::vector<std::string> HttpServer::warnings() const {
    std::vector<std::string> w;
    const bool loopback = cfg_.listen_host.rfind("127.", 0) == 0 || cfg_.listen_host == "::1";
    if (loopback || tls_) return w;
    const std::string where = "http.listen " + cfg_.listen_host + " is not a loopback address";
    const std::string fix =
        " Set http.tls_cert_file and http.tls_key_file (HTTPS), or listen on 127.0.0.1";
    if (!token_.empty() && cfg_.protect_read)
        w.push_back("the read token (http.token_file) crosses the network in clear: " + where +
                    " and the endpoint is plain HTTP; anyone on the path can read it and "
                    "scrape." +
                    fix);
    if (!action_token_.empty())
        w.push_back(
            "the action token (http.action_token_file) crosses the network in clear: " + where +
            " and the endpoint is plain HTTP; anyone on the path can read it and start "
            "incasts." +
            fix + ", or leave http.action_token_file out");
    return w;
}

namespace {

/// GET /api/v1/timeline: the timeline events at or after `since` (query parameter, optional).
void timeline_reply(const BoardView& v, const httplib::Request& req, httplib::Response& res) {
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
}

/// A known path asked with the wrong method is a 405 naming the method it takes (RFC 9110
/// 15.5.6), not a 404 that reads as "no such endpoint".
httplib::Server::Handler method_not_allowed(const char* allow) {
    return [allow](const httplib::Request& req, httplib::Response& res) {
        res.set_header("Allow", allow);
        error_reply(res, 405, req.method + " " + req.path + ": not allowed; use " + allow);
    };
}

}  // namespace

void HttpServer::routes() {
    srv_->set_pre_routing_handler([this](const httplib::Request& req, httplib::Response& res) {
        // Bodies without Content-Length (Transfer-Encoding) never get here: the gate refuses
        // them with 411 before reading one (http_gate.h).
        // Actions check their own token (the action token) in their handler.
        if (req.path == "/healthz" || !cfg_.protect_read ||
            (req.method == "POST" && req.path == "/api/v1/incast"))
            return httplib::Server::HandlerResponse::Unhandled;
        if (authorized(req.get_header_value("Authorization"), token_))
            return httplib::Server::HandlerResponse::Unhandled;
        res.set_header("WWW-Authenticate", "Bearer realm=\"rocehealth\"");
        error_reply(res, 401, "missing or wrong bearer token (Authorization: Bearer TOKEN)");
        return httplib::Server::HandlerResponse::Handled;
    });
    read_routes();
    if (incast_)
        srv_->Post("/api/v1/incast", [this](const httplib::Request& req, httplib::Response& res) {
            incast_request(req, res);
        });
    method_routes();
    error_handlers();
}

void HttpServer::read_routes() {
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
        timeline_reply(board_.get(), req, res);
    });
    srv_->Get("/api/v1/snapshot", [this](const httplib::Request&, httplib::Response& res) {
        const BoardView v = board_.get();
        if (!v.snapshot) return error_reply(res, 503, "no collection pass yet");
        res.set_content(v.snapshot->get(), "application/json");
    });
}

void HttpServer::incast_request(const httplib::Request& req, httplib::Response& res) const {
    // Actions make traffic: the action token always, whatever http.protect_read says;
    // the read (scrape) token, which Prometheus holds, never commands the fabric.
    if (action_token_.empty())
        return error_reply(res, 403,
                           "actions are off: set http.action_token_file in the agent's "
                           "config (a token of its own, not http.token_file) to enable "
                           "POST endpoints");
    const std::string h = req.get_header_value("Authorization");
    if (authorized(h, action_token_)) {
        const ActionReply r = incast_(req.body);
        return json_reply(res, r.status, r.body);
    }
    if (authorized(h, token_))
        return error_reply(res, 403,
                           "the read token (http.token_file) does not authorise actions; "
                           "send the token of http.action_token_file");
    res.set_header("WWW-Authenticate", "Bearer realm=\"rocehealth\"");
    return error_reply(res, 401,
                       "missing or wrong action token (Authorization: Bearer TOKEN, the "
                       "token of http.action_token_file)");
}

void HttpServer::method_routes() {
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
}

void HttpServer::error_handlers() {
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
    lim.write_timeout_s = cfg_.write_timeout_s;
    lim.keep_alive_max = kKeepAliveMax;
    lim.max_in_work_per_address = std::max(1u, cfg_.max_threads / 2);
    // /healthz in the gate thread: a liveness probe never waits for a handler thread.
    auto quick = [this](std::string_view request, std::string& out, bool& keep) {
        const auto q = healthz_request(request);
        if (!q) return false;
        keep = q->keep_alive;
        out = healthz_answer(healthz(board_.get(), monotonic_now_s()), keep);
        return true;
    };
    gate_ = std::make_unique<HttpGate>(
        lim, counters_,
        [this](GateConn& c) {
            GateStream strm(c);
            return srv_->serve(strm, c.served + 1 >= kKeepAliveMax);
        },
        quick, tls_);
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
