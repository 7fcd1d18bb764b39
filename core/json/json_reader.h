// The one strict JSON reader (issue 14 §6), after Prometheus' rulefmt: a reader walks a parsed
// document, reads typed fields (required or optional; string, enum, bool, whole number in a
// range, number in a range, array, object), refuses the keys nobody read where the caller asks,
// and COLLECTS every problem with its JSON path ("rules[3].for") instead of stopping at the
// first. JsonErrors carries the document's name (a file path, "body", "stream_open message") so
// every line a user sees names the file and the field:
//   "rules.json: rules[3].for: expected a number, got a string (\"5m\")".
// Parse errors (syntax, duplicate keys, nesting) come from parse_json_text (core/json_file.h),
// which names the line and column; read_json_document turns them into the same error list.
// Pure; no I/O but read_json_document's file read.
#pragma once

#include <cstdint>
#include <initializer_list>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/result.h"

namespace rh {

/// One problem in a document: where (a path from the root, "stages[2].criteria[0].pass"; "" for
/// the root itself) and what ("expected true or false, got a string (\"yes\")").
struct JsonError {
    std::string path;
    std::string message;
    /// "PATH: MESSAGE" (or "MESSAGE" at the root).
    std::string text() const;
};

/// Every problem found in one document, in the order they were found, and the document's name.
struct JsonErrors {
    std::string document;  ///< file path or a name such as "body"; "" when unnamed
    std::vector<JsonError> list;

    bool empty() const { return list.empty(); }
    auto begin() const { return list.begin(); }
    auto end() const { return list.end(); }
    const JsonError& operator[](std::size_t i) const { return list[i]; }
    std::size_t size() const { return list.size(); }
    void add(std::string path, std::string message) {
        list.push_back({std::move(path), std::move(message)});
    }
    /// One line per error, each "PATH: MESSAGE" (the document is named once, by the Error).
    std::vector<std::string> lines() const;
    /// The lines joined by "\n  " (an Error's detail, one problem per line).
    std::string joined() const;
    /// Error{op, document, 0, joined()}: "op document: a\n  b".
    Error error(const std::string& op) const;
};

/// A view of one JSON value at `path`. Accessors read a member of an object: `req_*` report a
/// missing (or null) member, `opt_*` accept it missing or null with a default; both report a
/// member of the wrong type or out of range and then return the default. Callers read every
/// field, then look at the errors once. Views are cheap copies; each remembers the members read
/// through it so `refuse_unknown()` can name the rest.
class JsonReader {
  public:
    JsonReader(const nlohmann::json& j, std::string path, JsonErrors& errors);

    const nlohmann::json& json() const { return j_; }
    const std::string& path() const { return path_; }
    JsonErrors& errors() const { return errors_; }
    /// Path of member `key` ("stages[2].title") or element `i` ("stages[2]").
    std::string path_of(const std::string& key) const;
    std::string path_of(std::size_t i) const;
    /// Records `message` at this value's path, or at member `key`'s.
    void error(const std::string& message) const;
    void error_at(const std::string& key, const std::string& message) const;

    /// True (and nothing reported) when this value is an object; else reports and returns false.
    bool expect_object() const;
    /// Member present and not null (does not count as reading it).
    bool has(const char* key) const;
    /// Member `key` as a view (required: reported when missing). Missing yields a null view.
    JsonReader member(const char* key) const;
    /// Member `key` as a view when it is an object; reports a non-object; nullopt when absent.
    std::optional<JsonReader> opt_object(const char* key) const;

    std::string req_string(const char* key) const;
    std::string opt_string(const char* key) const;
    /// A required string that must be one of `allowed`; returns "" when it is not.
    std::string req_enum(const char* key, const std::vector<std::string>& allowed) const;
    double req_number(const char* key) const;
    /// Number or null/missing (unknown). Never a default of 0: missing stays nullopt.
    std::optional<double> opt_number(const char* key) const;
    /// A number in [lo, hi]; `unit` ("seconds") is said in the out-of-range message: "expected
    /// a number from 0.1 to 600 seconds, got 600.0001" (12 significant digits).
    std::optional<double> opt_number_in(const char* key, double lo, double hi,
                                        const std::string& unit) const;
    std::uint64_t req_uint(const char* key) const;
    std::optional<std::uint64_t> opt_uint(const char* key) const;
    std::int64_t req_int(const char* key) const;
    std::optional<std::int64_t> opt_int(const char* key) const;
    /// A whole number in [lo, hi]: "expected a whole number from 1 to 64, got 0" (or "got a
    /// string (\"8\")" for a value of another type).
    std::optional<std::int64_t> opt_int_in(const char* key, std::int64_t lo, std::int64_t hi) const;
    /// This value itself (an array element) as a whole number in [lo, hi], same messages.
    std::optional<std::int64_t> int_in(std::int64_t lo, std::int64_t hi) const;
    /// This value itself as a whole number in [lo, hi] up to 2^64-1, same messages.
    std::optional<std::uint64_t> uint_in(std::uint64_t lo, std::uint64_t hi) const;
    bool req_bool(const char* key) const;
    bool opt_bool(const char* key, bool fallback) const;
    /// {"k": "v", ...} (all values strings); missing/null = empty.
    std::map<std::string, std::string> opt_string_map(const char* key) const;
    /// ["a", "b"]; missing/null = empty.
    std::vector<std::string> opt_string_list(const char* key) const;

    /// Calls `f(JsonReader element)` for each element of the array member `key`. Missing or
    /// null is an empty array unless `required`.
    template <typename F>
    void each(const char* key, bool required, F&& f) const {
        if (!required && !has(key)) {
            allow(key);
            return;
        }
        const JsonReader arr = member(key);
        if (arr.json().is_null()) return;
        if (!arr.json().is_array()) {
            arr.error("expected an array, got " + type_text(arr.json()));
            return;
        }
        for (std::size_t i = 0; i < arr.json().size(); ++i)
            f(JsonReader(arr.json()[i], arr.path_of(i), errors_));
    }

    /// Marks `key` as known without reading it.
    void allow(const char* key) const { read_.emplace_back(key); }
    /// Reports every member of this object not read (nor allowed) so far: "PATH.key: unknown
    /// field". Call after reading the object's fields.
    void refuse_unknown() const;
    /// Reports every member not in `known`, listing them: "PATH.key: unknown field (expected one
    /// of a, b)". For objects checked before their fields are read.
    void refuse_unknown(std::initializer_list<const char*> known) const;

    /// "a string (\"5m\")", "a number (3.5)", "null": for messages. Values are cut at 60
    /// characters (documents may come from the network).
    static std::string type_text(const nlohmann::json& v);

  private:
    const nlohmann::json* get(const char* key) const;  ///< nullptr when missing or null
    const nlohmann::json& j_;
    std::string path_;
    JsonErrors& errors_;
    /// Members read or allowed (for refuse_unknown); a vector of short strings, not a set: a
    /// recording's reader makes one view per sample line, and objects have a few members.
    mutable std::vector<std::string> read_;
};

/// Parses `text`, the content of document `name`, strictly (parse_json_text: duplicate keys,
/// nesting, syntax with line and column). On failure the error list holds the one parse error
/// at the root, named "line L, column C ..." as parse_json_text says, and `errors.document` is
/// `name`; returns nullopt.
std::optional<nlohmann::json> parse_json_document(const std::string& text, const std::string& name,
                                                  JsonErrors& errors);

}  // namespace rh
