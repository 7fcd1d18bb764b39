// Strict reading of JSON objects for the agent's config file and its action requests (POST
// bodies): every field read through an ObjectReader is checked for type and range, a field it
// never asked for is "unknown", and every problem becomes one line naming the field by its
// path ("http.max_threads: 0 is out of range: expected 1 to 64", "senders[1]: expected a
// string, got number"). Any object may carry a free-text "comment".
#pragma once

#include <cstdint>
#include <set>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace rh::agent {

/// Shortest text of a number as a person writes it ("0.1", "3600").
std::string fmt_number(double v);

/// True for an IPv4 or IPv6 address literal.
bool is_ip_literal(const std::string& s);

/// True for "HOST" or "HOST:PORT" / "[V6]:PORT" with PORT 1..65535 and a non-empty HOST
/// without spaces (names are resolved later, when they are used).
bool is_host_port(const std::string& s);

/// Reads the fields of one JSON object, remembering which it knew; its destructor reports the
/// fields nobody asked for. `prefix` is the object's path with a trailing dot ("http.").
class ObjectReader {
  public:
    ObjectReader(const nlohmann::json& obj, std::string prefix, std::vector<std::string>& errors)
        : obj_(obj), prefix_(std::move(prefix)), errors_(errors) {}
    ~ObjectReader();
    ObjectReader(const ObjectReader&) = delete;
    ObjectReader& operator=(const ObjectReader&) = delete;

    void string(const char* key, std::string& out);
    void boolean(const char* key, bool& out);
    /// A number in [lo, hi]; `unit` is said in the messages ("seconds").
    void number(const char* key, double& out, double lo, double hi, const char* unit);
    /// A whole number in [lo, hi].
    template <typename T>
    void integer(const char* key, T& out, std::int64_t lo, std::int64_t hi) {
        if (const nlohmann::json* v = get(key)) {
            std::int64_t i = 0;
            if (whole(key, *v, lo, hi, i)) out = static_cast<T>(i);
        }
    }
    /// An array of strings, each checked by `valid` (which returns an error text or "");
    /// duplicates are an error when `unique`. Empty arrays are allowed when min_items is 0.
    void string_list(const char* key, std::vector<std::string>& out, std::size_t min_items,
                     std::size_t max_items, bool unique,
                     std::string (*valid)(const std::string&) = nullptr);
    /// An array of whole numbers in [lo, hi], each checked by `valid` (error text or "").
    void integer_list(const char* key, std::vector<std::uint64_t>& out, std::size_t min_items,
                      std::size_t max_items, std::uint64_t lo, std::uint64_t hi,
                      std::string (*valid)(std::uint64_t) = nullptr);

    /// A nested object, or nullptr (absent, or not an object: an error then).
    const nlohmann::json* object(const char* key);
    /// Marks `key` as known without reading it.
    void allow(const char* key) { known_.insert(key); }
    /// Whether the object has `key` (without marking it known).
    bool has(const char* key) const { return obj_.contains(key); }

    std::string path(const std::string& key) const { return prefix_ + key; }
    void fail(const std::string& key, const std::string& what) {
        errors_.push_back(path(key) + ": " + what);
    }

  private:
    const nlohmann::json* get(const char* key);
    bool whole(const std::string& key, const nlohmann::json& v, std::int64_t lo, std::int64_t hi,
               std::int64_t& out);

    const nlohmann::json& obj_;
    std::string prefix_;
    std::vector<std::string>& errors_;
    std::set<std::string> known_{"comment"};  ///< free text allowed in every object
};

/// The error lines of one document joined for an Error's detail ("a\n  b").
std::string join_errors(const std::vector<std::string>& errors);

}  // namespace rh::agent
