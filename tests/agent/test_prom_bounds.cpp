// The Prometheus client's bounds (issue 27 §6, agent/fabric/bounded_get.h) against servers that
// misbehave on purpose, on loopback: one that trickles a byte every 1.5 s, one whose header line
// never ends, one whose body never ends, and an agent stopping while a fetch trickles. cpp-httplib
// (the client before) kept reading the trickle past any --timeout, grew the header line to
// hundreds of MiB and kept the agent's stop waiting for the fetch. And the headers a user adds
// (fabric --header, mesh.peers_prometheus.headers: Mimir's X-Scope-OrgID) reach the server.
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <atomic>
#include <boost/test/unit_test.hpp>
#include <chrono>
#include <functional>
#include <mutex>
#include <string>
#include <thread>

#include "agent/fabric/prom_client.h"
#include "agent/fleet/fleet_fetch.h"
#include "agent/fleet/fleet_refresher.h"

BOOST_AUTO_TEST_SUITE(test_prom_bounds)

namespace {

using Clock = std::chrono::steady_clock;

double since(Clock::time_point t0) {
    return std::chrono::duration<double>(Clock::now() - t0).count();
}

bool contains(const std::string& s, const std::string& part) {
    return s.find(part) != std::string::npos;
}

/// A one-connection HTTP server on 127.0.0.1: reads the request head, then runs `script` on
/// the socket, which returns when done, when the client went away (a send fails) or when
/// `quit` is set (the test ends). Counts what it sent.
struct RawServer {
    int listen_fd = -1;
    int port = 0;
    std::atomic<bool> quit{false};
    std::atomic<std::size_t> sent{0};
    std::thread thread;
    mutable std::mutex head_mutex;
    std::string head;  ///< the request line and headers received, under head_mutex

    explicit RawServer(std::function<void(RawServer&, int)> script) {
        listen_fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
        sockaddr_in a{};
        a.sin_family = AF_INET;
        a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
        BOOST_REQUIRE(::bind(listen_fd, reinterpret_cast<sockaddr*>(&a), sizeof a) == 0);
        BOOST_REQUIRE(::listen(listen_fd, 4) == 0);
        socklen_t len = sizeof a;
        ::getsockname(listen_fd, reinterpret_cast<sockaddr*>(&a), &len);
        port = ntohs(a.sin_port);
        thread = std::thread([this, script = std::move(script)] {
            const int fd = ::accept(listen_fd, nullptr, nullptr);
            if (fd < 0) return;
            std::string got;
            char c;
            while (got.find("\r\n\r\n") == std::string::npos && ::recv(fd, &c, 1, 0) == 1) got += c;
            {
                const std::lock_guard<std::mutex> lock(head_mutex);
                head = got;
            }
            script(*this, fd);
            ::close(fd);
        });
    }
    ~RawServer() {
        quit = true;
        ::shutdown(listen_fd, SHUT_RDWR);
        thread.join();
        ::close(listen_fd);
    }
    /// Sends all of `s`; false when the client is gone.
    bool send(int fd, const std::string& s) {
        std::size_t off = 0;
        while (off < s.size()) {
            const ssize_t n = ::send(fd, s.data() + off, s.size() - off, MSG_NOSIGNAL);
            if (n <= 0) return false;
            off += static_cast<std::size_t>(n);
            sent += static_cast<std::size_t>(n);
        }
        return true;
    }
    /// Sleeps `s` seconds in steps, false when quit was set.
    bool pause(double s) {
        for (const auto t0 = Clock::now(); since(t0) < s;) {
            if (quit) return false;
            std::this_thread::sleep_for(std::chrono::milliseconds(20));
        }
        return !quit;
    }
    std::string url() const { return "http://127.0.0.1:" + std::to_string(port); }
    std::string request_head() const {
        const std::lock_guard<std::mutex> lock(head_mutex);
        return head;
    }
};

/// An empty but valid targets answer.
void no_targets(RawServer& s, int fd) {
    const std::string body = R"({"status":"success","data":{"activeTargets":[]}})";
    s.send(fd, "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: " +
                   std::to_string(body.size()) + "\r\n\r\n" + body);
}

/// A valid start, then one byte every 1.5 s for at most 30 s: each read gets a byte before a
/// per-read timeout of 2 s would pass.
void trickle(RawServer& s, int fd) {
    const std::string answer =
        "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 100000\r\n\r\n"
        "{\"status\":\"success\",\"data\":{\"activeTargets\":[" +
        std::string(1000, ' ');
    for (std::size_t i = 0; i < answer.size() && i < 20; ++i)
        if (!s.pause(1.5) || !s.send(fd, answer.substr(i, 1))) return;
}

rh::fabric::PromClient client(const std::string& url, double timeout_s, std::size_t max_bytes) {
    auto ep = rh::fabric::parse_prometheus_url(url);
    BOOST_REQUIRE(static_cast<bool>(ep));
    rh::fabric::PromLimits lim;
    lim.timeout_s = timeout_s;
    lim.max_answer_bytes = max_bytes;
    return rh::fabric::PromClient(*ep, lim);
}

}  // namespace

