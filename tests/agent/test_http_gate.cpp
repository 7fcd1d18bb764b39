// agent/daemon/http_gate: where a request ends (framing) and what the gate does with clients —
// the per-address cap answered 503 at once while another address is served, a trickled
// request closed with 408 at its deadline, keep-alive and pipelined requests served in order,
// each refusal counted by reason. The handler here answers with the request line it was given.
#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <atomic>
#include <boost/test/unit_test.hpp>
#include <chrono>
#include <string>
#include <thread>
#include <vector>

#include "agent/daemon/http_gate.h"
#include "tests/agent/loopback_client.h"

BOOST_AUTO_TEST_SUITE(test_agent_http_gate)

using rh::agent::frame_request;
using rh::agent::Framing;
using rh::agent::GateConn;
using rh::agent::GateCounters;
using rh::agent::GateLimits;
using rh::agent::GateRefusal;
using rh::agent::HttpGate;
using rh::agent::refusal_reason;

using rh::test::connect_from;

namespace {

const std::string kGet = "GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n";

Framing frame(const std::string& b) {
    return frame_request(b, 16384, 100);
}

/// Answers "200 <the request line>" and keeps the connection.
bool echo_request_line(GateConn& c) {
    const std::string req = c.in.substr(c.in_off, c.request_end - c.in_off);
    c.in_off = c.request_end;
    const std::string body = req.substr(0, req.find("\r\n"));
    c.out +=
        "HTTP/1.1 200 OK\r\nContent-Length: " + std::to_string(body.size()) + "\r\n\r\n" + body;
    return true;
}

/// What arrives within `timeout_ms`, up to `want` bytes or the end of the stream.
std::string read_some(int fd, int timeout_ms, std::size_t want = 4096) {
    std::string got;
    const auto end = std::chrono::steady_clock::now() + std::chrono::milliseconds(timeout_ms);
    while (got.size() < want) {
        const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
                              end - std::chrono::steady_clock::now())
                              .count();
        pollfd p{fd, POLLIN, 0};
        if (left <= 0 || ::poll(&p, 1, static_cast<int>(left)) <= 0) break;
        char buf[4096];
        const ssize_t n = ::recv(fd, buf, sizeof buf, 0);
        if (n <= 0) break;
        got.append(buf, static_cast<std::size_t>(n));
    }
    return got;
}

/// Bytes of echo_request_line's answer to a request whose line is `line`.
std::size_t answer_bytes(const std::string& line) {
    return ("HTTP/1.1 200 OK\r\nContent-Length: " + std::to_string(line.size()) + "\r\n\r\n" + line)
        .size();
}

void send_text(int fd, const std::string& s) {
    BOOST_REQUIRE(::send(fd, s.data(), s.size(), MSG_NOSIGNAL) == static_cast<ssize_t>(s.size()));
}

std::uint64_t count(const GateCounters& c, GateRefusal r) {
    return c.refused[static_cast<unsigned>(r)].load();
}

}  // namespace

BOOST_AUTO_TEST_CASE(a_request_ends_after_its_head_and_content_length) {
    BOOST_TEST(frame("GET / HTTP/1.1\r\nHost: x\r\n").kind == Framing::incomplete);
    const Framing get = frame(kGet + "GET /metrics");  // a pipelined second request follows
    BOOST_TEST(get.kind == Framing::complete);
    BOOST_TEST(get.bytes == kGet.size());
    const std::string post = "POST /api/v1/incast HTTP/1.1\r\ncontent-LENGTH:  5 \r\n\r\n";
    BOOST_TEST(frame(post + "{\"a\"").kind == Framing::incomplete);  // 4 of 5 body bytes
    BOOST_TEST(frame(post + "{\"a\"}").bytes == post.size() + 5);
}

