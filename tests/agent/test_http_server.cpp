// agent/daemon/http + http_gate, the real server on loopback (issue 27 §5 and "actions apart
// from reading"): clients that pipeline requests and never read hold no handler thread, and
// /healthz from another address is answered by the gate thread meanwhile; the read token never
// authorises an action, and actions are off without an action token; an incast sender outside
// the fleet is refused by name. Bounds are generous (a loaded 2-core machine); bench/
// http_attack_bench prints the latencies.
#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <boost/test/unit_test.hpp>
#include <chrono>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "agent/daemon/board.h"
#include "agent/daemon/http.h"
#include "agent/daemon/incast_action.h"
#include "agent/daemon/incast_senders.h"
#include "core/clock.h"
#include "tests/agent/loopback_client.h"

BOOST_AUTO_TEST_SUITE(test_agent_http_server)

using namespace rh::agent;

using rh::test::connect_from;

namespace {

const std::string kRead = "read-token-0123456789abcdef";
const std::string kAction = "action-token-0123456789abcdef";

/// One request on a new connection from `source` ("Connection: close"); the whole answer as
/// received within `timeout_ms` ("" when none), and the seconds it took in `took_s`.
std::string ask(const char* source, int port, const std::string& head_lines, int timeout_ms,
                double* took_s = nullptr, const std::string& body = "") {
    const double t0 = rh::monotonic_now_s();
    const int fd = connect_from(source, port);
    const std::string req = head_lines + "Host: x\r\nConnection: close\r\nContent-Length: " +
                            std::to_string(body.size()) + "\r\n\r\n" + body;
    ::send(fd, req.data(), req.size(), MSG_NOSIGNAL);
    std::string got;
    const double end = t0 + timeout_ms / 1000.0;
    for (;;) {
        const double left = end - rh::monotonic_now_s();
        pollfd p{fd, POLLIN, 0};
        if (left <= 0 || ::poll(&p, 1, static_cast<int>(left * 1000) + 1) <= 0) break;
        char buf[65536];
        const ssize_t n = ::recv(fd, buf, sizeof buf, 0);
        if (n <= 0) break;
        got.append(buf, static_cast<std::size_t>(n));
    }
    if (took_s) *took_s = rh::monotonic_now_s() - t0;
    ::close(fd);
    return got;
}

/// A board as after a pass: /healthz ok, a 2 MiB /api/v1/snapshot (enough to fill the socket
/// buffers of a client that does not read).
void publish(Board& board) {
    board.update([](BoardView& v) {
        v.passes = 1;
        v.last_pass_mono_s = rh::monotonic_now_s() + 3600;  // fresh for the whole test
        v.devices = 1;
        v.collect_interval_s = 1;
        v.snapshot =
            std::make_shared<const LazyDoc<std::string>>([] { return std::string(2u << 20, 'x'); });
        v.metrics = std::make_shared<const LazyDoc<std::string>>(
            [] { return std::string("rocehealth_up 1\n"); });
    });
}

HttpConfig loopback_config() {
    HttpConfig c;
    c.listen_port = 0;
    c.write_timeout_s = 60;  // a non-reader would hold a thread this long if a thread wrote
    c.request_timeout_s = 60;
    c.read_timeout_s = 60;
    return c;
}

std::string status_line(const std::string& answer) {
    return answer.substr(0, answer.find("\r\n"));
}

}  // namespace