BOOST_AUTO_TEST_CASE(a_trickled_answer_ends_at_the_whole_request_deadline) {
    RawServer server(trickle);
    const auto t0 = Clock::now();
    auto r = client(server.url(), 2, 1 << 20).active_targets(100);
    const double took = since(t0);
    BOOST_REQUIRE(!r);
    BOOST_TEST_MESSAGE("trickle, --timeout 2: ended after " << took
                                                            << " s: " << r.error().message());
    // 2 s, with room for a loaded machine; the server trickles for 30 s.
    BOOST_TEST(took < 10);
    BOOST_TEST(r.error().cause == rh::fabric::kCauseTimeout);
    BOOST_TEST(contains(r.error().message(), server.url()));
    BOOST_TEST(contains(r.error().detail, "within 2 s (--timeout"));
}

BOOST_AUTO_TEST_CASE(a_header_line_without_end_is_refused_at_the_header_cap) {
    RawServer server([](RawServer& s, int fd) {
        if (!s.send(fd, "HTTP/1.1 200 OK\r\nX-Endless: ")) return;
        const std::string block(64 << 10, 'a');
        for (int i = 0; i < 1024 && !s.quit; ++i)  // up to 64 MiB
            if (!s.send(fd, block)) return;
    });
    const auto t0 = Clock::now();
    auto r = client(server.url(), 60, 1024).active_targets(100);
    BOOST_REQUIRE(!r);
    BOOST_TEST_MESSAGE("endless header line: " << r.error().message() << " after "
                                               << server.sent.load() << " bytes sent, " << since(t0)
                                               << " s");
    BOOST_TEST(r.error().cause == rh::fabric::kCauseTooManyBytes);
    BOOST_TEST(contains(r.error().detail, "headers over 65536 bytes"));
    // The client stopped reading at 64 KiB (plus one read and the sockets' buffers): the server
    // could not push its 64 MiB.
    BOOST_TEST(server.sent.load() < (std::size_t{16} << 20));
}

BOOST_AUTO_TEST_CASE(a_bottomless_body_stops_at_max_answer_bytes) {
    RawServer server([](RawServer& s, int fd) {
        if (!s.send(fd, "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\n\r\n[")) return;
        const std::string block(64 << 10, ' ');
        for (int i = 0; i < 1024 && !s.quit; ++i)
            if (!s.send(fd, block)) return;
    });
    auto r = client(server.url(), 60, 1 << 20).active_targets(100);
    BOOST_REQUIRE(!r);
    BOOST_TEST_MESSAGE("bottomless body: " << r.error().message() << " after " << server.sent.load()
                                           << " bytes sent");
    BOOST_TEST(r.error().cause == rh::fabric::kCauseTooManyBytes);
    BOOST_TEST(contains(r.error().message(), server.url()));
    BOOST_TEST(contains(r.error().detail, "over 1048576 bytes (--max-answer-bytes)"));
    BOOST_TEST(server.sent.load() < (std::size_t{32} << 20));
}

