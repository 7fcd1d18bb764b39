#include "agent/fabric/bounded_get.h"

#include <arpa/inet.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <openssl/err.h>
#include <openssl/ssl.h>
#include <openssl/x509v3.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <strings.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <chrono>
#include <cstring>
#include <memory>

namespace rh::fabric {

namespace {

using Clock = std::chrono::steady_clock;

constexpr std::size_t kReadChunk = 16 << 10;
constexpr std::size_t kMaxChunkLine = 1024;  ///< "1a2b;ext=..." of a chunked body
constexpr auto kStopCheck = std::chrono::milliseconds(100);

std::string lower(std::string s) {
    for (char& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    return s;
}

std::string trim(std::string_view s) {
    while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
    while (!s.empty() && (s.back() == ' ' || s.back() == '\t' || s.back() == '\r'))
        s.remove_suffix(1);
    return std::string(s);
}

std::string openssl_error() {
    const unsigned long e = ERR_get_error();
    if (e == 0) return "no OpenSSL error queued";
    char buf[256];
    ERR_error_string_n(e, buf, sizeof buf);
    ERR_clear_error();
    return buf;
}

/// OpenSSL writes with write(2), so a server that closes early raises SIGPIPE, which ends a
/// process that does not ignore it (the `fabric` command). Blocked in this thread while alive;
/// one raised meanwhile is taken away before the old mask comes back.
class NoSigpipe {
  public:
    NoSigpipe() {
        sigemptyset(&pipe_);
        sigaddset(&pipe_, SIGPIPE);
        sigset_t pending;
        sigpending(&pending);
        was_pending_ = sigismember(&pending, SIGPIPE) == 1;
        pthread_sigmask(SIG_BLOCK, &pipe_, &old_);
    }
    ~NoSigpipe() {
        sigset_t pending;
        sigpending(&pending);
        if (!was_pending_ && sigismember(&pending, SIGPIPE) == 1) {
            const timespec zero{0, 0};
            sigtimedwait(&pipe_, nullptr, &zero);
        }
        pthread_sigmask(SIG_SETMASK, &old_, nullptr);
    }
    NoSigpipe(const NoSigpipe&) = delete;
    NoSigpipe& operator=(const NoSigpipe&) = delete;

  private:
    sigset_t pipe_{}, old_{};
    bool was_pending_ = false;
};

/// The socket (and TLS session on it) of one request; everything closed on destruction.
struct Conn {
    int fd = -1;
    SSL_CTX* ctx = nullptr;
    SSL* ssl = nullptr;
    Conn() = default;
    Conn(const Conn&) = delete;
    Conn& operator=(const Conn&) = delete;
    ~Conn() {
        if (ssl) SSL_free(ssl);
        if (ctx) SSL_CTX_free(ctx);
        if (fd >= 0) ::close(fd);
    }
};

/// Reads and writes `conn` under one deadline and the stop flag; buffers what was read past the
/// last line or byte asked for (at most one read chunk beyond the longest line allowed).
class Io {
  public:
    Io(Conn& c, const GetLimits& lim, Clock::time_point deadline, const std::string& url)
        : c_(c), lim_(lim), deadline_(deadline), url_(url) {}

    /// Waits until the socket is ready for `events` (POLLIN/POLLOUT).
    Status wait(short events) {
        for (;;) {
            if (lim_.stop && lim_.stop->load()) return stopped();
            const auto now = Clock::now();
            if (now >= deadline_) return timed_out();
            const auto slice = std::min<Clock::duration>(deadline_ - now, kStopCheck);
            pollfd p{c_.fd, events, 0};
            const int ms =
                static_cast<int>(std::chrono::ceil<std::chrono::milliseconds>(slice).count());
            const int r = ::poll(&p, 1, ms);
            if (r > 0) return ok_status();
            if (r < 0 && errno != EINTR)
                return Error("query", url_, errno, "poll failed", kCauseUnreachable);
        }
    }

    Status write_all(std::string_view data) {
        while (!data.empty()) {
            ssize_t n = 0;
            if (c_.ssl) {
                const int r = SSL_write(c_.ssl, data.data(), static_cast<int>(data.size()));
                if (r <= 0) {
                    const int e = SSL_get_error(c_.ssl, r);
                    if (e == SSL_ERROR_WANT_READ || e == SSL_ERROR_WANT_WRITE) {
                        if (auto w = wait(e == SSL_ERROR_WANT_READ ? POLLIN : POLLOUT); !w)
                            return w;
                        continue;
                    }
                    return Error("query", url_, 0, "TLS write failed: " + openssl_error(),
                                 kCauseUnreachable);
                }
                n = r;
            } else {
                n = ::send(c_.fd, data.data(), data.size(), MSG_NOSIGNAL | MSG_DONTWAIT);
                if (n < 0) {
                    if (errno == EINTR) continue;
                    if (errno == EAGAIN || errno == EWOULDBLOCK) {
                        if (auto w = wait(POLLOUT); !w) return w;
                        continue;
                    }
                    return Error("query", url_, errno, "cannot send the request",
                                 kCauseUnreachable);
                }
            }
            data.remove_prefix(static_cast<std::size_t>(n));
        }
        return ok_status();
    }

    /// One line without its "\r\n"/"\n"; refused beyond `max_len` bytes (end included).
    Result<std::string> line(std::size_t max_len, const char* what) {
        std::size_t searched = 0;
        for (;;) {
            const auto nl = buf_.find('\n', pos_ + searched);
            if (nl != std::string::npos) {
                if (nl + 1 - pos_ > max_len) return too_long(max_len, what);
                std::string out = buf_.substr(pos_, nl - pos_);
                if (!out.empty() && out.back() == '\r') out.pop_back();
                pos_ = nl + 1;
                return out;
            }
            searched = buf_.size() - pos_;
            if (searched >= max_len) return too_long(max_len, what);
            auto n = fill();
            if (!n) return n.error();
            if (*n == 0)
                return Error("query", url_, 0,
                             std::string("the server closed the connection inside ") + what,
                             kCauseBadHttp);
        }
    }

    /// Up to `n` bytes appended to `out`; 0 at the end of the stream.
    Result<std::size_t> take(std::size_t n, std::string& out) {
        if (pos_ == buf_.size()) {
            auto got = fill();
            if (!got) return got.error();
            if (*got == 0) return std::size_t{0};
        }
        const std::size_t k = std::min(n, buf_.size() - pos_);
        out.append(buf_, pos_, k);
        pos_ += k;
        return k;
    }

    Error timed_out() const {
        return Error("query", url_, 0,
                     "no complete answer within " + seconds(lim_.deadline_s) + " s (" +
                         lim_.timeout_option +
                         " bounds connect, headers and body together): the server is too slow "
                         "or sends nothing",
                     kCauseTimeout);
    }
    Error stopped() const {
        return Error("query", url_, 0, "stopped before the answer was complete (shutting down)",
                     kCauseStopped);
    }

  private:
    static std::string seconds(double s) {
        char b[32];
        std::snprintf(b, sizeof b, "%g", s);
        return b;
    }

    Error too_long(std::size_t max_len, const char* what) const {
        return Error("query", url_, 0,
                     std::string(what) + " over " + std::to_string(max_len) +
                         " bytes: not an answer of Prometheus' API",
                     kCauseTooManyBytes);
    }

    /// Reads once (waiting as needed) into the buffer; 0 at the end of the stream.
    Result<std::size_t> fill() {
        if (pos_ > 0 && pos_ == buf_.size()) {
            buf_.clear();
            pos_ = 0;
        } else if (pos_ > kReadChunk) {
            buf_.erase(0, pos_);
            pos_ = 0;
        }
        const std::size_t old = buf_.size();
        buf_.resize(old + kReadChunk);
        for (;;) {
            if (lim_.stop && lim_.stop->load()) return shrink(old, stopped());
            if (Clock::now() >= deadline_) return shrink(old, timed_out());
            if (c_.ssl) {
                const int r = SSL_read(c_.ssl, buf_.data() + old, static_cast<int>(kReadChunk));
                if (r > 0) return shrink(old, static_cast<std::size_t>(r));
                const int e = SSL_get_error(c_.ssl, r);
                if (e == SSL_ERROR_WANT_READ || e == SSL_ERROR_WANT_WRITE) {
                    if (auto w = wait(e == SSL_ERROR_WANT_READ ? POLLIN : POLLOUT); !w)
                        return shrink(old, w.error());
                    continue;
                }
                if (e == SSL_ERROR_ZERO_RETURN) return shrink(old, std::size_t{0});
                if (e == SSL_ERROR_SYSCALL && ERR_peek_error() == 0)
                    return shrink(old, std::size_t{0});  // closed without close_notify
                return shrink(old, Error("query", url_, 0, "TLS read failed: " + openssl_error(),
                                         kCauseUnreachable));
            }
            const ssize_t r = ::recv(c_.fd, buf_.data() + old, kReadChunk, MSG_DONTWAIT);
            if (r >= 0) return shrink(old, static_cast<std::size_t>(r));
            if (errno == EINTR) continue;
            if (errno == EAGAIN || errno == EWOULDBLOCK) {
                if (auto w = wait(POLLIN); !w) return shrink(old, w.error());
                continue;
            }
            return shrink(old,
                          Error("query", url_, errno, "cannot read the answer", kCauseUnreachable));
        }
    }

    Result<std::size_t> shrink(std::size_t old, Result<std::size_t> r) {
        buf_.resize(old + (r ? *r : 0));
        return r;
    }

    Conn& c_;
    const GetLimits& lim_;
    Clock::time_point deadline_;
    const std::string& url_;
    std::string buf_;
    std::size_t pos_ = 0;
};

struct Authority {
    bool tls = false;
    std::string host;  ///< without brackets
    std::string port;
    std::string host_header;
};

Result<Authority> split(const std::string& shp, const std::string& url) {
    Authority a;
    std::string rest;
    if (shp.rfind("https://", 0) == 0) {
        a.tls = true;
        rest = shp.substr(8);
    } else if (shp.rfind("http://", 0) == 0) {
        rest = shp.substr(7);
    } else {
        return Error("connect", url, 0, "not an http:// or https:// URL", kCauseUnreachable);
    }
    a.host_header = rest;
    if (!rest.empty() && rest.front() == '[') {
        const auto close = rest.find(']');
        if (close == std::string::npos)
            return Error("connect", url, 0, "no ']' after an IPv6 address", kCauseUnreachable);
        a.host = rest.substr(1, close - 1);
        if (close + 1 < rest.size() && rest[close + 1] == ':') a.port = rest.substr(close + 2);
    } else {
        const auto colon = rest.rfind(':');
        a.host = rest.substr(0, colon);
        if (colon != std::string::npos) a.port = rest.substr(colon + 1);
    }
    if (a.port.empty()) a.port = a.tls ? "443" : "80";
    if (a.host.empty()) return Error("connect", url, 0, "no host name", kCauseUnreachable);
    return a;
}

/// Connects `c.fd` (non-blocking) to the first address of `a` that answers.
Status connect_tcp(Conn& c, Io& io, const Authority& a, const std::string& url) {
    addrinfo hints{};
    hints.ai_family = AF_UNSPEC;
    hints.ai_socktype = SOCK_STREAM;
    addrinfo* res = nullptr;
    // getaddrinfo cannot be bounded; a resolver's own timeouts (resolv.conf) apply.
    const int g = ::getaddrinfo(a.host.c_str(), a.port.c_str(), &hints, &res);
    if (g != 0)
        return Error("connect", url, 0, std::string("cannot resolve: ") + ::gai_strerror(g),
                     kCauseUnreachable);
    std::unique_ptr<addrinfo, decltype(&::freeaddrinfo)> guard(res, ::freeaddrinfo);
    std::string why = "no address";
    for (addrinfo* ai = res; ai; ai = ai->ai_next) {
        if (c.fd >= 0) ::close(c.fd);
        c.fd = ::socket(ai->ai_family, ai->ai_socktype | SOCK_NONBLOCK | SOCK_CLOEXEC,
                        ai->ai_protocol);
        if (c.fd < 0) {
            why = std::strerror(errno);
            continue;
        }
        if (::connect(c.fd, ai->ai_addr, ai->ai_addrlen) == 0) return ok_status();
        if (errno != EINPROGRESS) {
            why = std::strerror(errno);
            continue;
        }
        if (auto w = io.wait(POLLOUT); !w) {
            if (w.error().cause != std::string(kCauseTimeout)) return w;
            return Error("connect", url, 0, "no connection: " + w.error().detail, kCauseTimeout);
        }
        int err = 0;
        socklen_t len = sizeof err;
        ::getsockopt(c.fd, SOL_SOCKET, SO_ERROR, &err, &len);
        if (err == 0) return ok_status();
        why = std::strerror(err);
    }
    return Error("connect", url, 0, "no HTTP answer: cannot connect (" + why + ")",
                 kCauseUnreachable);
}

Status start_tls(Conn& c, Io& io, const Authority& a, const std::string& url) {
    const auto fail = [&](const std::string& what) {
        std::string d = "TLS with " + a.host + " failed: " + what;
        if (c.ssl && SSL_get_verify_result(c.ssl) != X509_V_OK)
            d += std::string(" (certificate: ") +
                 X509_verify_cert_error_string(SSL_get_verify_result(c.ssl)) + ")";
        return Error("connect", url, 0, d, kCauseUnreachable);
    };
    c.ctx = SSL_CTX_new(TLS_client_method());
    if (!c.ctx) return fail(openssl_error());
    SSL_CTX_set_min_proto_version(c.ctx, TLS1_2_VERSION);
    SSL_CTX_set_default_verify_paths(c.ctx);
    SSL_CTX_set_verify(c.ctx, SSL_VERIFY_PEER, nullptr);
    c.ssl = SSL_new(c.ctx);
    if (!c.ssl) return fail(openssl_error());
    SSL_set_fd(c.ssl, c.fd);
    in6_addr ip6{};
    in_addr ip4{};
    const bool literal = ::inet_pton(AF_INET6, a.host.c_str(), &ip6) == 1 ||
                         ::inet_pton(AF_INET, a.host.c_str(), &ip4) == 1;
    if (literal) {
        X509_VERIFY_PARAM_set1_ip_asc(SSL_get0_param(c.ssl), a.host.c_str());
    } else {
        SSL_set_tlsext_host_name(c.ssl, a.host.c_str());
        SSL_set1_host(c.ssl, a.host.c_str());
    }
    for (;;) {
        const int r = SSL_connect(c.ssl);
        if (r == 1) return ok_status();
        const int e = SSL_get_error(c.ssl, r);
        if (e == SSL_ERROR_WANT_READ || e == SSL_ERROR_WANT_WRITE) {
            if (auto w = io.wait(e == SSL_ERROR_WANT_READ ? POLLIN : POLLOUT); !w) return w;
            continue;
        }
        return fail(openssl_error());
    }
}

struct Head {
    int status = 0;
    bool chunked = false;
    bool has_length = false;
    std::size_t length = 0;
};

/// `e`, or when it is a line over what was left of the head's budget: the budget, whole.
Error over_budget(Error e, std::size_t budget) {
    if (e.cause == kCauseTooManyBytes)
        e.detail = "the status line and headers over " + std::to_string(budget) +
                   " bytes: not an answer of Prometheus' API";
    return e;
}

/// Status line and headers, `budget` bytes in total (1xx answers skipped, counted too).
Result<Head> read_head(Io& io, std::size_t budget, const std::string& url) {
    const auto bad = [&](const std::string& d) { return Error("query", url, 0, d, kCauseBadHttp); };
    std::size_t used = 0;
    for (;;) {
        Head h;
        auto status = io.line(budget - used, "the status line and headers");
        if (!status) return over_budget(status.error(), budget);
        used += status->size() + 2;
        const std::string& s = *status;
        if (s.size() < 12 || s.rfind("HTTP/1.", 0) != 0 || s[8] != ' ' ||
            !std::isdigit(static_cast<unsigned char>(s[9])) ||
            !std::isdigit(static_cast<unsigned char>(s[10])) ||
            !std::isdigit(static_cast<unsigned char>(s[11])))
            return bad("not an HTTP/1.x answer: " + s.substr(0, 64));
        h.status = std::stoi(s.substr(9, 3));
        if (h.status < 100 || h.status > 599)
            return bad("status code " + s.substr(9, 3) + " is not an HTTP status (100..599)");
        for (;;) {
            if (used >= budget)
                return Error("query", url, 0,
                             "the status line and headers over " + std::to_string(budget) +
                                 " bytes: not an answer of Prometheus' API",
                             kCauseTooManyBytes);
            auto l = io.line(budget - used, "the status line and headers");
            if (!l) return over_budget(l.error(), budget);
            used += l->size() + 2;
            if (l->empty()) break;
            const auto colon = l->find(':');
            if (colon == std::string::npos) return bad("a header without ':'");
            const std::string name = lower(trim(std::string_view(*l).substr(0, colon)));
            const std::string value = lower(trim(std::string_view(*l).substr(colon + 1)));
            if (name == "content-length") {
                if (value.empty() || value.size() > 18 ||
                    value.find_first_not_of("0123456789") != std::string::npos)
                    return bad("a bad Content-Length: " + value.substr(0, 32));
                h.has_length = true;
                h.length = std::stoull(value);
            } else if (name == "transfer-encoding") {
                if (value == "chunked")
                    h.chunked = true;
                else if (value != "identity")
                    return bad("Transfer-Encoding " + value.substr(0, 32) + " is not read");
            } else if (name == "content-encoding" && value != "identity" && !value.empty()) {
                return bad("Content-Encoding " + value.substr(0, 32) +
                           " although identity was asked for");
            }
        }
        if (h.status >= 200) return h;
    }
}

/// Status line, headers and body of the answer on `io` under `lim`; the status code.
Result<int> read_answer(Io& io, const GetLimits& lim, const std::string& url, std::string& body) {
    auto head = read_head(io, lim.max_header_bytes, url);
    if (!head) return head.error();
    const auto over = [&] {
        return Error("query", url, 0,
                     "the answer is over " + std::to_string(lim.max_body_bytes) + " bytes (" +
                         lim.max_body_option + ")",
                     kCauseTooManyBytes);
    };
    const auto cut = [&](const std::string& where) {
        return Error("query", url, 0, "the server closed the connection " + where, kCauseBadHttp);
    };
    if (head->chunked) {
        for (;;) {
            auto l = io.line(kMaxChunkLine, "a chunk size line");
            if (!l) return l.error();
            const std::string size_text = trim(std::string_view(*l).substr(0, l->find(';')));
            std::size_t size = 0;
            if (size_text.empty() || size_text.size() > 15 ||
                size_text.find_first_not_of("0123456789abcdefABCDEF") != std::string::npos)
                return Error("query", url, 0, "a bad chunk size: " + size_text.substr(0, 32),
                             kCauseBadHttp);
            size = std::stoull(size_text, nullptr, 16);
            if (size == 0) break;
            if (size > lim.max_body_bytes - body.size()) return over();
            for (std::size_t left = size; left > 0;) {
                auto n = io.take(left, body);
                if (!n) return n.error();
                if (*n == 0) return cut("inside a chunk");
                left -= *n;
            }
            auto end = io.line(2, "a chunk's end");
            if (!end) return end.error();
            if (!end->empty())
                return Error("query", url, 0, "a chunk does not end with CRLF", kCauseBadHttp);
        }
        // Trailers, bounded like headers; then done (the connection is closed, not reused).
        for (std::size_t used = 0;;) {
            auto l = io.line(lim.max_header_bytes - std::min(used, lim.max_header_bytes - 1),
                             "the trailers");
            if (!l) return l.error();
            used += l->size() + 2;
            if (l->empty()) break;
        }
    } else if (head->has_length) {
        if (head->length > lim.max_body_bytes) return over();
        while (body.size() < head->length) {
            auto n = io.take(head->length - body.size(), body);
            if (!n) return n.error();
            if (*n == 0)
                return cut("after " + std::to_string(body.size()) + " of " +
                           std::to_string(head->length) + " bytes");
        }
    } else {
        for (;;) {
            const std::size_t room = lim.max_body_bytes - body.size();
            auto n = io.take(room + 1, body);
            if (!n) return n.error();
            if (*n == 0) break;
            if (body.size() > lim.max_body_bytes) {
                body.clear();
                return over();
            }
        }
    }
    return head->status;
}

}  // namespace

std::string url_encode(std::string_view s) {
    static const char* hex = "0123456789ABCDEF";
    std::string out;
    for (const char ch : s) {
        const auto c = static_cast<unsigned char>(ch);
        if (std::isalnum(c) || c == '-' || c == '_' || c == '.' || c == '~') {
            out += ch;
        } else {
            out += '%';
            out += hex[c >> 4];
            out += hex[c & 15];
        }
    }
    return out;
}

std::string check_http_header(const HttpHeader& h) {
    static const std::string_view tchar = "!#$%&'*+-.^_`|~";
    if (h.name.empty() || h.name.size() > 256)
        return "expected a header name of 1 to 256 characters";
    for (const char ch : h.name)
        if (!std::isalnum(static_cast<unsigned char>(ch)) &&
            tchar.find(ch) == std::string_view::npos)
            return "header name '" + h.name +
                   "' holds a character a header name cannot have (letters, digits and "
                   "!#$%&'*+-.^_`|~ only)";
    std::string lower;
    for (const char ch : h.name)
        lower += static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
    for (const char* own : {"host", "accept", "accept-encoding", "user-agent", "connection",
                            "content-length", "transfer-encoding"})
        if (lower == own) return "header " + h.name + " is set by rocehealth itself";
    if (h.value.size() > kMaxHeaderValueBytes)
        return "the value of header " + h.name + " is over " +
               std::to_string(kMaxHeaderValueBytes) + " bytes";
    for (const char ch : h.value) {
        const auto c = static_cast<unsigned char>(ch);
        if ((c < 0x20 && c != '\t') || c == 0x7f)
            return "the value of header " + h.name +
                   " holds a control character (a line break would end the header)";
    }
    return "";
}

std::string check_http_header_at(const std::vector<HttpHeader>& headers, std::size_t i) {
    std::string why = check_http_header(headers[i]);
    for (std::size_t j = 0; j < i && why.empty(); ++j)
        if (strcasecmp(headers[j].name.c_str(), headers[i].name.c_str()) == 0)
            why = "header " + headers[i].name + " given twice";
    return why;
}

Result<HttpHeader> parse_http_header(std::string_view text) {
    // The error names what the user gave, but not all of a 100 KB value (a new user's find).
    constexpr std::size_t kShown = 80;
    const std::string subject = text.size() <= kShown
                                    ? std::string(text)
                                    : std::string(text.substr(0, kShown)) + "... (" +
                                          std::to_string(text.size()) + " bytes)";
    const std::size_t colon = text.find(':');
    if (colon == std::string_view::npos)
        return Error("parse", subject, 0, "expected NAME: VALUE, e.g. 'X-Scope-OrgID: tenant1'");
    std::string_view value = text.substr(colon + 1);
    while (!value.empty() && (value.front() == ' ' || value.front() == '\t'))
        value.remove_prefix(1);
    while (!value.empty() && (value.back() == ' ' || value.back() == '\t')) value.remove_suffix(1);
    HttpHeader h{std::string(text.substr(0, colon)), std::string(value)};
    if (const std::string why = check_http_header(h); !why.empty())
        return Error("parse", subject, 0, why);
    return h;
}

Result<int> bounded_get(const std::string& scheme_host_port, const std::string& target,
                        const std::vector<HttpHeader>& headers, const GetLimits& lim,
                        const std::string& url, std::string& body) {
    body.clear();
    const auto deadline =
        Clock::now() + std::chrono::duration_cast<Clock::duration>(
                           std::chrono::duration<double>(std::max(lim.deadline_s, 0.001)));
    auto a = split(scheme_host_port, url);
    if (!a) return a.error();
    const NoSigpipe no_sigpipe;
    Conn c;
    Io io(c, lim, deadline, url);
    if (auto s = connect_tcp(c, io, *a, url); !s) return s.error();
    const int one = 1;
    ::setsockopt(c.fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
    if (a->tls)
        if (auto s = start_tls(c, io, *a, url); !s) return s.error();
    std::string req = "GET " + target + " HTTP/1.1\r\nHost: " + a->host_header +
                      "\r\nAccept: application/json\r\nAccept-Encoding: identity\r\n"
                      "User-Agent: rocehealth\r\nConnection: close\r\n";
    for (const HttpHeader& h : headers) {
        // Checked where they were read (option, config); again here, as nothing else stands
        // between a value and the request line.
        if (const std::string why = check_http_header(h); !why.empty())
            return Error("query", url, 0, why, kCauseBadHttp);
        req += h.name + ": " + h.value + "\r\n";
    }
    req += "\r\n";
    if (auto s = io.write_all(req); !s) return s.error();
    return read_answer(io, lim, url, body);
}

Result<int> read_http_answer(int fd, const GetLimits& lim, const std::string& url,
                             std::string& body) {
    body.clear();
    const auto deadline =
        Clock::now() + std::chrono::duration_cast<Clock::duration>(
                           std::chrono::duration<double>(std::max(lim.deadline_s, 0.001)));
    Conn c;
    c.fd = fd;
    Io io(c, lim, deadline, url);
    return read_answer(io, lim, url, body);
}

}  // namespace rh::fabric
