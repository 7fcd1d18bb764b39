// JsonIn: reads a JSON value while remembering where it is ("stages[2].criteria[0].measured"),
// and collects every problem found as a ValidationError naming that path instead of throwing.
// Used by the report model (report_model.cpp) and the finding reader (finding_json.cpp).
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace rh::accept {

/// One problem in a document: where (a path from the root, "stages[2].criteria[0].pass"; "" for
/// the root itself) and what ("expected a boolean, got \"yes\"").
struct ValidationError {
    std::string path;
    std::string message;
    /// "PATH: MESSAGE" (or "MESSAGE" at the root).
    std::string text() const;
};

/// A view of one JSON value at `path`. Accessors read a member of an object: `req_*` report a
/// missing member, `opt_*` accept it missing (and null) with a default; both report a member of
/// the wrong type. A failed read returns a default value; callers look at `errors()` at the end.
class JsonIn {
  public:
    JsonIn(const nlohmann::json& j, std::string path, std::vector<ValidationError>& errors);

    const nlohmann::json& json() const { return j_; }
    const std::string& path() const { return path_; }
    /// Path of member `key` ("stages[2].title") or element `i` ("stages[2]").
    std::string path_of(const std::string& key) const;
    std::string path_of(std::size_t i) const;
    void error(const std::string& message) const;
    void error_at(const std::string& key, const std::string& message) const;

    /// True (and nothing reported) when this value is an object; else reports and returns false.
    bool expect_object() const;
    /// Member present and not null.
    bool has(const char* key) const;
    /// Member `key` as a view (required: reported when missing). Missing yields a null view.
    JsonIn member(const char* key) const;

    std::string req_string(const char* key) const;
    std::string opt_string(const char* key) const;
    /// A required string that must be one of `allowed`; returns "" when it is not.
    std::string req_enum(const char* key, const std::vector<std::string>& allowed) const;
    double req_number(const char* key) const;
    /// Number or null/missing (unknown). Never a default of 0: missing stays nullopt.
    std::optional<double> opt_number(const char* key) const;
    std::uint64_t req_uint(const char* key) const;
    std::optional<std::uint64_t> opt_uint(const char* key) const;
    std::int64_t req_int(const char* key) const;
    std::optional<std::int64_t> opt_int(const char* key) const;
    bool req_bool(const char* key) const;
    bool opt_bool(const char* key, bool fallback) const;
    /// {"k": "v", ...} (all values strings); missing/null = empty.
    std::map<std::string, std::string> opt_string_map(const char* key) const;
    /// ["a", "b"]; missing/null = empty.
    std::vector<std::string> opt_string_list(const char* key) const;

    /// Calls `f(JsonIn element)` for each element of the array member `key`. Missing or null is
    /// an empty array unless `required`.
    template <typename F>
    void each(const char* key, bool required, F&& f) const {
        if (!required && !has(key)) return;
        const JsonIn arr = member(key);
        if (arr.json().is_null()) return;
        if (!arr.json().is_array()) {
            arr.error("expected an array, got " + type_text(arr.json()));
            return;
        }
        for (std::size_t i = 0; i < arr.json().size(); ++i)
            f(JsonIn(arr.json()[i], arr.path_of(i), errors_));
    }

    /// "a string", "a number (3.5)", "null": for messages.
    static std::string type_text(const nlohmann::json& v);

  private:
    const nlohmann::json* get(const char* key) const;  ///< nullptr when missing or null
    const nlohmann::json& j_;
    std::string path_;
    std::vector<ValidationError>& errors_;
};

}  // namespace rh::accept
