#include "agent/fabric/prom_response.h"

#include <charconv>
#include <cmath>
#include <limits>
#include <new>
#include <optional>

#include <nlohmann/json.hpp>

namespace rh::fabric {

namespace {

constexpr std::size_t kMaxServerText = 512;

Error malformed(const std::string& what) {
    return Error("decode", "Prometheus answer", 0, what, kCauseMalformed);
}

/// At most about kMaxServerText bytes of a server's text: its start and its end, for the
/// reason comes last where the text echoes the query first (VictoriaMetrics: "error when
/// executing query=... on the time range ...: cannot ...").
std::string clipped(const std::string& s) {
    if (s.size() <= kMaxServerText) return s;
    const std::size_t tail = kMaxServerText * 2 / 3;
    return s.substr(0, kMaxServerText - tail) + " [" + std::to_string(s.size() - kMaxServerText) +
           " bytes left out] " + s.substr(s.size() - tail);
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

Error prometheus_api_error(const std::optional<std::string>& type,
                           const std::optional<std::string>& text) {
    return Error("query", "Prometheus", 0,
                 "Prometheus error " + clipped(type ? *type : "(no errorType)") + ": " +
                     clipped(text ? *text : "(no error text)"),
                 kCausePrometheusError);
}

std::string clipped_server_text(const std::string& s) {
    return clipped(s);
}

namespace {

/// nlohmann's SAX events of a query_range answer (a matrix: each series' "values") or, with
/// `vector`, of a query answer (each series' one "value"), kept as they come: labels and points
/// of each series, the status and error texts (clipped); everything else (warnings, stats,
/// unknown keys) skipped without being stored. Memory: the series themselves, never a document
/// tree. Returns false (parse ends) at the first fault, recorded in `fault`.
class MatrixSax {
  public:
    using json = nlohmann::json;

    MatrixSax(std::size_t max_series, bool vector) : max_series_(max_series), vector_(vector) {}

    /// The resultType expected: "vector" or "matrix".
    std::string_view expected_type() const { return vector_ ? "vector" : "matrix"; }

    std::vector<PromSeries> out;
    std::optional<Error> fault;
    // What the root and data objects held (checked at the end: keys come in any order).
    std::optional<std::string> status, error_type, error_text, result_type;
    bool top_not_object = false;
    bool data_seen = false, data_is_object = false;
    bool result_seen = false, result_is_array = false;

    bool null() { return scalar(Kind::other); }
    bool boolean(bool) { return scalar(Kind::other); }
    bool number_integer(json::number_integer_t v) { return number(static_cast<double>(v)); }
    bool number_unsigned(json::number_unsigned_t v) { return number(static_cast<double>(v)); }
    bool number_float(json::number_float_t v, const json::string_t&) { return number(v); }
    bool binary(json::binary_t&) { return scalar(Kind::other); }
    bool string(json::string_t& v) {
        text_ = &v;
        return scalar(Kind::string);
    }
    bool key(json::string_t& k) {
        key_ = std::move(k);
        return true;
    }
    bool start_object(std::size_t) { return open(true); }
    bool start_array(std::size_t) { return open(false); }
    bool end_object() { return close(); }
    bool end_array() { return close(); }
    bool parse_error(std::size_t, const std::string&, const nlohmann::detail::exception&) {
        if (!fault) fault = malformed("not JSON");
        return false;
    }

  private:
    enum class Ctx { root, data, result, series, metric, values, point, skip };
    enum class Kind { string, number, other };

    bool fail(Error e) {
        if (!fault) fault = std::move(e);
        return false;
    }

    bool number(double v) {
        num_ = v;
        return scalar(Kind::number);
    }

    /// A scalar in the current container (under key_ when it is an object).
    bool scalar(Kind kind) {
        if (skip_depth_ > 0) return true;
        if (stack_.empty()) {  // told once the parse ends: JSON or not
            top_not_object = true;
            return true;
        }
        switch (stack_.back()) {
            case Ctx::root:
                if (key_ == "status") {
                    if (kind == Kind::string) status = clipped(*text_);
                } else if (key_ == "errorType" && kind == Kind::string) {
                    error_type = clipped(*text_);
                } else if (key_ == "error" && kind == Kind::string) {
                    error_text = clipped(*text_);
                } else if (key_ == "data") {
                    data_seen = true;
                }
                return true;
            case Ctx::data:
                if (key_ == "resultType") {
                    if (kind == Kind::string) result_type = clipped(*text_);
                } else if (key_ == "result") {
                    result_seen = true;
                }
                return true;
            case Ctx::result:
                return fail(malformed("a \"data.result\" entry is not an object"));
            case Ctx::series:
                if (key_ == "metric")
                    return fail(malformed("a series without a \"metric\" object"));
                if (key_ == points_key()) return fail(malformed(no_points()));
                return true;
            case Ctx::metric:
                if (kind != Kind::string)
                    return fail(malformed("label " + clipped(key_) + " is not a string"));
                out.back().labels[key_] = std::move(*text_);
                return true;
            case Ctx::values:
                return fail(malformed("a point is not [unix_s, \"value\"]"));
            case Ctx::point:
                return point_item(kind);
            case Ctx::skip:
                return true;
        }
        return true;
    }

    bool point_item(Kind kind) {
        PromPoint& pt = out.back().points.back();
        if (point_items_ == 0) {
            if (kind != Kind::number) return fail(malformed("a point is not [unix_s, \"value\"]"));
            pt.t_s = num_;
            if (!std::isfinite(pt.t_s)) return fail(malformed("a point's time is not finite"));
        } else if (point_items_ == 1) {
            if (kind != Kind::string) return fail(malformed("a point is not [unix_s, \"value\"]"));
            if (!parse_value(*text_, pt.value))
                return fail(malformed("a point's value is not a number: " + clipped(*text_)));
        } else {
            return fail(malformed("a point is not [unix_s, \"value\"]"));
        }
        ++point_items_;
        return true;
    }

    /// An object (`object`) or array begins in the current container.
    bool open(bool object) {
        if (skip_depth_ > 0) {
            ++skip_depth_;
            return true;
        }
        if (stack_.empty()) {
            if (!object) {
                top_not_object = true;
                skip_depth_ = 1;
                return true;
            }
            stack_.push_back(Ctx::root);
            return true;
        }
        Ctx next = Ctx::skip;
        switch (stack_.back()) {
            case Ctx::root:
                if (key_ == "data") {
                    if (data_seen) return fail(malformed("\"data\" appears twice"));
                    data_seen = true;
                    data_is_object = object;
                    if (object) next = Ctx::data;
                }
                break;
            case Ctx::data:
                if (key_ == "result") {
                    if (result_seen) return fail(malformed("\"data.result\" appears twice"));
                    result_seen = true;
                    result_is_array = !object;
                    if (result_type && *result_type != expected_type())
                        return fail(malformed("\"data.resultType\" is " + *result_type +
                                              ", expected " + std::string(expected_type())));
                    if (!object) next = Ctx::result;
                }
                break;
            case Ctx::result:
                if (!object) return fail(malformed("a \"data.result\" entry is not an object"));
                if (out.size() >= max_series_)
                    return fail(Error("query", "Prometheus", 0,
                                      "more than " + std::to_string(max_series_) + " series",
                                      kCauseTooManySeries));
                out.emplace_back();
                has_metric_ = has_values_ = false;
                next = Ctx::series;
                break;
            case Ctx::series:
                if (key_ == "metric") {
                    if (!object || has_metric_)
                        return fail(malformed("a series without a \"metric\" object"));
                    has_metric_ = true;
                    next = Ctx::metric;
                } else if (key_ == points_key()) {
                    if (object || has_values_) return fail(malformed(no_points()));
                    has_values_ = true;
                    if (vector_) {  // the point itself: [unix_s, "value"]
                        out.back().points.emplace_back();
                        point_items_ = 0;
                        next = Ctx::point;
                    } else {
                        next = Ctx::values;
                    }
                }
                break;
            case Ctx::metric:
                return fail(malformed("label " + clipped(key_) + " is not a string"));
            case Ctx::values:
                if (object) return fail(malformed("a point is not [unix_s, \"value\"]"));
                out.back().points.emplace_back();
                point_items_ = 0;
                next = Ctx::point;
                break;
            case Ctx::point:
                return fail(malformed("a point is not [unix_s, \"value\"]"));
            case Ctx::skip:
                break;
        }
        if (next == Ctx::skip)
            skip_depth_ = 1;  // a counter, not a stack: deep nesting in what is skipped is free
        else
            stack_.push_back(next);
        return true;
    }

    bool close() {
        if (skip_depth_ > 0) {
            --skip_depth_;
            return true;
        }
        const Ctx done = stack_.back();
        stack_.pop_back();
        if (done == Ctx::point && point_items_ != 2)
            return fail(malformed("a point is not [unix_s, \"value\"]"));
        if (done == Ctx::series && !has_metric_)
            return fail(malformed("a series without a \"metric\" object"));
        if (done == Ctx::series && !has_values_) return fail(malformed(no_points()));
        return true;
    }

    /// A series' points: "values" (matrix) or "value" (vector), and the fault without them.
    std::string_view points_key() const { return vector_ ? "value" : "values"; }
    std::string no_points() const {
        return vector_ ? "a series without a \"value\" point"
                       : "a series without a \"values\" array";
    }

    std::size_t max_series_;
    const bool vector_;       ///< a query answer (vector), else a query_range one (matrix)
    std::vector<Ctx> stack_;  ///< at most 7 deep: root data result series values point
    std::size_t skip_depth_ = 0;
    std::string key_;
    json::string_t* text_ = nullptr;
    double num_ = 0;
    std::size_t point_items_ = 0;
    bool has_metric_ = false, has_values_ = false;
};

}  // namespace

namespace {

Result<std::vector<PromSeries>> decode(std::string_view body, std::size_t max_series, bool vector) {
    MatrixSax sax(max_series, vector);
    bool parsed = false;
    try {
        parsed = nlohmann::json::sax_parse(body, &sax);
    } catch (const std::bad_alloc&) {
        throw;  // out of memory is no malformed answer: the command says what to ask for less
    } catch (const std::exception&) {  // sax_parse reports through parse_error; belt and braces
        parsed = false;
    }
    if (!parsed || sax.fault) {
        // A series fault in an answer whose status says "error" is the server's error.
        if (sax.status == "error" && (!sax.fault || sax.fault->cause == kCauseMalformed))
            return prometheus_api_error(sax.error_type, sax.error_text);
        return sax.fault ? *sax.fault : malformed("not JSON");
    }
    if (sax.top_not_object) return malformed("not a JSON object");
    if (!sax.status) return malformed("no \"status\" string");
    if (*sax.status == "error") return prometheus_api_error(sax.error_type, sax.error_text);
    if (*sax.status != "success") return malformed("\"status\" is neither success nor error");
    if (!sax.data_is_object) return malformed("no \"data\" object");
    if (!sax.result_type) return malformed("no \"data.resultType\" string");
    if (*sax.result_type != sax.expected_type())
        return malformed("\"data.resultType\" is " + *sax.result_type + ", expected " +
                         std::string(sax.expected_type()));
    if (!sax.result_is_array) return malformed("no \"data.result\" array");
    return std::move(sax.out);
}

}  // namespace

Result<std::vector<PromSeries>> decode_matrix(std::string_view body, std::size_t max_series) {
    return decode(body, max_series, false);
}

Result<std::vector<PromSeries>> decode_vector(std::string_view body, std::size_t max_series) {
    return decode(body, max_series, true);
}

}  // namespace rh::fabric
