#include "core/json/json_reader.h"

#include <algorithm>

#include <limits>
#include <sstream>

#include "core/json_file.h"

namespace rh {

namespace {

const nlohmann::json& null_json() {
    static const nlohmann::json n;
    return n;
}

/// A string shown in a message: quoted, and cut at 60 characters (values come from the network).
std::string short_dump(const nlohmann::json& v) {
    std::string s = v.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
    if (s.size() > 60) {
        s.resize(57);
        s += "...";
    }
    return s;
}

}  // namespace

std::string JsonError::text() const {
    return path.empty() ? message : path + ": " + message;
}

std::vector<std::string> JsonErrors::lines() const {
    std::vector<std::string> out;
    out.reserve(list.size());
    for (const JsonError& e : list) out.push_back(e.text());
    return out;
}

std::string JsonErrors::joined() const {
    std::string detail;
    for (const JsonError& e : list) detail += (detail.empty() ? "" : "\n  ") + e.text();
    return detail;
}

Error JsonErrors::error(const std::string& op) const {
    return Error{op, document, 0, joined()};
}

JsonReader::JsonReader(const nlohmann::json& j, std::string path, JsonErrors& errors)
    : j_(j), path_(std::move(path)), errors_(errors) {}

std::string JsonReader::path_of(const std::string& key) const {
    return path_.empty() ? key : path_ + "." + key;
}

std::string JsonReader::path_of(std::size_t i) const {
    return path_ + "[" + std::to_string(i) + "]";
}

void JsonReader::error(const std::string& message) const {
    errors_.add(path_, message);
}

void JsonReader::error_at(const std::string& key, const std::string& message) const {
    errors_.add(path_of(key), message);
}

std::string JsonReader::type_text(const nlohmann::json& v) {
    if (v.is_null()) return "null";
    if (v.is_string()) return "a string (" + short_dump(v) + ")";
    if (v.is_boolean())
        return std::string("a boolean (") + (v.get<bool>() ? "true" : "false") + ")";
    if (v.is_number()) return "a number (" + short_dump(v) + ")";
    if (v.is_array()) return "an array";
    if (v.is_object()) return "an object";
    return "an unsupported value";
}

bool JsonReader::expect_object() const {
    if (j_.is_object()) return true;
    error("expected an object, got " + type_text(j_));
    return false;
}

const nlohmann::json* JsonReader::get(const char* key) const {
    read_.emplace_back(key);
    if (!j_.is_object()) return nullptr;
    const auto it = j_.find(key);
    if (it == j_.end() || it->is_null()) return nullptr;
    return &*it;
}

bool JsonReader::has(const char* key) const {
    if (!j_.is_object()) return false;
    const auto it = j_.find(key);
    return it != j_.end() && !it->is_null();
}

JsonReader JsonReader::member(const char* key) const {
    const nlohmann::json* v = get(key);
    if (!v) {
        error_at(key, "missing");
        return JsonReader(null_json(), path_of(key), errors_);
    }
    return JsonReader(*v, path_of(key), errors_);
}

std::string JsonReader::req_string(const char* key) const {
    const nlohmann::json* v = get(key);
    if (!v) {
        error_at(key, "missing (expected a string)");
        return {};
    }
    if (!v->is_string()) {
        error_at(key, "expected a string, got " + type_text(*v));
        return {};
    }
    return v->get<std::string>();
}

std::string JsonReader::opt_string(const char* key) const {
    allow(key);
    return has(key) ? req_string(key) : std::string{};
}

std::string JsonReader::req_enum(const char* key, const std::vector<std::string>& allowed) const {
    const nlohmann::json* v = get(key);
    std::string list;
    for (const auto& a : allowed) list += (list.empty() ? "" : ", ") + a;
    if (v && v->is_string()) {
        for (const auto& a : allowed)
            if (*v == a) return a;
    }
    error_at(key, "expected one of " + list + ", got " + (v ? type_text(*v) : "nothing"));
    return {};
}

double JsonReader::req_number(const char* key) const {
    const nlohmann::json* v = get(key);
    if (!v || !v->is_number()) {
        error_at(key, "expected a number, got " + (v ? type_text(*v) : std::string("nothing")));
        return 0;
    }
    return v->get<double>();
}

std::optional<double> JsonReader::opt_number(const char* key) const {
    allow(key);
    if (!has(key)) return std::nullopt;
    const auto before = errors_.size();
    const double v = req_number(key);
    if (errors_.size() != before) return std::nullopt;  // reported; no value to check further
    return v;
}

std::uint64_t JsonReader::req_uint(const char* key) const {
    const nlohmann::json* v = get(key);
    if (!v || !v->is_number_unsigned()) {
        error_at(key, "expected a whole number >= 0, got " +
                          (v ? type_text(*v) : std::string("nothing")));
        return 0;
    }
    return v->get<std::uint64_t>();
}

std::optional<std::uint64_t> JsonReader::opt_uint(const char* key) const {
    allow(key);
    if (!has(key)) return std::nullopt;
    const auto before = errors_.size();
    const std::uint64_t v = req_uint(key);
    if (errors_.size() != before) return std::nullopt;  // reported; no value to check further
    return v;
}

std::int64_t JsonReader::req_int(const char* key) const {
    const nlohmann::json* v = get(key);
    if (!v || !v->is_number_integer() ||
        (v->is_number_unsigned() &&
         v->get<std::uint64_t>() >
             static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max()))) {
        error_at(key,
                 "expected a whole number, got " + (v ? type_text(*v) : std::string("nothing")));
        return 0;
    }
    return v->get<std::int64_t>();
}

