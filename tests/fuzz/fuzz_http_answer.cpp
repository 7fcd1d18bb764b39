// libFuzzer harness: an HTTP/1.x answer as the Prometheus client reads it from the network
// (agent/fabric/bounded_get.h, read_http_answer: status line, headers, Content-Length, chunked
// bodies with extensions and trailers, bodies until close), fed through a socketpair, at a
// roomy and a tiny bound. An answer must respect the bounds; an error must say what went wrong
// and carry one of the reader's causes.
#include <sys/socket.h>
#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <thread>

#include "agent/fabric/bounded_get.h"

namespace {

void read_once(const std::uint8_t* data, std::size_t size, std::size_t max_header,
               std::size_t max_body) {
    int sv[2];
    if (::socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) != 0) std::abort();
    std::thread writer([fd = sv[1], data, size] {
        std::size_t off = 0;
        while (off < size) {
            const ssize_t n = ::send(fd, data + off, size - off, MSG_NOSIGNAL);
            if (n <= 0) break;  // the reader stopped and closed its end
            off += static_cast<std::size_t>(n);
        }
        ::shutdown(fd, SHUT_WR);
    });
    rh::fabric::GetLimits lim;
    lim.deadline_s = 10;
    lim.max_header_bytes = max_header;
    lim.max_body_bytes = max_body;
    std::string body;
    const auto r = rh::fabric::read_http_answer(sv[0], lim, "http://fuzz/", body);  // closes sv[0]
    writer.join();
    ::close(sv[1]);
    if (r) {
        if (*r < 200 || *r > 599 || body.size() > max_body) std::abort();
        return;
    }
    const std::string& c = r.error().cause;
    if (r.error().detail.empty() ||
        (c != rh::fabric::kCauseBadHttp && c != rh::fabric::kCauseTooManyBytes &&
         c != rh::fabric::kCauseUnreachable && c != rh::fabric::kCauseTimeout))
        std::abort();
    if (c == rh::fabric::kCauseTimeout) std::abort();  // every input ends: the writer closes
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    read_once(data, size, 64 << 10, 1 << 20);
    read_once(data, size, 64, 16);
    return 0;
}
