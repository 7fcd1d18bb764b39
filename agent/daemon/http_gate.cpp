#include "agent/daemon/http_gate.h"

#include <arpa/inet.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <optional>

#include "agent/daemon/http_tls.h"
#include "agent/daemon/log.h"
#include "core/clock.h"

namespace rh::agent {

namespace {

/// A refused connection is drained (so closing it does not reset the connection before the
/// client read our answer) for at most this long after the answer is sent.
constexpr double kLingerS = 1.0;
/// A refusal is logged at most this often per reason (with the count since the last log).
constexpr double kLogEveryS = 60;
/// Refused connections draining at once; beyond, one is closed at once (descriptors are shared
/// with the collector's kept-open counter files).
constexpr std::size_t kMaxLingering = 64;

bool iequals(std::string_view a, std::string_view b) {
    return a.size() == b.size() && std::equal(a.begin(), a.end(), b.begin(), [](char x, char y) {
               return std::tolower(static_cast<unsigned char>(x)) ==
                      std::tolower(static_cast<unsigned char>(y));
           });
}

std::string_view trim_ows(std::string_view v) {
    while (!v.empty() && (v.front() == ' ' || v.front() == '\t')) v.remove_prefix(1);
    while (!v.empty() && (v.back() == ' ' || v.back() == '\t')) v.remove_suffix(1);
    return v;
}

Framing refused(int status, GateRefusal why, std::string error) {
    return Framing{Framing::refuse, 0, status, why, std::move(error)};
}

/// The whole answer of a refusal, sent without waiting (it fits any socket buffer).
std::string refusal_text(int status, const std::string& error) {
    const char* phrase = status == 503   ? "Service Unavailable"
                         : status == 408 ? "Request Timeout"
                         : status == 411 ? "Length Required"
                         : status == 413 ? "Payload Too Large"
                                         : "Bad Request";
    std::string body = "{\"error\":\"";
    for (char ch : error) body += ch == '"' || ch == '\\' ? '\'' : ch;  // our own ASCII texts
    body += "\"}\n";
    return "HTTP/1.1 " + std::to_string(status) + " " + phrase +
           "\r\nContent-Type: application/json\r\nConnection: close\r\nContent-Length: " +
           std::to_string(body.size()) + "\r\n\r\n" + body;
}

std::string seconds_text(double s) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "%g", s);
    return buf;
}

void drain(int fd) {
    char sink[4096];
    while (::recv(fd, sink, sizeof sink, MSG_DONTWAIT) > 0) {
    }
}

constexpr int kOne = 1;

/// errno of conn_recv when a plain HTTP request came to the HTTPS port.
constexpr int kPlainHttp = EPROTONOSUPPORT;

/// A TLS step as recv/send report: > 0 bytes, 0 the peer closed, -1 with errno EAGAIN (wait
/// for the socket: c.want says which way when it is not the caller's), kPlainHttp, or EPROTO.
ssize_t tls_result(GateConn& c, const TlsStep& t, short other) {
    c.want = 0;
    switch (t.what) {
        case TlsIo::done:
            return static_cast<ssize_t>(t.n);
        case TlsIo::want_read:
        case TlsIo::want_write:
            if ((t.what == TlsIo::want_read) == (other == POLLIN)) c.want = other;
            errno = EAGAIN;
            return -1;
        case TlsIo::closed:
            return 0;
        case TlsIo::plain_http:
            errno = kPlainHttp;
            return -1;
        case TlsIo::failed:
            break;
    }
    errno = EPROTO;
    return -1;
}

/// recv(2) on the connection, through its TLS session when it has one (the handshake runs
/// inside the first reads).
ssize_t conn_recv(GateConn& c, char* buf, std::size_t n) {
    if (!c.tls) return ::recv(c.fd, buf, n, MSG_DONTWAIT);
    return tls_result(c, tls_read(c.tls, buf, n), POLLOUT);
}

/// send(2) on the connection (never blocks, no SIGPIPE for plain HTTP; OpenSSL writes with
/// write(2): the agent ignores SIGPIPE).
ssize_t conn_send(GateConn& c, const char* buf, std::size_t n) {
    if (!c.tls) return ::send(c.fd, buf, n, MSG_DONTWAIT | MSG_NOSIGNAL);
    return tls_result(c, tls_write(c.tls, buf, n), POLLIN);
}

