#include "agent/fabric/prom_response.h"

#include <charconv>
#include <cmath>
#include <limits>

#include <nlohmann/json.hpp>

namespace rh::fabric {

namespace {

constexpr std::size_t kMaxServerText = 512;

Error malformed(const std::string& what) {
    return Error("decode", "Prometheus answer", 0, what, kCauseMalformed);
}

std::string clipped(const std::string& s) {
    return s.size() <= kMaxServerText ? s : s.substr(0, kMaxServerText) + "...";
}

/// "1.5", "NaN", "+Inf", "-Inf" (Prometheus' sample value text); nullopt for anything else.
bool parse_value(const std::string& s, double& out) {
    if (s == "NaN") {
        out = std::numeric_limits<double>::quiet_NaN();
        return true;
    }
    if (s == "+Inf" || s == "Inf") {
        out = std::numeric_limits<double>::infinity();
        return true;
    }
    if (s == "-Inf") {
        out = -std::numeric_limits<double>::infinity();
        return true;
    }
    if (s.empty()) return false;
    const auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), out);
    return ec == std::errc() && end == s.data() + s.size();
}

}  // namespace

std::string clipped_server_text(const std::string& s) {
    return clipped(s);
}

Result<nlohmann::json> decode_api_data(std::string_view body) {
    auto doc = nlohmann::json::parse(body, nullptr, false);
    if (doc.is_discarded()) return malformed("not JSON");
    if (!doc.is_object()) return malformed("not a JSON object");
    const auto status = doc.find("status");
    if (status == doc.end() || !status->is_string()) return malformed("no \"status\" string");
    if (*status == "error") {
        const auto type = doc.find("errorType");
        const auto text = doc.find("error");
        return Error("query", "Prometheus", 0,
                     "Prometheus error " +
                         clipped(type != doc.end() && type->is_string() ? type->get<std::string>()
                                                                        : "(no errorType)") +
                         ": " +
                         clipped(text != doc.end() && text->is_string() ? text->get<std::string>()
                                                                        : "(no error text)"),
                     kCausePrometheusError);
    }
    if (*status != "success") return malformed("\"status\" is neither success nor error");
    const auto data = doc.find("data");
    if (data == doc.end() || !data->is_object()) return malformed("no \"data\" object");
    return std::move(*data);
}

Result<std::vector<PromSeries>> decode_matrix(std::string_view body, std::size_t max_series) {
    auto api = decode_api_data(body);
    if (!api) return api.error();
    const nlohmann::json* data = &*api;
    const auto type = data->find("resultType");
    if (type == data->end() || !type->is_string())
        return malformed("no \"data.resultType\" string");
    if (*type != "matrix")
        return malformed("\"data.resultType\" is " + clipped(type->get<std::string>()) +
                         ", expected matrix");
    const auto result = data->find("result");
    if (result == data->end() || !result->is_array()) return malformed("no \"data.result\" array");
    if (result->size() > max_series)
        return Error("query", "Prometheus", 0,
                     "more than " + std::to_string(max_series) + " series", kCauseTooManySeries);
    std::vector<PromSeries> out;
    out.reserve(result->size());
    for (const auto& s : *result) {
        if (!s.is_object()) return malformed("a \"data.result\" entry is not an object");
        const auto metric = s.find("metric");
        const auto values = s.find("values");
        if (metric == s.end() || !metric->is_object())
            return malformed("a series without a \"metric\" object");
        if (values == s.end() || !values->is_array())
            return malformed("a series without a \"values\" array");
        PromSeries ps;
        for (const auto& [k, v] : metric->items()) {
            if (!v.is_string()) return malformed("label " + clipped(k) + " is not a string");
            ps.labels[k] = v.get<std::string>();
        }
        ps.points.reserve(values->size());
        for (const auto& p : *values) {
            if (!p.is_array() || p.size() != 2 || !p[0].is_number() || !p[1].is_string())
                return malformed("a point is not [unix_s, \"value\"]");
            PromPoint pt;
            pt.t_s = p[0].get<double>();
            if (!std::isfinite(pt.t_s)) return malformed("a point's time is not finite");
            if (!parse_value(p[1].get<std::string>(), pt.value))
                return malformed("a point's value is not a number: " +
                                 clipped(p[1].get<std::string>()));
            ps.points.push_back(pt);
        }
        out.push_back(std::move(ps));
    }
    return out;
}

}  // namespace rh::fabric
