// rocehealth_preauth_flood_bench: a responder's front door (probes/responder/front_door.h) under
// the unauthenticated attacks of issue 27, on loopback TCP with no NIC: the door runs in a child
// process with stand-in verbs handlers (a probe answers probe_reply, a command answers ok), the
// parent attacks from 127.0.0.N addresses and reads the child's VmRSS / VmHWM. Meanwhile it counts
// how many legitimate unauthenticated probes (from another address) and keyed commands succeed.
// Prints figures; not a test. The probe buffers themselves are not here (no verbs): they are
// capped at 16 MiB across unauthenticated sessions (probes/responder/probe_budget.h).
#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cstdio>
#include <fstream>
#include <string>
#include <thread>
#include <vector>

#include "probes/auth/handshake.h"
#include "probes/responder/front_door.h"

using namespace rh;
using namespace std::chrono_literals;

namespace {

std::shared_ptr<const auth::FabricKey> bench_key() {
    return std::make_shared<const auth::FabricKey>(
        auth::FabricKey{std::vector<std::uint8_t>(32, 0x42), "bench.key"});
}

long status_kib(pid_t pid, const std::string& field) {
    std::ifstream f("/proc/" + std::to_string(pid) + "/status");
    std::string line;
    while (std::getline(f, line))
        if (line.rfind(field + ":", 0) == 0) return std::stol(line.substr(field.size() + 1));
    return -1;
}

/// Child: serves 127.0.0.1:port until SIGTERM.
[[noreturn]] void serve(tcp::Socket listener) {
    static std::atomic<bool> stop{false};
    ::signal(SIGTERM, [](int) { stop = true; });
    auth::set_process_key(bench_key());
    FrontDoorHandlers h;
    h.query = [](const tcp::Socket&) {};
    h.hello = [] { return nlohmann::json{{"cmd", "hello_reply"}}; };
    h.probe = [](const tcp::Socket& s, const oob::Message&, bool) {
        oob::Message m;
        m.type = oob::Type::probe_reply;
        (void)tcp::send_msg(s, m, tcp::deadline_in(500));
        (void)tcp::recv_any(s, tcp::deadline_in(5000), stop);
    };
    h.control = [](const tcp::Socket& s, const nlohmann::json&) {
        (void)tcp::send_json(s, {{"cmd", "ok"}}, tcp::deadline_in(2000));
    };
    FrontDoor(FrontDoorOptions{}, std::move(h)).run(listener, stop);
    std::_Exit(0);
}

int connect_from(std::uint16_t port, unsigned host) {
    const int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    sockaddr_in me{};
    me.sin_family = AF_INET;
    me.sin_addr.s_addr = htonl(0x7f000000u | host);
    ::bind(fd, reinterpret_cast<sockaddr*>(&me), sizeof me);
    sockaddr_in to{};
    to.sin_family = AF_INET;
    to.sin_port = htons(port);
    to.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    if (::connect(fd, reinterpret_cast<sockaddr*>(&to), sizeof to) != 0) {
        ::close(fd);
        return -1;
    }
    return fd;
}

/// Legitimate traffic during an attack: an unauthenticated probe from 127.0.0.250 and a keyed
/// command from 127.0.0.1, `n` of each; successes counted.
void legit(std::uint16_t port, int n, int& probes_ok, int& keyed_ok) {
    probes_ok = keyed_ok = 0;
    for (int i = 0; i < n; ++i) {
        const int fd = connect_from(port, 250);
        if (fd >= 0) {
            tcp::Socket s(fd);
            ::fcntl(fd, F_SETFL, ::fcntl(fd, F_GETFL) | O_NONBLOCK);
            oob::Message m;
            m.type = oob::Type::probe_request;
            if (tcp::send_msg(s, m, tcp::deadline_in(2000))) {
                auto r = tcp::recv_any(s, tcp::deadline_in(5000));
                probes_ok += r && r->fixed && r->fixed->type == oob::Type::probe_reply;
            }
        }
        auto k = auth::connect_control({"127.0.0.1", port}, tcp::deadline_in(5000));
        if (k && tcp::send_json(*k, {{"cmd", "inventory"}}, tcp::deadline_in(2000))) {
            auto r = tcp::recv_any(*k, tcp::deadline_in(5000));
            keyed_ok += r && r->json && r->json->value("cmd", "") == "ok";
        }
    }
}

}  // namespace

int main() {
    auto l = tcp::listen("127.0.0.1", 0);
    if (!l) return std::fprintf(stderr, "listen: %s\n", l.error().message().c_str()), 2;
    sockaddr_in a{};
    socklen_t len = sizeof a;
    ::getsockname(l->fd(), reinterpret_cast<sockaddr*>(&a), &len);
    const std::uint16_t port = ntohs(a.sin_port);
    const pid_t child = ::fork();
    if (child == 0) serve(std::move(*l));
    { tcp::Socket parent_copy = std::move(*l); }  // only the child listens
    auth::set_process_key(bench_key());
    std::this_thread::sleep_for(300ms);
    const long idle = status_kib(child, "VmRSS");
    std::printf("front door idle: VmRSS %ld KiB\n", idle);

    struct Attack {
        const char* name;
        std::size_t header_bytes;  // sent after connecting (0: nothing)
        bool hello_4k;
    };
    const Attack attacks[] = {{"1000 idle connections from 500 addresses", 0, false},
                              {"1000 connections, each a 4 KiB hello", 0, true},
                              {"1000 connections, each a 1 MiB json header", 12, false}};
    auto big = oob::encode_json({{"cmd", "hello"}, {"pad", std::string((1u << 20) - 64, 'x')}});
    auto hello = oob::encode_json({{"cmd", "hello"}, {"pad", std::string(4000, 'x')}});
    for (const Attack& at : attacks) {
        std::vector<int> fds;
        for (unsigned i = 0; i < 1000; ++i) {
            const int fd = connect_from(port, 2 + i / 2);
            if (fd < 0) continue;
            if (at.hello_4k) (void)!::write(fd, hello->data(), hello->size());
            if (at.header_bytes) (void)!::write(fd, big->data(), 4096);
            fds.push_back(fd);
        }
        int probes_ok = 0, keyed_ok = 0;
        legit(port, 20, probes_ok, keyed_ok);
        std::printf(
            "%s: VmRSS %ld KiB (+%ld over idle), VmHWM %ld KiB; legitimate probes %d/20, "
            "keyed commands %d/20\n",
            at.name, status_kib(child, "VmRSS"), status_kib(child, "VmRSS") - idle,
            status_kib(child, "VmHWM"), probes_ok, keyed_ok);
        for (int fd : fds) ::close(fd);
        std::this_thread::sleep_for(500ms);
    }
    ::kill(child, SIGTERM);
    int st = 0;
    ::waitpid(child, &st, 0);
    return 0;
}
