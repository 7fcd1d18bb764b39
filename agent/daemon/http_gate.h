// The HTTP endpoint's front door (agent/daemon/README.md, "HTTP: slow clients"): it owns the
// listening socket, accepts, caps connections per source address and in total, and reads each
// request — head and Content-Length body — in one poll() thread under a total deadline. Only a
// connection whose whole request is already in memory is handed to a handler thread, so a
// client that trickles bytes (or sends nothing) holds a gate slot, never a thread: /healthz and
// /metrics keep answering. After a response a keep-alive connection comes back to the gate to
// wait for its next request. Refused connections get a short JSON error (503, 408, 400, 411,
// 413), are closed within a second, are counted by reason (GateCounters) and logged
// (http_connections_refused, at most once a minute per reason, naming the last client).
// The handler (http.cpp: cpp-httplib's request processing) reads only the buffered request and
// renders its response into memory; the gate thread writes it (poll, POLLOUT) under
// write_timeout_s in total, so no thread waits on a client that does not read. A connection
// carries one request at a time: the next pipelined one is taken only once the previous answer
// is written, and at most max_in_work_per_address requests of one address are queued or served
// at once. Quick requests (/healthz) are answered by the gate thread itself (set_inline), also
// on a connection refused for the total cap when its first request is one: a liveness probe
// never waits on a handler thread. With a TlsContext (http.tls_cert_file, http_tls.h) every
// connection is TLS: the gate runs the handshake inside its reads, under the same request
// deadline, and every read and write of the gate and the handlers goes through the session, so
// the caps, deadlines and hand-offs hold for HTTPS as for plain HTTP.
#pragma once

#include <sys/socket.h>
#include <array>
#include <atomic>
#include <condition_variable>
#include <cstddef>
#include <cstdint>
#include <deque>

#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

#include "core/result.h"

struct ssl_st;

namespace rh::agent {

class TlsContext;

/// Why the gate closed a connection without a handler seeing it.
enum class GateRefusal : unsigned {
    per_address_cap,  ///< already max_per_address connections open from that address (503)
    total_cap,        ///< already max_connections open (503)
    request_timeout,  ///< request not complete within request_timeout_s of its first byte (408)
    too_large,        ///< head over max_head_bytes (400) or Content-Length over max_body (413)
    chunked_body,     ///< Transfer-Encoding: bodies need Content-Length (411)
    bad_request,      ///< unreadable Content-Length (400)
    write_timeout,    ///< the client did not take an answer within write_timeout_s (closed)
    write_backlog,    ///< answers waiting for slow readers over max_pending_bytes (closed)
    tls_handshake,    ///< HTTPS: the TLS handshake failed (a plain HTTP request: 400 in clear)
};
inline constexpr std::size_t kGateRefusals = 9;
/// Label value of rocehealth_http_connections_refused_total{reason}: "per_address_cap", ...
const char* refusal_reason(GateRefusal r);

/// "10.0.0.2" (an IPv4-mapped IPv6 address as IPv4, so one client is one address whatever the
/// listener) and its port into `port`; "" and port 0 for another family.
std::string peer_text(const sockaddr_storage& ss, int& port);

/// Refusals since the agent started. The agent owns one for its whole life (HTTP restarts on
/// reload keep counting); gate threads add, the run loop reads.
struct GateCounters {
    std::array<std::atomic<std::uint64_t>, kGateRefusals> refused{};
    void add(GateRefusal r) { refused[static_cast<unsigned>(r)].fetch_add(1); }
    /// Every reason, from 0: reason label -> count.
    std::map<std::string, std::uint64_t> snapshot() const;
};

struct GateLimits {
    unsigned threads = 4;            ///< handler threads
    unsigned max_queued = 16;        ///< complete requests waiting for a thread (more wait unread)
    unsigned max_connections = 256;  ///< open connections in total
    unsigned max_per_address = 8;    ///< open connections per source address
    std::size_t max_head_bytes = 16384;  ///< request line + headers
    std::size_t max_body_bytes = 8192;   ///< Content-Length limit
    double request_timeout_s = 5;        ///< first byte -> whole request (accept -> for a new one)
    double idle_timeout_s = 5;           ///< keep-alive: response -> first byte of the next request
    double write_timeout_s = 5;          ///< an answer, in total, from its first byte sent
    /// Answer bytes waiting in the gate for clients that read slowly, all connections together.
    std::size_t max_pending_bytes = 64u << 20;
    /// Requests of one source address queued for or held by handler threads at once.
    unsigned max_in_work_per_address = 2;
    unsigned keep_alive_max = 100;  ///< requests per connection
};

/// Where a request ends in the bytes received so far. `bytes`: head + body length when
/// complete; `status`/`reason`/`error` when refused.
struct Framing {
    enum Kind { incomplete, complete, refuse } kind = incomplete;
    std::size_t bytes = 0;
    int status = 0;
    GateRefusal reason = GateRefusal::bad_request;
    std::string error;
};
/// HTTP/1.1 framing (RFC 9112 §6): the head ends at the first CRLF CRLF; the body is
/// Content-Length bytes (none without one). Refused: a head over max_head_bytes, any
/// Transfer-Encoding, a Content-Length that is not one decimal number or is over max_body_bytes.
Framing frame_request(std::string_view buf, std::size_t max_head_bytes, std::size_t max_body_bytes);

/// A client connection as a handler sees it: the socket and its buffered request.
struct GateConn {
    int fd = -1;
    std::string peer_ip;  ///< text form; an IPv4-mapped IPv6 address as IPv4
    int peer_port = 0;
    std::string in;          ///< received bytes; [in_off, request_end) is the current request
    std::size_t in_off = 0;  ///< consumed by the handler so far
    std::size_t request_end = 0;
    unsigned served = 0;  ///< requests answered on this connection before the current one
    std::string out;      ///< the answer the handler rendered; the gate writes [out_off, end)
    std::size_t out_off = 0;
    bool close_after = false;  ///< close once `out` is written (no keep-alive)
    ssl_st* tls = nullptr;     ///< HTTPS: the connection's TLS session; nullptr: plain HTTP
    /// The poll event the last TLS step waits for (POLLIN, POLLOUT), 0 when it is the state's
    /// own: a TLS write can need to read first, a read (the handshake) to write.
    short want = 0;