/// A short answer sent once, without waiting (a refusal, a /healthz on a refused connection):
/// in clear, through an established TLS session, or not at all during a TLS handshake (the
/// client would read it as a broken handshake). The TLS session is then closed.
void send_once(GateConn& c, const std::string& text) {
    if (!c.tls || tls_established(c.tls)) conn_send(c, text.data(), text.size());
    if (c.tls) tls_close(c.tls);
    c.tls = nullptr;
    c.want = 0;
}

}  // namespace

GateConn::~GateConn() {
    tls_free(tls);
}

std::string peer_text(const sockaddr_storage& ss, int& port) {
    char buf[INET6_ADDRSTRLEN] = "";
    if (ss.ss_family == AF_INET) {
        const auto& a = reinterpret_cast<const sockaddr_in&>(ss);
        inet_ntop(AF_INET, &a.sin_addr, buf, sizeof buf);
        port = ntohs(a.sin_port);
    } else if (ss.ss_family == AF_INET6) {
        const auto& a = reinterpret_cast<const sockaddr_in6&>(ss);
        port = ntohs(a.sin6_port);
        if (IN6_IS_ADDR_V4MAPPED(&a.sin6_addr))  // one client, one key, whatever the listener
            inet_ntop(AF_INET, &a.sin6_addr.s6_addr[12], buf, sizeof buf);
        else
            inet_ntop(AF_INET6, &a.sin6_addr, buf, sizeof buf);
    }
    return buf;
}

const char* refusal_reason(GateRefusal r) {
    switch (r) {
        case GateRefusal::per_address_cap:
            return "per_address_cap";
        case GateRefusal::total_cap:
            return "total_cap";
        case GateRefusal::request_timeout:
            return "request_timeout";
        case GateRefusal::too_large:
            return "too_large";
        case GateRefusal::chunked_body:
            return "chunked_body";
        case GateRefusal::bad_request:
            return "bad_request";
        case GateRefusal::write_timeout:
            return "write_timeout";
        case GateRefusal::write_backlog:
            return "write_backlog";
        case GateRefusal::tls_handshake:
            return "tls_handshake";
    }
    return "unknown";
}

std::map<std::string, std::uint64_t> GateCounters::snapshot() const {
    std::map<std::string, std::uint64_t> out;
    for (unsigned i = 0; i < kGateRefusals; ++i)
        out[refusal_reason(static_cast<GateRefusal>(i))] = refused[i].load();
    return out;
}

Framing frame_request(std::string_view buf, std::size_t max_head_bytes,
                      std::size_t max_body_bytes) {
    const std::size_t end = buf.find("\r\n\r\n");
    const std::string too_big_head =
        "request head larger than " + std::to_string(max_head_bytes) + " bytes";
    if (end == std::string_view::npos)
        return buf.size() > max_head_bytes ? refused(400, GateRefusal::too_large, too_big_head)
                                           : Framing{};
    const std::size_t head = end + 4;
    if (head > max_head_bytes) return refused(400, GateRefusal::too_large, too_big_head);
    std::optional<std::uint64_t> length;
    std::size_t pos = buf.find("\r\n") + 2;  // the first header line
    while (pos < end) {
        const std::size_t eol = buf.find("\r\n", pos);
        const std::string_view line = buf.substr(pos, eol - pos);
        pos = eol + 2;
        const std::size_t colon = line.find(':');
        if (colon == std::string_view::npos) continue;
        const std::string_view name = line.substr(0, colon);
        const std::string_view value = trim_ows(line.substr(colon + 1));
        if (iequals(name, "transfer-encoding"))
            return refused(411, GateRefusal::chunked_body,
                           "request bodies need Content-Length (Transfer-Encoding refused)");
        if (!iequals(name, "content-length")) continue;
        const bool digits =
            !value.empty() && value.size() <= 18 &&
            std::all_of(value.begin(), value.end(), [](char ch) { return ch >= '0' && ch <= '9'; });
        const std::uint64_t v = digits ? std::stoull(std::string(value)) : 0;
        if (!digits || (length && *length != v))
            return refused(400, GateRefusal::bad_request,
                           "Content-Length is not one decimal number");
        length = v;
    }
    if (length && *length > max_body_bytes)
        return refused(413, GateRefusal::too_large,
                       "request body larger than http.max_request_bytes (" +
                           std::to_string(max_body_bytes) + " bytes)");
    const std::size_t total = head + static_cast<std::size_t>(length.value_or(0));
    if (buf.size() < total) return Framing{};
    return Framing{Framing::complete, total, 0, GateRefusal::bad_request, {}};
}