BOOST_AUTO_TEST_CASE(unframeable_requests_are_refused_with_the_status_to_send) {
    const Framing te = frame("POST / HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n");
    BOOST_TEST(te.kind == Framing::refuse);
    BOOST_TEST(te.status == 411);
    BOOST_TEST(te.error.find("Content-Length") != std::string::npos);
    const Framing big = frame("POST / HTTP/1.1\r\nContent-Length: 101\r\n\r\n");
    BOOST_TEST(big.status == 413);
    BOOST_TEST(big.error.find("http.max_request_bytes (100 bytes)") != std::string::npos);
    BOOST_TEST(frame("POST / HTTP/1.1\r\nContent-Length: 1\r\nContent-Length: 2\r\n\r\n").status ==
               400);
    BOOST_TEST(frame("POST / HTTP/1.1\r\nContent-Length: -1\r\n\r\n").status == 400);
    // A head with no end in sight: refused once it is over the limit, not buffered further.
    const Framing head = frame_request("GET / HTTP/1.1\r\nX: " + std::string(200, 'a'), 100, 0);
    BOOST_TEST(head.status == 400);
    BOOST_TEST(std::string(refusal_reason(head.reason)) == "too_large");
}

BOOST_AUTO_TEST_CASE(over_the_per_address_cap_is_503_while_another_address_is_served) {
    GateCounters counters;
    GateLimits lim;
    lim.threads = 1;
    lim.max_per_address = 2;
    lim.request_timeout_s = 30;  // the held ones stay held for the whole test
    HttpGate gate(lim, counters, echo_request_line);
    BOOST_REQUIRE(gate.start("127.0.0.1", 0));
    // Two connections from 127.0.0.1 that send nothing hold its two slots.
    const int held1 = connect_from("127.0.0.1", gate.port());
    const int held2 = connect_from("127.0.0.1", gate.port());
    const int over = connect_from("127.0.0.1", gate.port());
    const std::string refused = read_some(over, 1000);
    BOOST_TEST(refused.rfind("HTTP/1.1 503", 0) == 0, refused);
    BOOST_TEST(refused.find("more than 2 connections from 127.0.0.1") != std::string::npos);
    BOOST_TEST(read_some(over, 1000).empty());  // and closed
    BOOST_TEST(count(counters, GateRefusal::per_address_cap) == 1u);
    // Another address is served, with one thread only, past the two silent clients.
    const int other = connect_from("127.0.0.2", gate.port());
    send_text(other, kGet);
    BOOST_TEST(read_some(other, 1000, answer_bytes("GET /healthz HTTP/1.1"))
                   .find("GET /healthz HTTP/1.1") != std::string::npos);
    // A slot freed is a slot usable again.
    ::close(held1);
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
    const int again = connect_from("127.0.0.1", gate.port());
    send_text(again, kGet);
    BOOST_TEST(
        read_some(again, 1000, answer_bytes("GET /healthz HTTP/1.1")).rfind("HTTP/1.1 200", 0) ==
        0);
    for (int fd : {held2, over, other, again}) ::close(fd);
}

BOOST_AUTO_TEST_CASE(a_trickled_request_is_closed_with_408_at_its_deadline) {
    GateCounters counters;
    GateLimits lim;
    lim.threads = 1;
    lim.request_timeout_s = 0.5;
    HttpGate gate(lim, counters, echo_request_line);
    BOOST_REQUIRE(gate.start("127.0.0.1", 0));
    const int fd = connect_from("127.0.0.1", gate.port());
    send_text(fd, "GET /healthz HTTP/1.1\r\n");
    std::string got;
    for (int i = 0; i < 20 && got.empty(); ++i) {  // one header byte every 100 ms: never done
        ::send(fd, "X", 1, MSG_NOSIGNAL);
        got = read_some(fd, 100);
    }
    BOOST_TEST(got.rfind("HTTP/1.1 408", 0) == 0, got);
    BOOST_TEST(got.find("http.request_timeout_s (0.5 s)") != std::string::npos);
    BOOST_TEST(count(counters, GateRefusal::request_timeout) == 1u);
    ::close(fd);
}

