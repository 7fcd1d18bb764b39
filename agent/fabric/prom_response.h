// The answer of Prometheus' HTTP API to /api/v1/query_range (and /api/v1/query), decoded strictly.
// The body is untrusted input (any server, any proxy in between): every field is type-checked and
// the series count is bounded before anything is kept. Decoded as a stream (nlohmann's SAX
// interface) straight into the series: no tree of the whole answer is built, so decoding costs
// about the answer's size again, not ~7-34x (bench/README.md, rocehealth_prom_decode_bench).
// Fuzzed by tests/fuzz/fuzz_prom_response.cpp.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/result.h"
#include "core/sample.h"

namespace rh::fabric {

/// One point of a range answer: UTC seconds since the epoch and the sample value (NaN and ±Inf
/// are kept as such: Prometheus writes them "NaN", "+Inf", "-Inf").
struct PromPoint {
    double t_s = 0;
    double value = 0;
};

/// One series of a range answer: its labels (`__name__` included when Prometheus kept it) and
/// its points in the order given (Prometheus sends them in time order).
struct PromSeries {
    Labels labels;
    std::vector<PromPoint> points;
};

/// Error::cause values of decode_matrix (and PromClient, prom_client.h).
inline constexpr const char* kCausePrometheusError = "prometheus_error";  ///< status "error"
inline constexpr const char* kCauseMalformed = "malformed";               ///< not the API's shape
inline constexpr const char* kCauseTooManySeries = "too_many_series";

/// The API's own error (status "error"): kCausePrometheusError, detail "Prometheus error
/// ERRORTYPE: ERROR" ("(no errorType)", "(no error text)" when absent), each text clipped.
Error prometheus_api_error(const std::optional<std::string>& type,
                           const std::optional<std::string>& text);

/// Text from the server for a message: at most 512 bytes, "..." after a cut.
std::string clipped_server_text(const std::string& s);

/// Decodes a query_range body: {"status": "success", "data": {"resultType": "matrix",
/// "result": [{"metric": {name: string}, "values": [[unix_s number, "value" string], ...]}]}}.
/// Errors (Error::cause above):
/// - status "error": detail "Prometheus error ERRORTYPE: ERROR" with the server's texts
///   (truncated to 512 bytes each);
/// - anything else not of that shape (not JSON, a missing or mistyped field, a resultType other
///   than matrix, a value that is not a number): detail says which field;
/// - more than `max_series` series: kCauseTooManySeries, detail "more than N series".
/// Never throws.
Result<std::vector<PromSeries>> decode_matrix(std::string_view body, std::size_t max_series);

/// Decodes a /api/v1/query body the same way: resultType "vector", each series with one
/// "value": [unix_s number, "value" string] (its one point). Errors as decode_matrix's (a
/// resultType other than vector; "a series without a \"value\" point"). Never throws.
Result<std::vector<PromSeries>> decode_vector(std::string_view body, std::size_t max_series);

}  // namespace rh::fabric