/// A connection the gate thread holds: reading a request, idle between keep-alive requests,
/// complete and waiting for room in the handler queue, writing an answer to a slow reader,
/// probing (refused for the total cap: a quick request is still answered, else 503), or
/// refused and draining before close.
struct HttpGate::Slot {
    enum State { reading, idle, ready, writing, probing, closing } state = reading;
    std::unique_ptr<GateConn> c;
    double deadline = 0;
    bool admitted = true;     ///< counted in open_ / per_address_ (refused at accept: not)
    std::size_t counted = 0;  ///< bytes of `out` counted in pending_bytes_
};

HttpGate::HttpGate(GateLimits limits, GateCounters& counters, Handler handler, Inline quick,
                   std::shared_ptr<const TlsContext> tls)
    : lim_(limits),
      counters_(counters),
      handler_(std::move(handler)),
      inline_(std::move(quick)),
      tls_(std::move(tls)) {}

HttpGate::~HttpGate() {
    stop();
}

Status HttpGate::start(const std::string& host, std::uint16_t port) {
    const auto fail = [&](const char* why) -> Status {
        if (listen_fd_ >= 0) ::close(listen_fd_);
        listen_fd_ = -1;
        return Error{"bind", host + ":" + std::to_string(port), errno, why};
    };
    addrinfo hints{};
    hints.ai_family = AF_UNSPEC;
    hints.ai_socktype = SOCK_STREAM;
    hints.ai_flags = AI_NUMERICHOST | AI_NUMERICSERV | AI_PASSIVE;
    addrinfo* ai = nullptr;
    if (::getaddrinfo(host.c_str(), std::to_string(port).c_str(), &hints, &ai) != 0 || !ai)
        return fail("not an IP address");
    listen_fd_ = ::socket(ai->ai_family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
    // SO_REUSEADDR only (no SO_REUSEPORT: a second agent must not bind the same port).
    int yes = 1;
    const bool bound = listen_fd_ >= 0 &&
                       ::setsockopt(listen_fd_, SOL_SOCKET, SO_REUSEADDR, &yes, sizeof yes) == 0 &&
                       ::bind(listen_fd_, ai->ai_addr, ai->ai_addrlen) == 0 &&
                       ::listen(listen_fd_, SOMAXCONN) == 0;
    ::freeaddrinfo(ai);
    if (!bound) return fail("cannot listen there (port in use, or not an address of this host)");
    sockaddr_storage ss{};
    socklen_t len = sizeof ss;
    ::getsockname(listen_fd_, reinterpret_cast<sockaddr*>(&ss), &len);
    peer_text(ss, port_);
    wake_fd_ = ::eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
    if (wake_fd_ < 0) return fail("eventfd");
    stop_ = false;
    gate_ = std::thread([this] { gate_loop(); });
    for (unsigned i = 0; i < lim_.threads; ++i) workers_.emplace_back([this] { work(); });
    return ok_status();
}

void HttpGate::stop() {
    if (listen_fd_ < 0) return;
    {
        std::lock_guard<std::mutex> l(m_);
        stop_ = true;
    }
    wake();
    ready_cv_.notify_all();
    if (gate_.joinable()) gate_.join();
    for (auto& t : workers_) t.join();
    workers_.clear();
    for (auto& s : slots_) {
        if (s.admitted)
            release(*s.c);
        else
            ::close(s.c->fd);
    }
    slots_.clear();
    lingering_ = 0;
    for (auto* q : {&ready_, &back_}) {
        for (auto& c : *q) release(*c);
        q->clear();
    }
    in_work_.clear();
    pending_bytes_ = 0;
    ::close(listen_fd_);
    ::close(wake_fd_);
    listen_fd_ = wake_fd_ = -1;
    port_ = 0;
}

void HttpGate::wake() {
    const std::uint64_t one = 1;
    [[maybe_unused]] auto n = ::write(wake_fd_, &one, sizeof one);
}

void HttpGate::release(GateConn& c) {
    tls_close(c.tls);  // close_notify when the handshake was done
    c.tls = nullptr;
    ::close(c.fd);
    forget(c);
}

void HttpGate::forget(const GateConn& c) {
    std::lock_guard<std::mutex> l(m_);
    if (auto it = per_address_.find(c.peer_ip); it != per_address_.end() && --it->second == 0)
        per_address_.erase(it);
    --open_;
}

void HttpGate::note_refusal(GateRefusal why, const std::string& peer, int status,
                            const std::string& error, double now) {
    counters_.add(why);
    // The metric has no address (unbounded labels); the log names one, at most once a minute
    // per reason so a flood does not flood the journal.
    const unsigned r = static_cast<unsigned>(why);
    ++unlogged_[r];
    if (now >= next_log_s_[r]) {
        log_event("warning", "http_connections_refused",
                  {{"reason", refusal_reason(why)},
                   {"peer", peer},
                   {"status", status},
                   {"error", error},
                   {"count", unlogged_[r]}});
        unlogged_[r] = 0;
        next_log_s_[r] = now + kLogEveryS;
    }
}

void HttpGate::refuse(Slot& s, int status, GateRefusal why, const std::string& error, double now) {
    note_refusal(why, s.c->peer_ip, status, error, now);
    send_once(*s.c, refusal_text(status, error));
    ::shutdown(s.c->fd, SHUT_WR);
    drain(s.c->fd);
    if (s.admitted) forget(*s.c);  // it drains, but no longer holds its client's slot
    s.admitted = false;
    if (lingering_ >= kMaxLingering) {  // no room to linger: close now
        ::close(s.c->fd);
        s.c.reset();
        return;
    }
    ++lingering_;
    s.state = Slot::closing;
    s.deadline = now + kLingerS;
}

void HttpGate::accept_ready(double now) {
    for (int i = 0; i < 64; ++i) {  // then serve the others before accepting more
        sockaddr_storage ss{};
        socklen_t len = sizeof ss;
        const int fd = ::accept4(listen_fd_, reinterpret_cast<sockaddr*>(&ss), &len,
                                 SOCK_NONBLOCK | SOCK_CLOEXEC);
        if (fd < 0) {  // EAGAIN; out of descriptors: the kernel backlog holds them meanwhile
            if (errno == EMFILE || errno == ENFILE)
                std::this_thread::sleep_for(std::chrono::milliseconds(10));
            return;
        }
        auto c = std::make_unique<GateConn>();
        c->fd = fd;
        c->peer_ip = peer_text(ss, c->peer_port);
        // HTTPS: every connection has its session, also one refused below (it is then closed
        // without an answer: plain text would read as a broken handshake).
        if (tls_ && !(c->tls = tls_session(*tls_, fd))) {
            ::close(fd);
            continue;
        }
        // TLS writes an answer as several records (several sends): without TCP_NODELAY the last
        // one waits for the client's delayed ACK (40 ms a request, measured).
        if (tls_) ::setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &kOne, sizeof kOne);
        Slot s{Slot::reading, std::move(c), now + lim_.request_timeout_s, false};
        std::optional<GateRefusal> why;
        {
            std::lock_guard<std::mutex> l(m_);
            unsigned& from = per_address_[s.c->peer_ip];
            if (open_ >= lim_.max_connections)
                why = GateRefusal::total_cap;
            else if (from >= lim_.max_per_address)
                why = GateRefusal::per_address_cap;
            if (why) {
                if (from == 0) per_address_.erase(s.c->peer_ip);
            } else {
                ++from;
                ++open_;
                s.admitted = true;
            }
        }
        if (why == GateRefusal::total_cap && inline_ && lingering_ < kMaxLingering) {
            // The fleet of slow clients fills the cap from many addresses: a liveness probe
            // arriving now still gets its answer (within kLingerS), anything else a 503.
            ++lingering_;
            s.state = Slot::probing;
            s.deadline = now + kLingerS;
        } else if (why == GateRefusal::total_cap) {
            refuse(s, 503, *why, total_cap_text(), now);
        } else if (why) {
            refuse(s, 503, *why,
                   "more than " + std::to_string(lim_.max_per_address) + " connections from " +
                       s.c->peer_ip + " (http.max_connections_per_address)",
                   now);
        }
        if (s.c) slots_.push_back(std::move(s));
    }
}

