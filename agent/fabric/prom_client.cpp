#include "agent/fabric/prom_client.h"

#include <charconv>
#include <cmath>
#include <map>

namespace rh::fabric {

namespace {

/// Seconds as Prometheus takes them: decimal, up to milliseconds.
std::string seconds_param(double t_s) {
    char buf[64];
    const auto r = std::to_chars(buf, buf + sizeof buf, t_s, std::chars_format::fixed, 3);
    return std::string(buf, r.ptr);
}

/// The start of an answer's body for an error message: at most 120 bytes, printable ASCII, runs
/// of white space and other bytes as one space ("" for an empty body).
std::string body_excerpt(const std::string& body) {
    std::string out;
    for (const char c : body) {
        if (out.size() >= 120) {
            out += "...";
            break;
        }
        const bool printable = c > ' ' && c < 0x7f;
        if (printable)
            out += c;
        else if (!out.empty() && out.back() != ' ')
            out += ' ';
    }
    while (!out.empty() && out.back() == ' ') out.pop_back();
    return out;
}

}  // namespace

Result<PromEndpoint> parse_prometheus_url(const std::string& url) {
    const std::string scheme = url.rfind("https://", 0) == 0 ? "https://" : "http://";
    if (url.rfind(scheme, 0) != 0)
        return Error("parse", "--prometheus " + url, 0,
                     "expected http://HOST[:PORT][/PREFIX] or https://...");
    const std::string rest = url.substr(scheme.size());
    const std::size_t slash = rest.find('/');
    const std::string authority = rest.substr(0, slash);
    std::string prefix = slash == std::string::npos ? "" : rest.substr(slash);
    while (!prefix.empty() && prefix.back() == '/') prefix.pop_back();
    if (authority.empty() || authority.front() == ':')
        return Error("parse", "--prometheus " + url, 0, "no host name");
    if (authority.find('@') != std::string::npos)
        return Error("parse", "--prometheus " + url, 0,
                     "credentials in the URL (USER:PASSWORD@) are not sent: give "
                     "--header 'Authorization: Basic BASE64' (or Bearer TOKEN) instead");
    if (authority.find_first_of("?# ") != std::string::npos)
        return Error("parse", "--prometheus " + url, 0,
                     "the host part holds a character a host cannot have (?, #, space)");
    // The API's paths and query strings go after the prefix: a query string or fragment here
    // would end up in front of them ("/?x=1/api/v1/query_range").
    if (prefix.find_first_of("?# \t") != std::string::npos)
        return Error("parse", "--prometheus " + url, 0,
                     "the path part holds ?, # or a space: give the path prefix only "
                     "(http://HOST:PORT/PREFIX, e.g. /prometheus or /select/0/prometheus)");
    const std::size_t colon = authority.rfind(':');
    if (colon != std::string::npos && authority.find(']') == std::string::npos) {
        const std::string port = authority.substr(colon + 1);
        long v = -1;
        if (port.empty() || port.size() > 5 ||
            port.find_first_not_of("0123456789") != std::string::npos ||
            (v = std::stol(port)) < 1 || v > 65535)
            return Error("parse", "--prometheus " + url, 0, "bad port '" + port + "'");
    }
    return PromEndpoint{scheme + authority, prefix, {}};
}

template <typename T, typename Decode>
Result<T> PromClient::get(const std::string& path,
                          const std::multimap<std::string, std::string>& params, Decode decode,
                          const std::string& url) const {
    std::string target = ep_.path_prefix + path;
    char sep = '?';
    for (const auto& [k, v] : params) {
        target += sep + url_encode(k) + "=" + url_encode(v);
        sep = '&';
    }
    GetLimits gl;
    gl.deadline_s = lim_.timeout_s;
    gl.max_header_bytes = lim_.max_header_bytes;
    gl.max_body_bytes = lim_.max_answer_bytes;
    gl.stop = lim_.stop;
    gl.timeout_option = lim_.timeout_option;
    gl.max_body_option = lim_.max_answer_option;
    std::string body;
    const auto status = bounded_get(ep_.scheme_host_port, target, ep_.headers, gl, url, body);
    if (!status) return status.error();
    Result<T> r = decode(body);
    if (r) return r;
    // The API's own error comes with 4xx/5xx; only a body without one is an HTTP error.
    if (r.error().cause == kCauseMalformed && (*status < 200 || *status > 299))
        return Error("query", url, 0,
                     "HTTP status " + std::to_string(*status) +
                         (body.empty() ? "" : ", answer '" + body_excerpt(body) + "'"),
                     kCauseHttpStatus);
    Error e = r.error();
    e.subject = url;
    // A 2xx body not in the API's shape (a web page, another server's API): show its start.
    if (e.cause == kCauseMalformed && !body.empty())
        e.detail += ", answer '" + body_excerpt(body) + "'";
    return e;
}

Result<std::vector<PromTarget>> PromClient::active_targets(std::size_t max_targets) const {
    return get<std::vector<PromTarget>>(
        "/api/v1/targets", {{"state", "active"}},
        [max_targets](const std::string& body) { return decode_targets(body, max_targets); },
        ep_.scheme_host_port + ep_.path_prefix + "/api/v1/targets");
}

Result<std::vector<PromSeries>> PromClient::query_at(const std::string& promql, double t_s) const {
    return get<std::vector<PromSeries>>(
        "/api/v1/query", {{"query", promql}, {"time", seconds_param(t_s)}},
        [this](const std::string& body) { return decode_vector(body, lim_.max_series); },
        ep_.scheme_host_port + ep_.path_prefix);
}

Result<std::vector<PromSeries>> PromClient::query_range(const std::string& promql, double from_s,
                                                        double to_s, double step_s) const {
    const double page_s = step_s * static_cast<double>(lim_.page_points - 1);
    const std::string url = ep_.scheme_host_port + ep_.path_prefix;
    std::map<Labels, std::size_t> index;
    std::vector<PromSeries> merged;
    for (double start = from_s; start <= to_s; start += page_s + step_s) {
        const double end = std::min(to_s, start + page_s);
        auto page = get<std::vector<PromSeries>>(
            "/api/v1/query_range",
            {{"query", promql},
             {"start", seconds_param(start)},
             {"end", seconds_param(end)},
             {"step", seconds_param(step_s)}},
            [this](const std::string& body) { return decode_matrix(body, lim_.max_series); }, url);
        if (!page) return page.error();
        for (PromSeries& s : *page) {
            const auto [it, fresh] = index.emplace(s.labels, merged.size());
            if (fresh) {
                if (merged.size() >= lim_.max_series)
                    return Error("query", url, 0,
                                 "more than " + std::to_string(lim_.max_series) + " series",
                                 kCauseTooManySeries);
                merged.push_back(std::move(s));
            } else {
                auto& pts = merged[it->second].points;
                pts.insert(pts.end(), s.points.begin(), s.points.end());
            }
        }
    }
    return merged;
}

}  // namespace rh::fabric