BOOST_AUTO_TEST_CASE(pipelining_non_readers_hold_no_thread_and_healthz_answers_meanwhile) {
    Board board;
    publish(board);
    GateCounters counters;
    HttpServer srv(loopback_config(), "", "", board, counters);
    BOOST_REQUIRE(srv.start());
    // The attack of issue 27 §5: 8 connections from one address (the per-address cap), each
    // pipelining 50 requests for a 2 MiB answer, none ever reading.
    std::string pipeline;
    for (int i = 0; i < 50; ++i) pipeline += "GET /api/v1/snapshot HTTP/1.1\r\nHost: x\r\n\r\n";
    std::vector<int> attackers;
    for (int i = 0; i < 8; ++i) {
        attackers.push_back(connect_from("127.0.0.1", srv.port()));
        ::send(attackers.back(), pipeline.data(), pipeline.size(), MSG_NOSIGNAL | MSG_DONTWAIT);
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(500));  // their answers are stuck
    // A liveness probe from another address: answered at once, not after write_timeout_s.
    double took = 0;
    const std::string h = ask("127.0.0.2", srv.port(), "GET /healthz HTTP/1.1\r\n", 5000, &took);
    BOOST_TEST(status_line(h) == "HTTP/1.1 200 OK", h.substr(0, 200));
    BOOST_TEST(h.find("\"status\":\"ok\"") != std::string::npos);
    BOOST_TEST(took < 1.0, "healthz took " << took << " s");
    // And a handler thread is free for another address's scrape.
    const std::string m = ask("127.0.0.3", srv.port(), "GET /metrics HTTP/1.1\r\n", 5000, &took);
    BOOST_TEST(status_line(m) == "HTTP/1.1 200 OK", m.substr(0, 200));
    BOOST_TEST(took < 2.0, "metrics took " << took << " s");
    for (int fd : attackers) ::close(fd);
}

BOOST_AUTO_TEST_CASE(healthz_is_answered_past_the_total_cap) {
    Board board;
    publish(board);
    GateCounters counters;
    HttpConfig c = loopback_config();
    c.max_connections = 4;
    HttpServer srv(c, "", "", board, counters);
    BOOST_REQUIRE(srv.start());
    std::vector<int> slow;  // silent clients from 4 addresses fill the cap
    for (const char* a : {"127.0.1.1", "127.0.1.2", "127.0.1.3", "127.0.1.4"})
        slow.push_back(connect_from(a, srv.port()));
    std::this_thread::sleep_for(std::chrono::milliseconds(200));
    const std::string h = ask("127.0.0.2", srv.port(), "GET /healthz HTTP/1.1\r\n", 3000);
    BOOST_TEST(status_line(h) == "HTTP/1.1 200 OK", h.substr(0, 200));
    // Anything else past the cap is still a 503 naming the field.
    const std::string m = ask("127.0.0.2", srv.port(), "GET /metrics HTTP/1.1\r\n", 3000);
    BOOST_TEST(status_line(m) == "HTTP/1.1 503 Service Unavailable", m.substr(0, 200));
    BOOST_TEST(m.find("http.max_connections") != std::string::npos);
    for (int fd : slow) ::close(fd);
}

BOOST_AUTO_TEST_CASE(the_read_token_does_not_authorise_actions) {
    Board board;
    publish(board);
    GateCounters counters;
    HttpConfig c = loopback_config();
    c.protect_read = true;
    int ran = 0;
    auto action = [&](const std::string&) {
        ++ran;
        return ActionReply{200, {{"ran", true}}};
    };
    HttpServer srv(c, kRead, kAction, board, counters, action);
    BOOST_REQUIRE(srv.start());
    const std::string post = "POST /api/v1/incast HTTP/1.1\r\n";
    const std::string body = R"({"senders": ["10.0.0.2"]})";
    const std::string with_read =
        ask("127.0.0.2", srv.port(), post + "Authorization: Bearer " + kRead + "\r\n", 3000,
            nullptr, body);
    BOOST_TEST(status_line(with_read) == "HTTP/1.1 403 Forbidden", with_read);
    BOOST_TEST(with_read.find("http.action_token_file") != std::string::npos);
    BOOST_TEST(ran == 0);
    const std::string none = ask("127.0.0.2", srv.port(), post, 3000, nullptr, body);
    BOOST_TEST(status_line(none) == "HTTP/1.1 401 Unauthorized", none);
    // The read token still reads; the action token acts.
    const std::string read =
        ask("127.0.0.2", srv.port(),
            "GET /metrics HTTP/1.1\r\nAuthorization: Bearer " + kRead + "\r\n", 3000);
    BOOST_TEST(status_line(read) == "HTTP/1.1 200 OK", read);
    const std::string act =
        ask("127.0.0.2", srv.port(), post + "Authorization: Bearer " + kAction + "\r\n", 3000,
            nullptr, body);
    BOOST_TEST(status_line(act) == "HTTP/1.1 200 OK", act);
    BOOST_TEST(ran == 1);
}

