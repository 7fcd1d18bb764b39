// Text helpers shared by the HTML, SVG and Markdown renderers: escaping for HTML/SVG and
// Markdown (report strings come from the network: host names, finding text), and number, size,
// time formatting with units.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "agent/accept/report_model.h"

namespace rh::accept {

/// Escapes for HTML/SVG text and attribute values: & < > " ' become entities; control
/// characters other than tab and newline become U+FFFD.
std::string html_escape(std::string_view s);

/// Escapes for Markdown text and table cells: backslash before \ ` * _ [ ] < > | ~ & and
/// newlines become spaces, so a value cannot open a link, code span, HTML tag or a new cell.
std::string md_escape(std::string_view s);

/// `v` with `decimals` digits after the point ("3.14"); "-" for nullopt.
std::string fixed(std::optional<double> v, int decimals);
/// Three significant digits without an exponent: 0.0123, 1.23, 12.3, 123, 1230, 12300.
std::string sig3(double v);
/// "2.500" -> "2.5", "3.000" -> "3": no trailing zeros after a decimal point.
std::string trim_zeros(std::string s);
/// 64 -> "64 B", 4096 -> "4 KiB", 65536 -> "64 KiB", 1048576 -> "1 MiB", 1500 -> "1500 B".
std::string size_text(std::uint64_t bytes);
/// UTC ms since the epoch -> "2026-11-29 10:00:05Z"; "unknown" for 0.
std::string utc_text(std::int64_t wall_ms);
/// Seconds -> "42 s", "3 min 05 s", "1 h 02 min".
std::string duration_text(double seconds);
/// A threshold or measured value with its unit: 0.823 "fraction" -> "82.3 %", 12.5 "us" -> "12.5
/// µs", strings as they are, null -> "not measured".
std::string scalar_text(const Scalar& s, const std::string& unit);
/// Unit as shown to a person: "us" -> "µs", "gbps" -> "Gb/s", "mib_s" -> "MiB/s", else as is.
std::string unit_text(const std::string& unit);

}  // namespace rh::accept