BOOST_AUTO_TEST_CASE(keep_alive_and_pipelined_requests_are_answered_in_order) {
    GateCounters counters;
    HttpGate gate(GateLimits{}, counters, echo_request_line);
    BOOST_REQUIRE(gate.start("127.0.0.1", 0));
    const int fd = connect_from("127.0.0.1", gate.port());
    send_text(fd, "GET /a HTTP/1.1\r\n\r\nGET /b HTTP/1.1\r\n\r\n");
    const std::string both =
        read_some(fd, 2000, answer_bytes("GET /a HTTP/1.1") + answer_bytes("GET /b HTTP/1.1"));
    BOOST_TEST(both.find("GET /a") < both.find("GET /b"), both);
    BOOST_TEST(both.find("GET /b") != std::string::npos, both);
    send_text(fd, "GET /c HTTP/1.1\r\n\r\n");  // the same connection, later
    BOOST_TEST(read_some(fd, 1000, answer_bytes("GET /c HTTP/1.1")).find("GET /c") !=
               std::string::npos);
    ::close(fd);
    for (unsigned i = 0; i < rh::agent::kGateRefusals; ++i)
        BOOST_TEST(counters.refused[i].load() == 0u);
}

BOOST_AUTO_TEST_CASE(a_client_that_does_not_read_its_answer_holds_no_thread) {
    GateCounters counters;
    GateLimits lim;
    lim.threads = 1;
    lim.write_timeout_s = 1;
    // /big answers 8 MiB (more than loopback's socket buffers take), anything else its line.
    HttpGate gate(lim, counters, [](GateConn& c) {
        if (c.in.compare(c.in_off, 8, "GET /big") == 0) {
            c.in_off = c.request_end;
            c.out =
                "HTTP/1.1 200 OK\r\nContent-Length: 8388608\r\n\r\n" + std::string(8u << 20, 'x');
            return true;
        }
        return echo_request_line(c);
    });
    BOOST_REQUIRE(gate.start("127.0.0.1", 0));
    const int stuck = connect_from("127.0.0.1", gate.port());
    send_text(stuck, "GET /big HTTP/1.1\r\n\r\nGET /big HTTP/1.1\r\n\r\n");  // never read
    std::this_thread::sleep_for(std::chrono::milliseconds(300));
    // The one thread is free: another client is served while the answer waits to be taken.
    const int other = connect_from("127.0.0.2", gate.port());
    send_text(other, kGet);
    BOOST_TEST(
        read_some(other, 900, answer_bytes("GET /healthz HTTP/1.1")).rfind("HTTP/1.1 200", 0) == 0);
    // Within http.write_timeout_s of an answer it could not send, the stuck connection is
    // closed and counted.
    for (int i = 0; i < 40 && count(counters, GateRefusal::write_timeout) == 0; ++i)
        std::this_thread::sleep_for(std::chrono::milliseconds(100));
    BOOST_TEST(count(counters, GateRefusal::write_timeout) == 1u);
    BOOST_TEST(std::string(refusal_reason(GateRefusal::write_timeout)) == "write_timeout");
    ::close(stuck);
    ::close(other);
}

BOOST_AUTO_TEST_CASE(healthz_is_answered_by_the_gate_thread_while_the_threads_are_busy) {
    GateCounters counters;
    GateLimits lim;
    lim.threads = 1;
    std::atomic<bool> release{false};
    HttpGate gate(
        lim, counters,
        [&](GateConn& c) {  // holds the only thread until released
            while (!release.load()) std::this_thread::sleep_for(std::chrono::milliseconds(10));
            return echo_request_line(c);
        },
        [](std::string_view req, std::string& out, bool& keep) {
            if (req.rfind("GET /healthz ", 0) != 0) return false;
            out = "HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok";
            keep = true;
            return true;
        });
    BOOST_REQUIRE(gate.start("127.0.0.1", 0));
    const int busy = connect_from("127.0.0.1", gate.port());
    send_text(busy, "GET /slow HTTP/1.1\r\n\r\n");
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
    const int probe = connect_from("127.0.0.2", gate.port());
    send_text(probe, kGet + kGet);  // two, pipelined: both answered inline, in order
    const std::string got = read_some(probe, 2000, 2 * 40);
    BOOST_TEST(got.find("ok") != std::string::npos, got);
    BOOST_TEST(got.find("ok", got.find("ok") + 2) != std::string::npos, got);
    release = true;
    BOOST_TEST(read_some(busy, 2000, answer_bytes("GET /slow HTTP/1.1")).find("GET /slow") !=
               std::string::npos);
    ::close(busy);
    ::close(probe);
}

BOOST_AUTO_TEST_SUITE_END()  // test_agent_http_gate
