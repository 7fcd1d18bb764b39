// One HTTP/1.1 GET with every resource bounded, for answers from servers we do not control
// (Prometheus and whatever proxy is in front of it). cpp-httplib 0.11's client bounds none of
// these: its timeout is per read (a byte every 1.5 s never ends a request), a header line grows
// without limit, and it cannot be told to stop from another thread. Here:
// - one deadline covers name lookup's aftermath, connect, TLS, request, headers and body;
// - `stop` (the agent's shutdown flag) ends a request within ~100 ms;
// - the status line and headers are at most `max_header_bytes` in total;
// - the body is counted while it is read (Content-Length, chunked or until close) and the read
//   stops at `max_body_bytes`.
// http:// and https:// (OpenSSL, the system's CA store, the host name checked).
#pragma once

#include <atomic>
#include <cstddef>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "core/result.h"

namespace rh::fabric {

/// Error::cause values of bounded_get (prom_client.h re-exports them to its callers).
inline constexpr const char* kCauseUnreachable = "unreachable";  ///< no HTTP answer at all
inline constexpr const char* kCauseTimeout = "timeout";          ///< the deadline passed
inline constexpr const char* kCauseStopped = "stopped";          ///< `stop` was set
inline constexpr const char* kCauseTooManyBytes = "too_many_bytes";
inline constexpr const char* kCauseBadHttp = "bad_http";  ///< not an HTTP/1.x answer we read

/// Bounds of one request. The option names go into error messages, so that the user learns
/// which knob to turn ("--timeout", "mesh.peers_prometheus.timeout_s").
struct GetLimits {
    double deadline_s = 30;                   ///< the whole request, > 0
    std::size_t max_header_bytes = 64 << 10;  ///< status line and headers, in total
    std::size_t max_body_bytes = 256u << 20;  ///< the body after de-chunking
    const std::atomic<bool>* stop = nullptr;  ///< checked every <= 100 ms; nullptr: never
    std::string timeout_option = "--timeout";
    std::string max_body_option = "--max-answer-bytes";
};

/// A header sent with every request besides the client's own (Host, Accept, Accept-Encoding,
/// User-Agent, Connection): e.g. Mimir's tenant, `X-Scope-OrgID: tenant1`.
struct HttpHeader {
    std::string name;   ///< an RFC 9110 token, 1..256 characters
    std::string value;  ///< visible ASCII, spaces and tabs, at most 8192 bytes, no CR/LF
    bool operator==(const HttpHeader&) const = default;
};

/// Most headers a user may add, each at most kMaxHeaderValueBytes.
inline constexpr std::size_t kMaxExtraHeaders = 32;
inline constexpr std::size_t kMaxHeaderValueBytes = 8192;

/// "" when `h` may be sent, else why not: a name that is not a token, a value with a control
/// character (CR/LF would split the request) or over kMaxHeaderValueBytes, or a header this
/// client sets itself (Host, Accept, Accept-Encoding, User-Agent, Connection, Content-Length,
/// Transfer-Encoding): a second copy would leave the server to pick one.
std::string check_http_header(const HttpHeader& h);

/// check_http_header of `headers[i]`, and "header NAME given twice" when an earlier one has the
/// same name (names compare without case): a server given two tenants picks one silently.
std::string check_http_header_at(const std::vector<HttpHeader>& headers, std::size_t i);

/// "NAME: VALUE" (spaces around VALUE dropped) checked by check_http_header; the error's
/// detail says what is wrong, its subject is `text`.
Result<HttpHeader> parse_http_header(std::string_view text);

/// GETs `target` ("/api/v1/targets?state=active": path and encoded query) from
/// `scheme_host_port` ("http://prom:9090", "https://[fd00::1]:443"); the body goes into `body`,
/// the status code is returned; `headers` (checked by check_http_header) go with the request.
/// Errors (subject `url`, the URL for messages): kCauseUnreachable
/// (no such host, connect refused, TLS failure: detail says which), kCauseTimeout ("no complete
/// answer within 2 s (--timeout)"), kCauseStopped, kCauseTooManyBytes ("headers over 65536
/// bytes" or "the answer is over N bytes (--max-answer-bytes)"), kCauseBadHttp (not HTTP/1.x, a
/// bad chunk, a Content-Encoding other than identity, the connection closed mid-body).
Result<int> bounded_get(const std::string& scheme_host_port, const std::string& target,
                        const std::vector<HttpHeader>& headers, const GetLimits& limits,
                        const std::string& url, std::string& body);

/// The answer half of bounded_get on a connected plain socket `fd` whose request was sent
/// (non-blocking or not); takes `fd` and closes it. Same bounds and errors. For the fuzz harness
/// (tests/fuzz/fuzz_http_answer.cpp) and tests.
Result<int> read_http_answer(int fd, const GetLimits& limits, const std::string& url,
                             std::string& body);

/// `s` percent-encoded for a query string (RFC 3986 unreserved characters kept).
std::string url_encode(std::string_view s);

}  // namespace rh::fabric