std::string HttpGate::total_cap_text() const {
    return "more than " + std::to_string(lim_.max_connections) +
           " connections open (http.max_connections)";
}

void HttpGate::read_slot(Slot& s, double now) {
    GateConn& c = *s.c;
    if (s.state == Slot::closing) {
        char sink[4096];
        ssize_t n;
        while ((n = ::recv(c.fd, sink, sizeof sink, MSG_DONTWAIT)) > 0) {
        }
        if (n == 0 || (errno != EAGAIN && errno != EINTR)) {
            ::close(c.fd);
            --lingering_;
            s.c.reset();
        }
        return;
    }
    // Read no more than the largest request allowed (plus one byte, to see it is too large):
    // pipelined requests beyond that wait in the client's socket, unread.
    const std::size_t cap = c.in_off + lim_.max_head_bytes + lim_.max_body_bytes + 1;
    for (;;) {
        if (c.in.size() >= cap) break;
        const std::size_t old = c.in.size();
        c.in.resize(std::min(cap, old + 16384));
        const ssize_t n = conn_recv(c, c.in.data() + old, c.in.size() - old);
        c.in.resize(old + static_cast<std::size_t>(std::max<ssize_t>(n, 0)));
        if (n > 0) continue;
        if (n < 0 && (errno == EAGAIN || errno == EINTR)) break;
        if (n < 0 && c.tls && !tls_established(c.tls)) {  // the TLS handshake failed
            if (s.state == Slot::probing) --lingering_;   // refuse() lingers it again
            if (errno == kPlainHttp) {  // answered in clear, which that client reads
                tls_free(c.tls);
                c.tls = nullptr;
                return refuse(s, 400, GateRefusal::tls_handshake,
                              "this endpoint speaks HTTPS (http.tls_cert_file is set): use "
                              "https:// (Prometheus: scheme: https)",
                              now);
            }
            note_refusal(GateRefusal::tls_handshake, c.peer_ip, 0,
                         "TLS handshake failed (not TLS 1.2 or 1.3, or no common cipher)", now);
            if (s.admitted)
                release(c);
            else
                ::close(c.fd);
            s.c.reset();
            return;
        }
        if (s.state == Slot::probing) {
            ::close(c.fd);
            --lingering_;
        } else {
            release(c);  // the client closed, or the connection failed
        }
        s.c.reset();
        return;
    }
    examine(s, now);
}

