// Typed, range-checked reads of the fields of a control-channel JSON message (json frames,
// probes/wire/oob_protocol.h), on the one strict reader (core/json/json_reader.h). The first bad
// field is named, e.g. "stream_open: \"size_bytes\": expected a whole number from 24 to
// 16777216, got -1" (a reply to a peer carries one problem); later reads return defaults, so a
// parser reads every field and checks ok() once at the end (pure).
#pragma once

#include <array>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/json/json_reader.h"
#include "core/result.h"

namespace rh::ctl {

class Fields {
  public:
    explicit Fields(const nlohmann::json& j);

    /// A whole number in [lo, hi] (JSON integer, not a float, not a string).
    std::uint64_t u64(const char* name, std::uint64_t lo, std::uint64_t hi);
    std::uint32_t u32(const char* name, std::uint32_t lo, std::uint32_t hi) {
        return static_cast<std::uint32_t>(u64(name, lo, hi));
    }
    /// A signed whole number (e.g. UTC milliseconds).
    std::int64_t i64(const char* name);
    /// A printable ASCII string of at most `max_len` characters (empty allowed).
    std::string str(const char* name, std::size_t max_len = 255);
    /// A JSON array of [lo, hi] elements; an empty array after an error.
    const nlohmann::json& array(const char* name, std::size_t lo, std::size_t hi);
    /// A raw GID as 32 hex digits.
    std::array<std::uint8_t, 16> gid(const char* name);
    /// An object of whole numbers, e.g. {"IBV_WC_RETRY_EXC_ERR": 3}; an absent field is empty.
    std::map<std::string, std::uint64_t> counts(const char* name);
    /// True when the field is present (not null).
    bool has(const char* name) const;

    /// Records "<name>: <what>" (only the first error is reported).
    void invalid(const char* name, const std::string& what) { fail(name, what); }

    bool ok() const { return errors_.empty(); }
    /// Error (op "decode", subject "<cmd> message") naming the first bad field.
    Error error() const;
    const std::string& cmd() const { return cmd_; }

  private:
    const nlohmann::json* get(const char* name);
    void fail(const char* name, const std::string& what);

    /// The message as the core reader sees it (its path is the field's name).
    JsonReader view() { return JsonReader(j_, "", errors_); }

    const nlohmann::json& j_;
    std::string cmd_;
    JsonErrors errors_;
};

// Reads of a peer's reply on the one strict reader: every problem is collected at its path, and
// the caller returns JsonErrors::error once (see probes/wire/control_replies.h).

/// A required whole number in [0, hi]; reported when missing, null, of another type or above
/// `hi` ("port: expected a whole number from 0 to 255, got 300"); 0 after an error.
std::uint64_t req_uint_max(const JsonReader& r, const char* key, std::uint64_t hi);
/// A member that must be present and may be null (a figure that was not measured): nullopt for
/// null; a missing member or one of another type is reported.
std::optional<double> nullable_number(const JsonReader& r, const char* key);
std::optional<std::uint64_t> nullable_uint(const JsonReader& r, const char* key);
/// A required array of strings (may be empty).
std::vector<std::string> req_strings(const JsonReader& r, const char* key);
/// A required array of JSON objects, kept as they are (recording lines: core/recording/sample_json.h).
nlohmann::json req_objects(const JsonReader& r, const char* key);

/// The JSON object Fields::counts reads.
nlohmann::json counts_json(const std::map<std::string, std::uint64_t>& m);

/// 32 lower-case hex digits of a raw GID (what Fields::gid reads).
std::string gid_hex(const std::array<std::uint8_t, 16>& gid);

}  // namespace rh::ctl
