// Strict reading of the JSON files people write (the agent's config, the rules file): stricter
// than nlohmann::json::parse, and every error names the file and where in it.
#pragma once

#include <string>

#include <nlohmann/json.hpp>

#include "core/result.h"

namespace rh {

/// Deepest nesting of objects and arrays parse_json_text accepts. Every document rocehealth reads
/// (config, rules, specs, control frames) nests under 10 levels.
inline constexpr std::size_t kMaxJsonDepth = 64;

/// Parses `text`, the content of `name` (a path, or "body" for a request), as one JSON document.
/// Errors (op `op`, subject `name`, err_no 0):
///  - nesting deeper than kMaxJsonDepth: "nested deeper than 64 levels at op[0][0]...";
///  - a key given twice in one object (nlohmann would keep the last silently), named by its
///    path: "duplicate key http.listen (each key once per object)", "duplicate key
///    rules[3].when.window_s (...)";
///  - a syntax error or a number no double holds (1e400), with the line and column (1-based,
///    as nlohmann counts them) and the field it was in when inside an object or array:
///    "not valid JSON at line 3, column 28 (collect_interval_s): number overflow parsing
///    '1e400'".
Result<nlohmann::json> parse_json_text(const std::string& text, const std::string& name,
                                       const std::string& op);

/// Reads file `path` whole and parse_json_text(content, path, op). A file that cannot be opened
/// is an errno error (op `op`, subject `path`).
Result<nlohmann::json> read_json_file(const std::string& path, const std::string& op);

}  // namespace rh