std::optional<std::int64_t> JsonReader::opt_int(const char* key) const {
    allow(key);
    if (!has(key)) return std::nullopt;
    return req_int(key);
}

bool JsonReader::req_bool(const char* key) const {
    const nlohmann::json* v = get(key);
    if (!v || !v->is_boolean()) {
        error_at(key,
                 "expected true or false, got " + (v ? type_text(*v) : std::string("nothing")));
        return false;
    }
    return v->get<bool>();
}

bool JsonReader::opt_bool(const char* key, bool fallback) const {
    allow(key);
    return has(key) ? req_bool(key) : fallback;
}

std::map<std::string, std::string> JsonReader::opt_string_map(const char* key) const {
    std::map<std::string, std::string> out;
    const nlohmann::json* v = get(key);
    if (!v) return out;
    if (!v->is_object()) {
        error_at(key, "expected an object of strings, got " + type_text(*v));
        return out;
    }
    for (const auto& [k, val] : v->items()) {
        if (!val.is_string())
            errors_.add(path_of(key) + "." + k, "expected a string, got " + type_text(val));
        else
            out[k] = val.get<std::string>();
    }
    return out;
}

std::vector<std::string> JsonReader::opt_string_list(const char* key) const {
    std::vector<std::string> out;
    each(key, false, [&](const JsonReader& e) {
        if (!e.json().is_string())
            e.error("expected a string, got " + type_text(e.json()));
        else
            out.push_back(e.json().get<std::string>());
    });
    return out;
}

}  // namespace rh

namespace rh {

namespace {

/// A number as a person writes it, to 12 digits ("0.1", "3600", "600.0001", not "600").
std::string number_text(double v) {
    std::ostringstream os;
    os.precision(12);
    os << v;
    return os.str();
}

}  // namespace

std::optional<JsonReader> JsonReader::opt_object(const char* key) const {
    allow(key);
    const nlohmann::json* v = get(key);
    if (!v) return std::nullopt;
    if (!v->is_object()) {
        error_at(key, "expected an object, got " + type_text(*v));
        return std::nullopt;
    }
    return JsonReader(*v, path_of(key), errors_);
}

std::optional<double> JsonReader::opt_number_in(const char* key, double lo, double hi,
                                                const std::string& unit) const {
    const std::optional<double> v = opt_number(key);
    if (!v) return std::nullopt;
    if (!(*v >= lo && *v <= hi)) {
        error_at(key, "expected a number from " + number_text(lo) + " to " + number_text(hi) +
                          (unit.empty() ? "" : " " + unit) + ", got " + number_text(*v));
        return std::nullopt;
    }
    return v;
}

std::optional<std::int64_t> JsonReader::int_in(std::int64_t lo, std::int64_t hi) const {
    const std::string expected =
        "expected a whole number from " + std::to_string(lo) + " to " + std::to_string(hi);
    const bool whole = j_.is_number_integer() &&
                       (!j_.is_number_unsigned() ||
                        j_.get<std::uint64_t>() <=
                            static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max()));
    if (!whole) {
        error(expected + ", got " + type_text(j_));
        return std::nullopt;
    }
    const std::int64_t i = j_.get<std::int64_t>();
    if (i < lo || i > hi) {
        error(expected + ", got " + std::to_string(i));
        return std::nullopt;
    }
    return i;
}

std::optional<std::uint64_t> JsonReader::uint_in(std::uint64_t lo, std::uint64_t hi) const {
    const std::string expected =
        "expected a whole number from " + std::to_string(lo) + " to " + std::to_string(hi);
    if (!j_.is_number_integer()) {
        error(expected + ", got " + type_text(j_));
        return std::nullopt;
    }
    if (!j_.is_number_unsigned() && j_.get<std::int64_t>() < 0) {
        error(expected + ", got " + std::to_string(j_.get<std::int64_t>()));
        return std::nullopt;
    }
    const std::uint64_t u = j_.get<std::uint64_t>();
    if (u < lo || u > hi) {
        error(expected + ", got " + std::to_string(u));
        return std::nullopt;
    }
    return u;
}

std::optional<std::int64_t> JsonReader::opt_int_in(const char* key, std::int64_t lo,
                                                   std::int64_t hi) const {
    allow(key);
    const nlohmann::json* v = get(key);
    if (!v) return std::nullopt;
    return JsonReader(*v, path_of(key), errors_).int_in(lo, hi);
}

void JsonReader::refuse_unknown() const {
    if (!j_.is_object()) return;
    for (const auto& [key, _] : j_.items())
        if (std::find(read_.begin(), read_.end(), key) == read_.end())
            error_at(key, "unknown field");
}

void JsonReader::refuse_unknown(std::initializer_list<const char*> known) const {
    if (!j_.is_object()) return;
    std::string list;
    for (const char* k : known) list += (list.empty() ? "" : ", ") + std::string(k);
    for (const auto& [key, _] : j_.items()) {
        bool ok = false;
        for (const char* k : known) ok |= key == k;
        if (!ok) error_at(key, "unknown field (expected one of " + list + ")");
    }
}

std::optional<nlohmann::json> parse_json_document(const std::string& text, const std::string& name,
                                                  JsonErrors& errors) {
    errors.document = name;
    Result<nlohmann::json> j = parse_json_text(text, name, "parse");
    if (j) return std::move(*j);
    errors.add("", j.error().detail);
    return std::nullopt;
}

}  // namespace rh