void HttpGate::probe_examine(Slot& s, double now) {
    GateConn& c = *s.c;
    const Framing f = frame_request(c.in, lim_.max_head_bytes, lim_.max_body_bytes);
    if (f.kind == Framing::incomplete) return;
    --lingering_;  // refuse() or the answer below lingers it again
    std::string out;
    bool keep = false;
    if (f.kind == Framing::complete &&
        inline_(std::string_view(c.in).substr(0, f.bytes), out, keep)) {
        send_once(c, out);
        ::shutdown(c.fd, SHUT_WR);
        ++lingering_;
        s.state = Slot::closing;
        s.deadline = now + kLingerS;
        return;
    }
    refuse(s, 503, GateRefusal::total_cap, total_cap_text(), now);
}

void HttpGate::examine(Slot& s, double now) {
    GateConn& c = *s.c;
    if (s.state == Slot::probing) return probe_examine(s, now);
    if (c.in.size() == c.in_off || s.state == Slot::writing || s.state == Slot::ready) return;
    if (s.state == Slot::idle) {  // the next request's first byte: its deadline starts
        s.state = Slot::reading;
        s.deadline = now + lim_.request_timeout_s;
    }
    const Framing f = frame_request(std::string_view(c.in).substr(c.in_off), lim_.max_head_bytes,
                                    lim_.max_body_bytes);
    if (f.kind == Framing::refuse) return refuse(s, f.status, f.reason, f.error, now);
    if (f.kind != Framing::complete) return;
    c.request_end = c.in_off + f.bytes;
    s.state = Slot::ready;
    if (inline_) answer_inline(s, now);
}