    GateConn() = default;
    GateConn(const GateConn&) = delete;
    GateConn& operator=(const GateConn&) = delete;
    ~GateConn();  ///< frees `tls` (the socket is closed by whoever owns the connection)
};

class HttpGate {
  public:
    /// Serves the request in c.in[in_off, request_end) and appends the response to c.out (the
    /// gate writes it; the handler must not block on c.fd). True: keep the connection open for
    /// another request.
    using Handler = std::function<bool(GateConn& c)>;
    /// Runs in the gate thread for every complete request (`request`: head and body); true when
    /// it answered it in `out` (the gate writes it), false to hand it to a handler thread. Must
    /// be quick and never block: a /healthz from the board. `keep`: false to close after.
    using Inline = std::function<bool(std::string_view request, std::string& out, bool& keep)>;

    /// `tls`: HTTPS with that certificate (nullptr: plain HTTP).
    HttpGate(GateLimits limits, GateCounters& counters, Handler handler, Inline quick = {},
             std::shared_ptr<const TlsContext> tls = {});
    ~HttpGate();  ///< stop()
    HttpGate(const HttpGate&) = delete;
    HttpGate& operator=(const HttpGate&) = delete;

    /// Binds HOST:PORT (IP literal; port 0: any free port), listens, starts the gate thread and
    /// the handler threads. Error: the address cannot be bound.
    Status start(const std::string& host, std::uint16_t port);
    int port() const { return port_; }  ///< bound port; 0 before start()
    /// Stops accepting, lets handlers finish the request in hand, closes every connection.
    void stop();

  private:
    struct Slot;
    void gate_loop();
    /// Connections the workers handed back (back_) become slots again; false once stopping.
    bool take_back(double now);
    /// A slot past its deadline: 408 while reading, dropped while writing or idle, 503 while
    /// probing, closed once lingered.
    void expire(Slot& s, double now);
    void work();
    void accept_ready(double now);
    void read_slot(Slot& s, double now);
    void examine(Slot& s, double now);
    void refuse(Slot& s, int status, GateRefusal why, const std::string& error, double now);
    void note_refusal(GateRefusal why, const std::string& peer, int status,
                      const std::string& error, double now);
    void write_slot(Slot& s, double now);
    void written(Slot& s, double now);  ///< `out` is all sent: idle, or closed
    bool answer_inline(Slot& s, double now);
    void probe_examine(Slot& s, double now);
    void uncount(Slot& s);  ///< frees the slot's bytes in pending_bytes_
    void dispatch();
    std::string total_cap_text() const;
    void release(GateConn& c);       ///< closes an admitted connection and frees its count
    void forget(const GateConn& c);  ///< frees its count only
    void wake();

    GateLimits lim_;
    GateCounters& counters_;
    Handler handler_;
    Inline inline_;
    std::shared_ptr<const TlsContext> tls_;
    int listen_fd_ = -1, wake_fd_ = -1, port_ = 0;
    std::thread gate_;
    std::vector<std::thread> workers_;
    std::vector<Slot> slots_;    ///< gate thread only
    std::size_t lingering_ = 0;  ///< closing and probing slots
    bool again_ = false;         ///< a slot has a complete request buffered: poll without waiting
    std::array<double, kGateRefusals> next_log_s_{};       ///< gate thread only
    std::array<std::uint64_t, kGateRefusals> unlogged_{};  ///< refusals since the last log

    std::mutex m_;  ///< guards what follows
    std::condition_variable ready_cv_;
    std::deque<std::unique_ptr<GateConn>> ready_, back_;
    std::map<std::string, unsigned> per_address_;
    std::map<std::string, unsigned> in_work_;  ///< queued or held by a handler, per address
    std::size_t pending_bytes_ = 0;            ///< unsent answer bytes in every connection
    unsigned open_ = 0;
    bool stop_ = false;
};

}  // namespace rh::agent