BOOST_AUTO_TEST_CASE(without_an_action_token_actions_are_off_and_say_which_field_enables_them) {
    Board board;
    publish(board);
    GateCounters counters;
    int ran = 0;
    auto action = [&](const std::string&) {
        ++ran;
        return ActionReply{200, {}};
    };
    HttpServer srv(loopback_config(), kRead, "", board, counters, action);
    BOOST_REQUIRE(srv.start());
    const std::string got =
        ask("127.0.0.2", srv.port(),
            "POST /api/v1/incast HTTP/1.1\r\nAuthorization: Bearer " + kRead + "\r\n", 3000,
            nullptr, "{}");
    BOOST_TEST(status_line(got) == "HTTP/1.1 403 Forbidden", got);
    BOOST_TEST(got.find("set http.action_token_file") != std::string::npos, got);
    BOOST_TEST(ran == 0);
}

BOOST_AUTO_TEST_CASE(a_token_on_a_non_loopback_listen_is_warned_about) {
    Board board;
    GateCounters counters;
    HttpConfig c = loopback_config();
    BOOST_TEST(HttpServer(c, kRead, kAction, board, counters).warnings().empty());
    c.listen_host = "0.0.0.0";
    const auto w = HttpServer(c, kRead, kAction, board, counters).warnings();
    BOOST_TEST_REQUIRE(w.size() == 1u);  // protect_read is off: only the action token travels
    BOOST_TEST(w[0].find("http.action_token_file") != std::string::npos);
    BOOST_TEST(w[0].find("in clear") != std::string::npos);
}

BOOST_AUTO_TEST_CASE(an_incast_sender_outside_the_fleet_is_refused_by_name) {
    IncastAction a;
    IncastAction::Setup s;
    s.rules = std::make_shared<const rh::RuleSet>();
    s.fleet.hosts = {"g2", "10.0.0.3:18520"};
    s.fleet.allowed = {"10.0.9.0/24", "fd00::/64"};
    a.configure(s);
    const ActionReply r = a.handle(R"({"senders": ["g2", "10.6.6.6:18520"], "duration_s": 1})");
    BOOST_TEST(r.status == 403);
    const std::string e = r.body.value("error", "");
    BOOST_TEST(e.find("\"10.6.6.6:18520\"") != std::string::npos, e);
    BOOST_TEST(e.find("incast.allowed_senders") != std::string::npos, e);
    BOOST_TEST(e.find("g2") == std::string::npos, e);  // the fleet's host is not named
    // Senders in the fleet or the allow-list pass on (here to "responder not enabled").
    const ActionReply ok = a.handle(
        R"({"senders": ["G2", "10.0.0.3", "10.0.9.77", "[fd00::5]:18520"], "duration_s": 1})");
    BOOST_TEST(ok.status == 503, ok.body.dump());
}

BOOST_AUTO_TEST_CASE(allowed_sender_entries_are_checked) {
    BOOST_TEST(check_allowed_sender("10.0.0.0/8").empty());
    BOOST_TEST(check_allowed_sender("fd00::/64").empty());
    BOOST_TEST(check_allowed_sender("g7").empty());
    BOOST_TEST(!check_allowed_sender("10.0.0.0/33").empty());
    BOOST_TEST(!check_allowed_sender("a b").empty());
    BOOST_TEST(sender_refusal("10.1.2.3", {{}, {"10.1.0.0/16"}}).empty());
    BOOST_TEST(!sender_refusal("10.2.2.3", {{}, {"10.1.0.0/16"}}).empty());
    BOOST_TEST(!sender_refusal("10.2.2.3", {}).empty());  // no fleet, no list: nobody
}

BOOST_AUTO_TEST_SUITE_END()  // test_agent_http_server
