// The agent config's and action requests' (POST bodies) field reads, on the one strict reader
// (core/json/json_reader.h): every field read through an ObjectReader is checked for type and
// range, a field it never asked for is "unknown", and every problem becomes one line naming the
// field by its path ("http.max_threads: expected a whole number from 1 to 64, got 0",
// "senders[1]: expected a string, got a number (7)"). Any object may carry a free-text "comment".
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/json/json_reader.h"

namespace rh::agent {

/// Shortest text of a number as a person writes it ("0.1", "3600").
std::string fmt_number(double v);

/// True for an IPv4 or IPv6 address literal.
bool is_ip_literal(const std::string& s);

/// True for "HOST" or "HOST:PORT" / "[V6]:PORT" with PORT 1..65535 and a non-empty HOST
/// without spaces (names are resolved later, when they are used).
bool is_host_port(const std::string& s);

/// Out-parameter reads of one JSON object's fields for the config and request readers, on the
/// core reader (core/json/json_reader.h): each read leaves `out` as it was when the field is
/// absent or wrong, every problem is collected with its path ("http.max_threads: expected a whole
/// number from 1 to 64, got 0"), and the destructor reports the fields nobody asked for
/// ("http.listn: unknown field"). A field given as null is an error here (null never means
/// "default" in the agent's config), except where the caller allows it. `prefix` is the
/// object's path with a trailing dot ("http.").
class ObjectReader {
  public:
    ObjectReader(const nlohmann::json& obj, std::string prefix, JsonErrors& errors);
    ~ObjectReader() { in_.refuse_unknown(); }
    ObjectReader(const ObjectReader&) = delete;
    ObjectReader& operator=(const ObjectReader&) = delete;

    void string(const char* key, std::string& out);
    void boolean(const char* key, bool& out);
    /// A number in [lo, hi]; `unit` is said in the messages ("seconds").
    void number(const char* key, double& out, double lo, double hi, const char* unit);
    /// A whole number in [lo, hi].
    template <typename T>
    void integer(const char* key, T& out, std::int64_t lo, std::int64_t hi) {
        if (!present(key, "a whole number")) return;
        if (const auto v = in_.opt_int_in(key, lo, hi)) out = static_cast<T>(*v);
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
    void allow(const char* key) { in_.allow(key); }
    /// Whether the object has `key`, null included (without marking it known).
    bool has(const char* key) const { return in_.json().contains(key); }

    std::string path(const std::string& key) const { return prefix_ + key; }
    void fail(const std::string& key, const std::string& what) { in_.error_at(key, what); }

  private:
    /// Marks `key` read; true when it holds a value. A null is reported ("expected `what`, got
    /// null") and false.
    bool present(const char* key, const char* what);
    /// The array at `key` with a size in [lo, hi], or nullptr (absent, or after an error).
    const nlohmann::json* sized_array(const char* key, std::size_t lo, std::size_t hi);

    JsonReader in_;
    std::string prefix_;
};

}  // namespace rh::agent
