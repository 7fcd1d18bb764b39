#include "probes/wire/tcp.h"

#include <arpa/inet.h>
#include <fcntl.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <cerrno>
#include <cstring>
#include <memory>
#include <optional>
#include <vector>

namespace rh::tcp {

namespace {

int remaining_ms(Deadline d) {
    const auto left =
        std::chrono::duration_cast<std::chrono::milliseconds>(d - Clock::now()).count();
    return left <= 0 ? 0 : static_cast<int>(std::min<long long>(left, 1'000'000));
}

/// Polls for `events`; ETIMEDOUT error when the deadline passes.
Status wait_for(int fd, short events, Deadline d, const char* op, const std::string& subject) {
    for (;;) {
        pollfd p{fd, events, 0};
        const int rc = ::poll(&p, 1, remaining_ms(d));
        if (rc > 0) return ok_status();
        if (rc == 0) return Error{op, subject, ETIMEDOUT, "no progress before the deadline"};
        if (errno != EINTR) return errno_error(op, subject);
    }
}

/// "HOST:PORT" / "[v6]:PORT" of an IP socket address; an IPv4-mapped IPv6 address as plain IPv4
/// when `unmap` (no scope id: inet_ntop leaves it out).
std::optional<std::string> text_of(const sockaddr_storage& ss, bool unmap) {
    char host[INET6_ADDRSTRLEN] = "?";
    if (ss.ss_family == AF_INET) {
        const auto* a = reinterpret_cast<const sockaddr_in*>(&ss);
        ::inet_ntop(AF_INET, &a->sin_addr, host, sizeof host);
        return std::string(host) + ":" + std::to_string(ntohs(a->sin_port));
    }
    if (ss.ss_family != AF_INET6) return std::nullopt;
    const auto* a = reinterpret_cast<const sockaddr_in6*>(&ss);
    const unsigned port = ntohs(a->sin6_port);
    if (unmap && IN6_IS_ADDR_V4MAPPED(&a->sin6_addr)) {
        ::inet_ntop(AF_INET, &a->sin6_addr.s6_addr[12], host, sizeof host);
        return std::string(host) + ":" + std::to_string(port);
    }
    ::inet_ntop(AF_INET6, &a->sin6_addr, host, sizeof host);
    return std::string("[") + host + "]:" + std::to_string(port);
}

std::string peer_of(int fd) {
    sockaddr_storage ss{};
    socklen_t len = sizeof ss;
    if (::getpeername(fd, reinterpret_cast<sockaddr*>(&ss), &len) != 0) return "peer ?";
    const auto t = text_of(ss, false);
    return t ? "peer " + *t : "peer ?";
}

std::string peer_of(const Socket& s) {
    return s.peer().empty() ? peer_of(s.fd()) : s.peer();
}

struct AddrInfoDeleter {
    void operator()(addrinfo* a) const { ::freeaddrinfo(a); }
};

}  // namespace

Socket& Socket::operator=(Socket&& o) noexcept {
    if (this != &o) {
        if (fd_ >= 0) ::close(fd_);
        fd_ = o.fd_;
        peer_ = std::move(o.peer_);
        auth_ = std::move(o.auth_);
        max_frame_ = o.max_frame_;
        o.fd_ = -1;
    }
    return *this;
}

Socket::~Socket() {
    if (fd_ >= 0) ::close(fd_);
}

std::string HostPort::str() const {
    const bool v6 = host.find(':') != std::string::npos;
    return (v6 ? "[" + host + "]" : host) + ":" + std::to_string(port);
}

Result<HostPort> parse_host_port(const std::string& s, std::uint16_t default_port) {
    HostPort hp{{}, default_port};
    std::string port_text;
    if (!s.empty() && s.front() == '[') {
        const auto close = s.find(']');
        if (close == std::string::npos) return Error{"parse", "peer '" + s + "'", 0, "missing ']'"};
        hp.host = s.substr(1, close - 1);
        if (close + 1 < s.size()) {
            if (s[close + 1] != ':') return Error{"parse", "peer '" + s + "'", 0, "junk after ']'"};
            port_text = s.substr(close + 2);
        }
    } else if (std::count(s.begin(), s.end(), ':') == 1) {
        hp.host = s.substr(0, s.find(':'));
        port_text = s.substr(s.find(':') + 1);
    } else {
        hp.host = s;  // bare host or bare IPv6 address
    }
    if (hp.host.empty()) return Error{"parse", "peer '" + s + "'", 0, "empty host"};
    if (!port_text.empty() || (s.size() && s.back() == ':')) {
        char* end = nullptr;
        errno = 0;
        const unsigned long p = std::strtoul(port_text.c_str(), &end, 10);
        if (port_text.empty() || *end != '\0' || errno != 0 || p == 0 || p > 65535)
            return Error{"parse", "peer '" + s + "'", 0, "bad port '" + port_text + "'"};
        hp.port = static_cast<std::uint16_t>(p);
    }
    return hp;
}

namespace {

Result<std::string> address_of(const Socket& s, bool local) {
    sockaddr_storage ss{};
    socklen_t len = sizeof ss;
    const int rc = local ? ::getsockname(s.fd(), reinterpret_cast<sockaddr*>(&ss), &len)
                         : ::getpeername(s.fd(), reinterpret_cast<sockaddr*>(&ss), &len);
    const char* what = local ? "local address" : "peer address";
    if (rc != 0) return errno_error("address", peer_of(s), what);
    auto t = text_of(ss, true);
    if (!t) return Error{"address", peer_of(s), 0, std::string(what) + ": not an IP socket"};
    return *t;
}

}  // namespace

Result<std::string> peer_address(const Socket& s) {
    return address_of(s, false);
}

Result<std::string> local_address(const Socket& s) {
    return address_of(s, true);
}

Result<std::string> canonical_address(const std::string& text) {
    const auto bad = [&text](const std::string& why) {
        return Error{"parse", "address '" + text.substr(0, 64) + "'", 0, why};
    };
    if (text.size() > 64) return bad("longer than 64 characters");
    // Only "IP:PORT" and "[IPv6]:PORT": a bare IPv6 address has no port to bind.
    if (text.empty() || (text.front() != '[' && std::count(text.begin(), text.end(), ':') != 1))
        return bad("expected IP:PORT or [IPv6]:PORT");
    auto hp = parse_host_port(text, 0);
    if (!hp) return bad(hp.error().detail);
    if (hp->port == 0) return bad("no port");
    sockaddr_storage ss{};
    const bool v6 = text.front() == '[';
    void* where = v6 ? static_cast<void*>(&reinterpret_cast<sockaddr_in6*>(&ss)->sin6_addr)
                     : static_cast<void*>(&reinterpret_cast<sockaddr_in*>(&ss)->sin_addr);
    if (::inet_pton(v6 ? AF_INET6 : AF_INET, hp->host.c_str(), where) != 1)
        return bad("not a literal IP address");
    if (v6) {
        reinterpret_cast<sockaddr_in6*>(&ss)->sin6_family = AF_INET6;
        reinterpret_cast<sockaddr_in6*>(&ss)->sin6_port = htons(hp->port);
    } else {
        reinterpret_cast<sockaddr_in*>(&ss)->sin_family = AF_INET;
        reinterpret_cast<sockaddr_in*>(&ss)->sin_port = htons(hp->port);
    }
    return *text_of(ss, true);
}

Result<Socket> connect(const HostPort& peer, Deadline deadline) {
    const std::string subject = "responder at " + peer.str();
    addrinfo hints{};
    hints.ai_family = AF_UNSPEC;
    hints.ai_socktype = SOCK_STREAM;
    addrinfo* raw = nullptr;
    const std::string port = std::to_string(peer.port);
    if (const int rc = ::getaddrinfo(peer.host.c_str(), port.c_str(), &hints, &raw); rc != 0)
        return Error{"cannot reach", subject, 0, std::string("resolve: ") + ::gai_strerror(rc)};
    std::unique_ptr<addrinfo, AddrInfoDeleter> list(raw);
    Error last{"cannot reach", subject, 0, "no address"};
    for (addrinfo* a = list.get(); a; a = a->ai_next) {
        Socket s(
            ::socket(a->ai_family, a->ai_socktype | SOCK_NONBLOCK | SOCK_CLOEXEC, a->ai_protocol));
        if (!s.valid()) {
            last = errno_error("cannot reach", subject, "socket");
            continue;
        }
        if (::connect(s.fd(), a->ai_addr, a->ai_addrlen) != 0 && errno != EINPROGRESS) {
            last = errno_error("cannot reach", subject);
            continue;
        }
        if (auto w = wait_for(s.fd(), POLLOUT, deadline, "cannot reach", subject); !w) {
            last = w.error();
            last.detail = "connect timed out";
            continue;
        }
        int err = 0;
        socklen_t len = sizeof err;
        ::getsockopt(s.fd(), SOL_SOCKET, SO_ERROR, &err, &len);
        if (err != 0) {
            last = Error{"cannot reach", subject, err, ""};
            continue;
        }
        const int one = 1;
        ::setsockopt(s.fd(), IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
        s.set_peer("peer " + peer.str());
        return s;
    }
    return last;
}

Result<Socket> listen(const std::string& addr, std::uint16_t port) {
    const std::string subject = (addr.empty() ? "0.0.0.0" : addr) + ":" + std::to_string(port);
    const bool v6 = addr.find(':') != std::string::npos;
    Socket s(::socket(v6 ? AF_INET6 : AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0));
    if (!s.valid()) return errno_error("socket", subject);
    const int one = 1;
    ::setsockopt(s.fd(), SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
    int rc;
    if (v6) {
        sockaddr_in6 a{};
        a.sin6_family = AF_INET6;
        a.sin6_port = htons(port);
        if (::inet_pton(AF_INET6, addr.c_str(), &a.sin6_addr) != 1)
            return Error{"listen", subject, 0, "not an IPv6 address"};
        rc = ::bind(s.fd(), reinterpret_cast<sockaddr*>(&a), sizeof a);
    } else {
        sockaddr_in a{};
        a.sin_family = AF_INET;
        a.sin_port = htons(port);
        if (::inet_pton(AF_INET, addr.empty() ? "0.0.0.0" : addr.c_str(), &a.sin_addr) != 1)
            return Error{"listen", subject, 0, "not an IPv4 address"};
        rc = ::bind(s.fd(), reinterpret_cast<sockaddr*>(&a), sizeof a);
    }
    if (rc != 0) return errno_error("bind", subject);
    if (::listen(s.fd(), 64) != 0) return errno_error("listen", subject);
    return s;
}

Result<std::optional<Socket>> accept(const Socket& listener, int wait_ms, std::string& peer_name) {
    pollfd p{listener.fd(), POLLIN, 0};
    const int rc = ::poll(&p, 1, wait_ms);
    if (rc == 0 || (rc < 0 && errno == EINTR)) return std::optional<Socket>{};
    if (rc < 0) return errno_error("poll", "listener");
    Socket s(::accept4(listener.fd(), nullptr, nullptr, SOCK_NONBLOCK | SOCK_CLOEXEC));
    if (!s.valid()) {
        if (errno == EAGAIN || errno == EINTR || errno == ECONNABORTED)
            return std::optional<Socket>{};
        return errno_error("accept", "listener");
    }
    const int one = 1;
    ::setsockopt(s.fd(), IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
    peer_name = peer_of(s.fd());
    s.set_peer(peer_name);
    return std::optional<Socket>(std::move(s));
}

bool peer_closed(int fd) {
    pollfd p{fd, POLLIN | POLLRDHUP, 0};
    if (::poll(&p, 1, 0) <= 0) return false;
    if (p.revents & (POLLHUP | POLLERR)) return true;
    // Readable: EOF (recv 0) or reset, unless it is a message waiting to be read.
    char b;
    const ssize_t n = ::recv(fd, &b, 1, MSG_PEEK | MSG_DONTWAIT);
    return n == 0 || (n < 0 && errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR);
}

Result<bool> wait_readable(const Socket& s, int wait_ms) {
    pollfd p{s.fd(), POLLIN, 0};
    const int rc = ::poll(&p, 1, wait_ms);
    if (rc < 0 && errno != EINTR) return errno_error("poll", peer_of(s));
    return rc > 0;
}

Status send_all(const Socket& s, std::span<const std::byte> data, Deadline deadline) {
    std::size_t done = 0;
    while (done < data.size()) {
        const ssize_t n = ::send(s.fd(), data.data() + done, data.size() - done, MSG_NOSIGNAL);
        if (n > 0) {
            done += static_cast<std::size_t>(n);
            continue;
        }
        if (n < 0 && errno == EINTR) continue;
        if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
            if (auto w = wait_for(s.fd(), POLLOUT, deadline, "send", peer_of(s)); !w) return w;
            continue;
        }
        return errno_error("send", peer_of(s));
    }
    return ok_status();
}

Status recv_all(const Socket& s, std::span<std::byte> data, Deadline deadline) {
    std::size_t done = 0;
    while (done < data.size()) {
        const ssize_t n = ::recv(s.fd(), data.data() + done, data.size() - done, 0);
        if (n > 0) {
            done += static_cast<std::size_t>(n);
            continue;
        }
        if (n == 0)
            return Error{"recv", peer_of(s), 0,
                         "peer closed the connection after " + std::to_string(done) + " of " +
                             std::to_string(data.size()) + " bytes",
                         done == 0 ? kCauseClosedBeforeFirstByte : ""};
        if (errno == EINTR) continue;
        if (errno == EAGAIN || errno == EWOULDBLOCK) {
            if (auto w = wait_for(s.fd(), POLLIN, deadline, "recv", peer_of(s)); !w) {
                Error e = w.error();
                e.detail = "timed out after " + std::to_string(done) + " of " +
                           std::to_string(data.size()) + " bytes";
                return e;
            }
            continue;
        }
        return errno_error("recv", peer_of(s));
    }
    return ok_status();
}

namespace {

/// A whole frame, followed by its MAC trailer on a protected socket (one send: a trailer never
/// waits for a second segment behind Nagle or a delayed ACK).
Status send_frame(const Socket& s, std::span<const std::byte> frame, Deadline deadline) {
    FrameAuth* a = s.frame_auth();
    if (!a) return send_all(s, frame, deadline);
    std::vector<std::byte> out(frame.size() + kFrameMacBytes);
    std::copy(frame.begin(), frame.end(), out.begin());
    const FrameTrailer t = a->seal(frame);
    std::copy(t.begin(), t.end(), out.begin() + static_cast<std::ptrdiff_t>(frame.size()));
    return send_all(s, out, deadline);
}

}  // namespace

Status send_msg(const Socket& s, const oob::Message& m, Deadline deadline) {
    const oob::Frame f = oob::encode(m);
    return send_frame(s, f, deadline);
}

Result<oob::Message> recv_msg(const Socket& s, Deadline deadline) {
    auto r = recv_any(s, deadline);
    if (!r) return r.error();
    if (r->json)
        return Error{"recv", peer_of(s), 0,
                     "unexpected json frame \"" + (*r->json)["cmd"].get<std::string>() + "\""};
    return std::move(*r->fixed);
}

Status send_json(const Socket& s, const nlohmann::json& body, Deadline deadline) {
    auto f = oob::encode_json(body);
    if (!f) return f.error();
    return send_frame(s, *f, deadline);
}

namespace {

/// A frame whose first byte has been read must be read whole, or the stream is lost: a caller
/// that polls with short deadlines and goes on after ETIMEDOUT would read the next bytes as a
/// header ("bad magic"). So the caller's deadline bounds the wait for a frame to start; the rest
/// of it gets at least kFrameGrace, and a frame cut short is an error that is not ETIMEDOUT.
constexpr auto kFrameGrace = std::chrono::seconds(10);

Error cut_short(Error e) {
    if (e.err_no == ETIMEDOUT) {
        e.err_no = EPROTO;
        e.detail = "frame cut short (" + e.detail + "); the connection cannot be resumed";
    }
    return e;
}

}  // namespace

Result<Received> recv_any(const Socket& s, Deadline deadline) {
    if (auto w = wait_for(s.fd(), POLLIN, deadline, "recv", peer_of(s)); !w) {
        Error e = w.error();
        if (e.err_no == ETIMEDOUT) e.detail = "no message before the deadline";
        return e;
    }
    const Deadline frame_deadline = std::max(deadline, Clock::now() + kFrameGrace);
    std::array<std::byte, oob::kHeaderSize> h{};
    if (auto r = recv_all(s, h, frame_deadline); !r) return cut_short(r.error());
    auto len = oob::frame_length(h);
    if (!len) {
        Error e = len.error();
        e.subject = peer_of(s);  // a refused version must say whose it is
        return e;
    }
    if (s.max_frame() != 0 && *len > s.max_frame())
        return Error{"recv", peer_of(s), EMSGSIZE,
                     "frame of " + std::to_string(*len) + " bytes refused: this connection takes " +
                         std::to_string(s.max_frame()) + " at most"};
    std::vector<std::byte> f(*len);
    std::copy(h.begin(), h.end(), f.begin());
    if (auto r = recv_all(s, std::span(f).subspan(oob::kHeaderSize), frame_deadline); !r) {
        Error e = cut_short(r.error());
        e.cause.clear();  // the header came: a frame cut short, not a close between messages
        return e;
    }
    if (FrameAuth* a = s.frame_auth()) {
        // Checked before decoding: after the handshake no byte the key holder did not MAC
        // reaches a parser. A failed frame ends the connection (shutdown: the caller's next
        // read sees the end at once, and so does the peer).
        FrameTrailer t{};
        Status st = recv_all(s, t, frame_deadline);
        if (!st) {
            const Error& e = st.error();
            st = Error{"recv", "frame " + std::to_string(a->received()) + " from " + peer_of(s), 0,
                       "no MAC trailer (" + e.detail +
                           "): injected by a host without the key, or cut short; connection "
                           "closed"};
        } else {
            st = a->open(f, t, peer_of(s));
        }
        if (!st) {
            ::shutdown(s.fd(), SHUT_RDWR);
            return st.error();
        }
    }
    return decode_frame(f);
}

Result<Received> decode_frame(std::span<const std::byte> f) {
    Received out;
    if (oob::is_json_header(f)) {
        auto j = oob::decode_json(f);
        if (!j) return j.error();
        out.json = std::move(*j);
    } else {
        auto m = oob::decode(f);
        if (!m) return m.error();
        out.fixed = std::move(*m);
    }
    return out;
}

Result<Received> recv_any(const Socket& s, Deadline deadline, const std::atomic<bool>& stop) {
    while (!stop.load()) {
        auto r = wait_readable(s, std::min(200, std::max(1, remaining_ms(deadline))));
        if (!r) return r.error();
        if (*r) return recv_any(s, deadline);
        if (Clock::now() >= deadline)
            return Error{"recv", peer_of(s), ETIMEDOUT, "no message before the deadline"};
    }
    return Error{"recv", peer_of(s), EINTR, "shutting down"};
}

}  // namespace rh::tcp