BOOST_AUTO_TEST_CASE(a_chunked_answer_is_read_whole) {
    const std::string body =
        R"({"status":"success","data":{"activeTargets":[{"labels":{"job":"rocehealth","instance":"10.0.0.1:9477"},"scrapeUrl":"http://10.0.0.1:9477/metrics","health":"up"}]}})";
    RawServer server([&body](RawServer& s, int fd) {
        std::string out = "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n";
        for (std::size_t i = 0; i < body.size(); i += 7) {
            const std::string part = body.substr(i, 7);
            char size[16];
            std::snprintf(size, sizeof size, "%zx", part.size());
            out += std::string(size) + ";ext=1\r\n" + part + "\r\n";
        }
        out += "0\r\nX-Trailer: 1\r\n\r\n";
        s.send(fd, out);
    });
    auto r = client(server.url(), 10, 1 << 20).active_targets(100);
    BOOST_REQUIRE_MESSAGE(static_cast<bool>(r), (r ? std::string() : r.error().message()));
    BOOST_REQUIRE(r->size() == 1);
    BOOST_TEST((*r)[0].host == "10.0.0.1");
}

BOOST_AUTO_TEST_CASE(the_agent_stops_while_a_fetch_trickles) {
    RawServer server(trickle);
    rh::agent::MeshConfig mesh;
    mesh.peers_prometheus.url = server.url();
    mesh.peers_prometheus.timeout_s = 120;
    std::atomic<bool> started{false};
    auto refresher = std::make_unique<rh::agent::FleetRefresher>(
        [&](const std::atomic<bool>& stop) {
            started = true;
            return rh::agent::fetch_fleet(mesh, 18520, {"h", {}}, &stop);
        },
        3600);
    while (!started) std::this_thread::sleep_for(std::chrono::milliseconds(10));
    std::this_thread::sleep_for(std::chrono::milliseconds(2000));  // the fetch is trickling
    const auto t0 = Clock::now();
    refresher.reset();  // what the agent does on SIGTERM
    const double took = since(t0);
    BOOST_TEST_MESSAGE("stop during a trickled fetch took " << took << " s");
    BOOST_TEST(took < 5);  // ~0.1 s; the fetch's own timeout is 120 s, the trickle 30 s
}

BOOST_AUTO_TEST_CASE(added_headers_go_with_the_request_after_the_clients_own) {
    RawServer server(no_targets);
    auto ep = rh::fabric::parse_prometheus_url(server.url() + "/prometheus/");
    BOOST_REQUIRE(static_cast<bool>(ep));
    BOOST_TEST(ep->headers.empty());
    for (const char* text : {"X-Scope-OrgID: tenant1", "X-Team:\ta b  "}) {
        auto h = rh::fabric::parse_http_header(text);
        BOOST_REQUIRE_MESSAGE(static_cast<bool>(h), (h ? "" : h.error().message()));
        ep->headers.push_back(*h);
    }
    auto r = rh::fabric::PromClient(*ep, {}).active_targets(10);
    BOOST_REQUIRE_MESSAGE(static_cast<bool>(r), (r ? std::string() : r.error().message()));
    const std::string head = server.request_head();
    BOOST_TEST_MESSAGE("request: " << head);
    BOOST_TEST(head.rfind("GET /prometheus/api/v1/targets?state=active HTTP/1.1\r\nHost: ", 0) ==
               0);
    BOOST_TEST(
        contains(head, "\r\nConnection: close\r\nX-Scope-OrgID: tenant1\r\nX-Team: a b\r\n\r\n"));
}

BOOST_AUTO_TEST_CASE(the_mesh_fleet_fetch_sends_the_configs_headers) {
    RawServer server(no_targets);
    rh::agent::MeshConfig mesh;
    mesh.peers_prometheus.url = server.url();
    mesh.peers_prometheus.headers = {{"X-Scope-OrgID", "fleet-a"}};
    (void)rh::agent::fetch_fleet(mesh, 18520, {"h", {}}, nullptr);  // no targets: an error
    BOOST_TEST(contains(server.request_head(), "\r\nX-Scope-OrgID: fleet-a\r\n"));
}

BOOST_AUTO_TEST_CASE(a_header_that_would_split_the_request_is_never_sent) {
    RawServer server(no_targets);
    auto ep = rh::fabric::parse_prometheus_url(server.url());
    BOOST_REQUIRE(static_cast<bool>(ep));
    ep->headers = {{"X-A", "a\r\nX-Injected: 1"}};
    auto r = rh::fabric::PromClient(*ep, {}).active_targets(10);
    BOOST_REQUIRE(!r);
    BOOST_TEST(contains(r.error().detail, "the value of header X-A holds a control character"));
    BOOST_TEST(!contains(server.request_head(), "X-Injected"));
}

