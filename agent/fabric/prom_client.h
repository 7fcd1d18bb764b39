// A client of Prometheus' HTTP API (also served by Mimir, Thanos and VictoriaMetrics):
// /api/v1/query_range, paged by time so that each answer stays bounded, and /api/v1/query at one
// time, with bounded bytes and series. Requests go through bounded_get (one deadline, header and
// body caps, a stop flag).
#pragma once

#include <atomic>
#include <cstddef>
#include <map>
#include <string>
#include <vector>

#include "agent/fabric/bounded_get.h"
#include "agent/fabric/prom_response.h"
#include "agent/fabric/prom_targets.h"
#include "core/result.h"

namespace rh::fabric {

/// Error::cause values of PromClient besides prom_response.h's and bounded_get.h's.
/// Non-2xx without an API error; detail "HTTP status N, answer '<the body's first 120 bytes>'".
inline constexpr const char* kCauseHttpStatus = "http_status";

/// Bounds of one query. Points per page: Prometheus refuses more than 11,000 points per series
/// in one answer; pages are much smaller so an answer of many series stays small.
struct PromLimits {
    std::size_t max_answer_bytes = 256u << 20;  ///< bytes of one page's answer
    std::size_t max_series = 50000;             ///< series of one query (all pages merged)
    std::size_t page_points = 250;              ///< points per series per page, 1..11000
    double timeout_s = 30;  ///< one request, whole: connect, TLS, headers and body
    std::size_t max_header_bytes = 64u << 10;  ///< status line and headers of one answer
    /// Set by another thread to end a request within ~100 ms (the agent's shutdown); nullptr:
    /// none. Must outlive the client.
    const std::atomic<bool>* stop = nullptr;
    /// How the user sets timeout_s and max_answer_bytes, for messages.
    std::string timeout_option = "--timeout";
    std::string max_answer_option = "--max-answer-bytes";
};

/// "http[s]://host:port[/prefix]": where the API lives (https: OpenSSL,
/// the system's CA store).
struct PromEndpoint {
    std::string scheme_host_port;  ///< "http://prom.example:9090"
    std::string path_prefix;  ///< "" or "/prometheus" (a reverse proxy's prefix), no "/" at the end
    /// Sent with every request (Mimir's tenant: `X-Scope-OrgID`); parse_prometheus_url sets none.
    std::vector<HttpHeader> headers;
};

/// Parses --prometheus. Errors: not http:// or https://, no host, a bad port.
Result<PromEndpoint> parse_prometheus_url(const std::string& url);

class PromClient {
  public:
    PromClient(PromEndpoint endpoint, PromLimits limits)
        : ep_(std::move(endpoint)), lim_(std::move(limits)) {}

    /// Runs `promql` over [from_s, to_s] (UTC seconds) at `step_s` seconds, in pages of
    /// limits.page_points points, and merges the pages' series by label set (points in time
    /// order). Errors (Error::cause): kCauseUnreachable (detail names the URL and the
    /// reason), kCauseTimeout, kCauseStopped, kCauseBadHttp (bounded_get.h), kCausePrometheusError
    /// (the server's errorType and error), kCauseTooManyBytes / kCauseTooManySeries (a limit
    /// exceeded), kCauseHttpStatus, kCauseMalformed.
    Result<std::vector<PromSeries>> query_range(const std::string& promql, double from_s,
                                                double to_s, double step_s) const;

    /// Runs `promql` at one time `t_s` (UTC seconds): GET /api/v1/query, one point a series
    /// (decode_vector). For what is read at a range's end: a query_range with start = end can be
    /// empty where the server moves its end back (VictoriaMetrics: end > now - its
    /// -search.latencyOffset, 30 s by default, becomes that), while an instant query there is
    /// answered. Errors as query_range.
    Result<std::vector<PromSeries>> query_at(const std::string& promql, double t_s) const;

    /// GET /api/v1/targets?state=active, decoded (decode_targets), at most `max_targets`;
    /// limits.max_answer_bytes bounds the answer. Errors as query_range, subject the URL,
    /// plus kCauseTooManyTargets.
    Result<std::vector<PromTarget>> active_targets(std::size_t max_targets) const;

    const PromLimits& limits() const { return lim_; }

  private:
    /// GETs `path` (under the prefix) and decodes its body with `decode`; errors have `url` as
    /// subject: no answer, too many bytes, a non-2xx status without an API error, the decoder's.
    template <typename T, typename Decode>
    Result<T> get(const std::string& path, const std::multimap<std::string, std::string>& params,
                  Decode decode, const std::string& url) const;

    PromEndpoint ep_;
    PromLimits lim_;
};

}  // namespace rh::fabric