bool HttpGate::answer_inline(Slot& s, double now) {
    GateConn& c = *s.c;
    std::string out;
    bool keep = true;
    if (!inline_(std::string_view(c.in).substr(c.in_off, c.request_end - c.in_off), out, keep))
        return false;
    c.in.erase(0, c.request_end);
    c.in_off = c.request_end = 0;
    ++c.served;
    c.out = std::move(out);
    c.out_off = 0;
    c.close_after = !keep || c.served >= lim_.keep_alive_max;
    s.state = Slot::writing;
    s.deadline = now + lim_.write_timeout_s;
    write_slot(s, now);
    return true;
}

void HttpGate::write_slot(Slot& s, double now) {
    GateConn& c = *s.c;
    while (c.out_off < c.out.size()) {
        const ssize_t n = conn_send(c, c.out.data() + c.out_off, c.out.size() - c.out_off);
        if (n > 0) {
            c.out_off += static_cast<std::size_t>(n);
            continue;
        }
        if (n < 0 && (errno == EAGAIN || errno == EINTR)) return;  // POLLOUT brings us back
        uncount(s);
        release(c);
        s.c.reset();
        return;
    }
    written(s, now);
}

void HttpGate::uncount(Slot& s) {
    if (s.counted == 0) return;
    std::lock_guard<std::mutex> l(m_);
    pending_bytes_ -= s.counted;
    s.counted = 0;
}

void HttpGate::written(Slot& s, double now) {
    GateConn& c = *s.c;
    uncount(s);
    c.out.clear();
    c.out_off = 0;
    if (c.close_after) {
        release(c);
        s.c.reset();
        return;
    }
    s.state = Slot::idle;
    s.deadline = now + lim_.idle_timeout_s;
    if (c.in.size() > c.in_off) again_ = true;  // a pipelined request is already here
}

void HttpGate::dispatch() {
    std::lock_guard<std::mutex> l(m_);
    const unsigned per_address = std::max(1u, lim_.max_in_work_per_address);
    for (auto& s : slots_) {
        if (!s.c || s.state != Slot::ready) continue;
        if (ready_.size() >= lim_.max_queued) break;
        unsigned& busy = in_work_[s.c->peer_ip];
        if (busy >= per_address) continue;  // that address waits; others go first
        ++busy;
        ready_.push_back(std::move(s.c));
        ready_cv_.notify_one();
    }
    for (auto it = in_work_.begin(); it != in_work_.end();)
        it = it->second == 0 ? in_work_.erase(it) : std::next(it);
}

bool HttpGate::take_back(double now) {
    std::lock_guard<std::mutex> l(m_);
    if (stop_) return false;
    for (auto& c : back_) {
        const std::size_t left = c->out.size() - c->out_off;
        Slot s{left ? Slot::writing : Slot::idle, std::move(c),
               now + (left ? lim_.write_timeout_s : lim_.idle_timeout_s), true, left};
        slots_.push_back(std::move(s));
    }
    back_.clear();
    return true;
}

void HttpGate::expire(Slot& s, double now) {
    if (s.state == Slot::reading) {
        refuse(s, 408, GateRefusal::request_timeout,
               "request not complete within http.request_timeout_s (" +
                   seconds_text(lim_.request_timeout_s) + " s)",
               now);
    } else if (s.state == Slot::writing) {  // the client does not read its answer
        note_refusal(GateRefusal::write_timeout, s.c->peer_ip, 0,
                     "answer not taken within http.write_timeout_s (" +
                         seconds_text(lim_.write_timeout_s) + " s)",
                     now);
        uncount(s);
        release(*s.c);
        s.c.reset();
    } else if (s.state == Slot::probing) {
        --lingering_;
        refuse(s, 503, GateRefusal::total_cap, total_cap_text(), now);
    } else if (s.state == Slot::idle) {  // keep-alive ended: not a refusal
        release(*s.c);
        s.c.reset();
    } else {  // closing: lingered long enough
        ::close(s.c->fd);
        --lingering_;
        s.c.reset();
    }
}