// A wrong base URL (Mimir without /prometheus, another server) answers with its own page: the
// error shows its start, not a bare status (a new user's find), cut and made printable.
BOOST_AUTO_TEST_CASE(an_http_error_shows_the_start_of_its_answer) {
    RawServer server([](RawServer& s, int fd) {
        const std::string body = "404 page not found\n\t\x01" + std::string(500, 'x');
        s.send(fd, "HTTP/1.1 404 Not Found\r\nContent-Type: text/plain\r\nContent-Length: " +
                       std::to_string(body.size()) + "\r\n\r\n" + body);
    });
    auto r = client(server.url(), 5, 1 << 20).query_range("up", 0, 60, 15);
    BOOST_REQUIRE(!r);
    BOOST_TEST(r.error().cause == rh::fabric::kCauseHttpStatus);
    BOOST_TEST(contains(r.error().detail, "HTTP status 404, answer '404 page not found x"),
               r.error().detail);
    BOOST_TEST(contains(r.error().detail, "...'"), r.error().detail);
    BOOST_TEST(r.error().detail.size() < 200u, r.error().detail);
}

BOOST_AUTO_TEST_CASE(a_page_in_place_of_the_api_shows_its_start) {
    RawServer server([](RawServer& s, int fd) {
        const std::string body = "<html><title>Grafana</title></html>";
        s.send(fd, "HTTP/1.1 200 OK\r\nContent-Type: text/html\r\nContent-Length: " +
                       std::to_string(body.size()) + "\r\n\r\n" + body);
    });
    auto r = client(server.url(), 5, 1 << 20).query_range("up", 0, 60, 15);
    BOOST_REQUIRE(!r);
    BOOST_TEST(contains(r.error().detail, "answer '<html><title>Grafana</title></html>'"),
               r.error().detail);
}

BOOST_AUTO_TEST_CASE(header_text_is_checked) {
    struct Case {
        const char* text;
        const char* error;  ///< "" when valid
    };
    for (const Case& c : std::initializer_list<Case>{
             {"X-Scope-OrgID: tenant1", ""},
             {"X-Empty:", ""},
             {"X-Scope-OrgID tenant1", "expected NAME: VALUE"},
             {": v", "expected a header name of 1 to 256 characters"},
             {"X Y: v", "header name 'X Y' holds a character a header name cannot have"},
             {"host: other", "header host is set by rocehealth itself"},
             {"Accept-Encoding: gzip", "is set by rocehealth itself"},
             {"User-Agent: me", "is set by rocehealth itself"},
             {"accept: text/plain", "is set by rocehealth itself"},
             {"X-A: a\nb", "holds a control character"}}) {
        const auto h = rh::fabric::parse_http_header(c.text);
        BOOST_TEST(static_cast<bool>(h) == (*c.error == 0), c.text);
        if (!h) BOOST_TEST(contains(h.error().detail, c.error), c.text << ": " << h.error().detail);
    }
    BOOST_TEST(!rh::fabric::check_http_header({"X-Big", std::string(8193, 'a')}).empty());
    // A 100 KB value is refused, and its error shows a start, not all of it.
    const auto big = rh::fabric::parse_http_header("X-Big: " + std::string(100000, 'a'));
    BOOST_TEST_REQUIRE(!big);
    BOOST_TEST(big.error().message().size() < 400u, big.error().message().size());
    BOOST_TEST(contains(big.error().message(), "... (100007 bytes)"), big.error().message());
    // Two tenants: the server would pick one silently.
    const std::vector<rh::fabric::HttpHeader> two{{"X-Scope-OrgID", "t1"}, {"x-scope-orgid", "t2"}};
    BOOST_TEST(rh::fabric::check_http_header_at(two, 0).empty());
    BOOST_TEST(rh::fabric::check_http_header_at(two, 1) == "header x-scope-orgid given twice");
}

BOOST_AUTO_TEST_SUITE_END()
