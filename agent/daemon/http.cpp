#include "agent/daemon/http.h"

#include <sys/socket.h>

#include <httplib.h>

#include <cctype>
#include <chrono>
#include <cmath>
#include <condition_variable>
#include <deque>
#include <mutex>

#include "agent/daemon/healthz.h"
#include "agent/daemon/log.h"
#include "agent/duration_arg.h"
#include "agent/host_sampler.h"
#include "core/clock.h"

namespace rh::agent {

namespace {

/// httplib's ThreadPool with a bounded queue: enqueue blocks the acceptor while max_queued
/// connections wait, so a connection flood queues in the kernel, not in our memory.
class BoundedPool : public httplib::TaskQueue {
  public:
    BoundedPool(unsigned threads, unsigned max_queued) : max_queued_(max_queued) {
        for (unsigned i = 0; i < threads; ++i) workers_.emplace_back([this] { work(); });
    }

    void enqueue(std::function<void()> fn) override {
        std::unique_lock<std::mutex> l(m_);
        space_.wait(l, [&] { return jobs_.size() < max_queued_ || shutdown_; });
        jobs_.push_back(std::move(fn));
        ready_.notify_one();
    }

    void shutdown() override {
        {
            std::lock_guard<std::mutex> l(m_);
            shutdown_ = true;
        }
        ready_.notify_all();
        space_.notify_all();
        for (auto& t : workers_) t.join();
    }

  private:
    void work() {
        for (;;) {
            std::function<void()> fn;
            {
                std::unique_lock<std::mutex> l(m_);
                ready_.wait(l, [&] { return !jobs_.empty() || shutdown_; });
                if (jobs_.empty()) return;  // shut down and drained
                fn = std::move(jobs_.front());
                jobs_.pop_front();
                space_.notify_one();
            }
            fn();
        }
    }

    unsigned max_queued_;
    std::mutex m_;
    std::condition_variable ready_, space_;
    std::deque<std::function<void()>> jobs_;
    bool shutdown_ = false;
    std::vector<std::thread> workers_;
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
        if (auto e = cli::parse_duration_s("since", text, 0, 86400 * 366, ago)) return e;
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

HttpServer::HttpServer(HttpConfig cfg, std::string token, const Board& board, Action incast)
    : cfg_(std::move(cfg)), token_(std::move(token)), board_(board), incast_(std::move(incast)) {}

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
        // Before any body is read: cpp-httplib 0.11 applies max_request_bytes to Content-Length
        // bodies only and would buffer a chunked one whole (memory exhaustion by any client).
        // No endpoint needs chunked bodies; the connection is closed with the body unread.
        if (req.has_header("Transfer-Encoding")) {
            res.set_header("Connection", "close");
            error_reply(res, 411, "request bodies need Content-Length (Transfer-Encoding refused)");
            return httplib::Server::HandlerResponse::Handled;
        }
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
        res.set_content(*v.metrics, "text/plain; version=0.0.4; charset=utf-8");
    });
    srv_->Get("/api/v1/findings", [this](const httplib::Request&, httplib::Response& res) {
        const BoardView v = board_.get();
        if (!v.findings) return error_reply(res, 503, "no rules run yet");
        json_reply(res, 200, *v.findings);
    });
    srv_->Get("/api/v1/timeline", [this](const httplib::Request& req, httplib::Response& res) {
        const BoardView v = board_.get();
        if (!v.findings) return error_reply(res, 503, "no rules run yet");
        double since = -INFINITY;
        if (req.has_param("since"))
            if (auto e = parse_since(req.get_param_value("since"), wall_now_s(), since))
                return error_reply(res, 400, *e);
        nlohmann::json events = nlohmann::json::array();
        if (const auto it = v.findings->find("timeline"); it != v.findings->end())
            for (const auto& e : *it)
                if (e.value("t", 0.0) >= since) events.push_back(e);
        nlohmann::json j = {{"schema", 1}, {"timeline", std::move(events)}};
        if (std::isfinite(since)) j["since"] = since;
        json_reply(res, 200, j);
    });
    srv_->Get("/api/v1/snapshot", [this](const httplib::Request&, httplib::Response& res) {
        const BoardView v = board_.get();
        if (!v.snapshot) return error_reply(res, 503, "no collection pass yet");
        res.set_content(*v.snapshot, "application/json");
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
    srv_ = std::make_unique<httplib::Server>();
    const unsigned threads = cfg_.max_threads, queued = cfg_.max_queued;
    srv_->new_task_queue = [threads, queued] { return new BoundedPool(threads, queued); };
    const auto secs = [](double s) {
        return std::chrono::microseconds(static_cast<std::int64_t>(s * 1e6));
    };
    srv_->set_read_timeout(secs(cfg_.read_timeout_s));
    srv_->set_write_timeout(secs(cfg_.write_timeout_s));
    srv_->set_keep_alive_timeout(static_cast<time_t>(std::ceil(cfg_.read_timeout_s)));
    srv_->set_keep_alive_max_count(100);
    srv_->set_payload_max_length(cfg_.max_request_bytes);
    // SO_REUSEADDR only: cpp-httplib's default adds SO_REUSEPORT, with which a second agent
    // (or a reload onto another agent's port) binds the same port and scrapes reach either.
    srv_->set_socket_options([](socket_t sock) {
        int yes = 1;
        ::setsockopt(sock, SOL_SOCKET, SO_REUSEADDR, &yes, sizeof yes);
    });
    routes();
    if (cfg_.listen_port == 0) {
        port_ = srv_->bind_to_any_port(cfg_.listen_host);
        if (port_ < 0) port_ = 0;
    } else if (srv_->bind_to_port(cfg_.listen_host, cfg_.listen_port)) {
        port_ = cfg_.listen_port;
    }
    if (port_ == 0) {
        srv_.reset();
        return Error{"bind", cfg_.listen_host + ":" + std::to_string(cfg_.listen_port), 0,
                     "cannot listen there (port in use, or not an address of this host)"};
    }
    thread_ = std::thread([this] { srv_->listen_after_bind(); });
    return ok_status();
}

void HttpServer::stop() {
    if (!srv_) return;
    srv_->stop();
    if (thread_.joinable()) thread_.join();
    srv_.reset();
    port_ = 0;
}

}  // namespace rh::agent