void HttpGate::gate_loop() {
    std::vector<pollfd> pfds;
    std::vector<char> pending;  ///< per slot: its TLS session holds unread bytes
    for (;;) {
        double now = monotonic_now_s();
        if (!take_back(now)) return;
        // Returned connections may hold a pipelined request already; complete ones are
        // answered here (quick ones) or go to the handler queue while it has room, the rest
        // wait here unread.
        again_ = false;
        for (auto& s : slots_)
            if (s.c && s.state == Slot::idle) examine(s, now);
        std::erase_if(slots_, [](const Slot& s) { return !s.c; });
        dispatch();
        std::erase_if(slots_, [](const Slot& s) { return !s.c; });

        double next = again_ ? now : now + 1.0;
        pfds.assign({{wake_fd_, POLLIN, 0}, {listen_fd_, POLLIN, 0}});
        pending.assign(slots_.size(), 0);
        for (std::size_t i = 0; i < slots_.size(); ++i) {
            const Slot& s = slots_[i];
            short ev = s.state == Slot::ready ? 0 : s.state == Slot::writing ? POLLOUT : POLLIN;
            if (ev && s.c->want) ev = s.c->want;  // a TLS step waits the other way
            pfds.push_back({s.c->fd, ev, 0});
            if (s.state != Slot::ready) next = std::min(next, s.deadline);
            // HTTPS: bytes the session read from the socket but has not handed out yet (a
            // pipelined request) are not seen by poll(): read them without waiting.
            if (s.c->tls && ev == POLLIN && s.state != Slot::closing && tls_pending(s.c->tls)) {
                pending[i] = 1;
                next = now;
            }
        }
        // A ready slot waits for room in the queue: a worker taking a request wakes us.
        const int timeout_ms = static_cast<int>(std::ceil(std::max(0.0, next - now) * 1000));
        if (::poll(pfds.data(), pfds.size(), timeout_ms) < 0 && errno != EINTR) return;
        now = monotonic_now_s();
        if (pfds[0].revents) {
            std::uint64_t v;
            [[maybe_unused]] auto n = ::read(wake_fd_, &v, sizeof v);
        }
        const std::size_t polled = slots_.size();  // accept_ready appends after these
        if (pfds[1].revents) accept_ready(now);
        for (std::size_t i = 0; i < polled; ++i) {
            Slot& s = slots_[i];
            if (pfds[i + 2].revents && s.state == Slot::ready) {  // failed while it waited
                release(*s.c);
                s.c.reset();
                continue;
            }
            if (pfds[i + 2].revents && s.state == Slot::writing)
                write_slot(s, now);
            else if (pfds[i + 2].revents || pending[i])
                read_slot(s, now);
            if (!s.c || s.state == Slot::ready || now < s.deadline) continue;
            expire(s, now);
        }
        std::erase_if(slots_, [](const Slot& s) { return !s.c; });
    }
}

void HttpGate::work() {
    for (;;) {
        std::unique_ptr<GateConn> c;
        {
            std::unique_lock<std::mutex> l(m_);
            ready_cv_.wait(l, [&] { return !ready_.empty() || stop_; });
            if (stop_) return;
            c = std::move(ready_.front());
            ready_.pop_front();
        }
        wake();  // room in the queue for a request waiting in the gate
        bool keep = false;
        c->out.clear();
        c->out_off = 0;
        try {
            keep = handler_(*c);
        } catch (...) {  // the handler answers its own errors; a throw only closes
        }
        c->in.erase(0, c->request_end);
        c->in_off = c->request_end = 0;
        ++c->served;
        c->close_after = !keep || c->served >= lim_.keep_alive_max;
        // What the socket takes now is sent now; the rest is the gate thread's to write.
        bool failed = false;
        while (c->out_off < c->out.size()) {
            const ssize_t n = conn_send(*c, c->out.data() + c->out_off, c->out.size() - c->out_off);
            if (n > 0) {
                c->out_off += static_cast<std::size_t>(n);
                continue;
            }
            failed = !(n < 0 && (errno == EAGAIN || errno == EINTR));
            break;
        }
        const std::size_t left = c->out.size() - c->out_off;
        std::unique_lock<std::mutex> l(m_);
        if (auto it = in_work_.find(c->peer_ip); it != in_work_.end() && it->second > 0)
            --it->second;
        bool backlog = false;
        if (!failed && left > 0 && pending_bytes_ + left > lim_.max_pending_bytes) {
            backlog = true;
            failed = true;
        }
        if (!failed && !stop_ && (left > 0 || !c->close_after)) {
            pending_bytes_ += left;
            back_.push_back(std::move(c));
            l.unlock();
            wake();
        } else {
            l.unlock();
            if (backlog) counters_.add(GateRefusal::write_backlog);
            release(*c);
            wake();  // an address under its in-work cap may have a request waiting
        }
    }
}

}  // namespace rh::agent
