#include "agent/accept/json_in.h"

#include <limits>

namespace rh::accept {

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

std::string ValidationError::text() const {
    return path.empty() ? message : path + ": " + message;
}

JsonIn::JsonIn(const nlohmann::json& j, std::string path, std::vector<ValidationError>& errors)
    : j_(j), path_(std::move(path)), errors_(errors) {}

std::string JsonIn::path_of(const std::string& key) const {
    return path_.empty() ? key : path_ + "." + key;
}

std::string JsonIn::path_of(std::size_t i) const {
    return path_ + "[" + std::to_string(i) + "]";
}

void JsonIn::error(const std::string& message) const {
    errors_.push_back({path_, message});
}

void JsonIn::error_at(const std::string& key, const std::string& message) const {
    errors_.push_back({path_of(key), message});
}

std::string JsonIn::type_text(const nlohmann::json& v) {
    if (v.is_null()) return "null";
    if (v.is_string()) return "a string (" + short_dump(v) + ")";
    if (v.is_boolean())
        return std::string("a boolean (") + (v.get<bool>() ? "true" : "false") + ")";
    if (v.is_number()) return "a number (" + short_dump(v) + ")";
    if (v.is_array()) return "an array";
    if (v.is_object()) return "an object";
    return "an unsupported value";
}

bool JsonIn::expect_object() const {
    if (j_.is_object()) return true;
    error("expected an object, got " + type_text(j_));
    return false;
}

const nlohmann::json* JsonIn::get(const char* key) const {
    if (!j_.is_object()) return nullptr;
    const auto it = j_.find(key);
    if (it == j_.end() || it->is_null()) return nullptr;
    return &*it;
}

bool JsonIn::has(const char* key) const {
    return get(key) != nullptr;
}

JsonIn JsonIn::member(const char* key) const {
    const nlohmann::json* v = get(key);
    if (!v) {
        error_at(key, "missing");
        return JsonIn(null_json(), path_of(key), errors_);
    }
    return JsonIn(*v, path_of(key), errors_);
}

std::string JsonIn::req_string(const char* key) const {
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

std::string JsonIn::opt_string(const char* key) const {
    return has(key) ? req_string(key) : std::string{};
}

std::string JsonIn::req_enum(const char* key, const std::vector<std::string>& allowed) const {
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

double JsonIn::req_number(const char* key) const {
    const nlohmann::json* v = get(key);
    if (!v || !v->is_number()) {
        error_at(key, "expected a number, got " + (v ? type_text(*v) : std::string("nothing")));
        return 0;
    }
    return v->get<double>();
}

std::optional<double> JsonIn::opt_number(const char* key) const {
    if (!has(key)) return std::nullopt;
    const auto before = errors_.size();
    const double v = req_number(key);
    if (errors_.size() != before) return std::nullopt;  // reported; no value to check further
    return v;
}

std::uint64_t JsonIn::req_uint(const char* key) const {
    const nlohmann::json* v = get(key);
    if (!v || !v->is_number_unsigned()) {
        error_at(key, "expected a whole number >= 0, got " +
                          (v ? type_text(*v) : std::string("nothing")));
        return 0;
    }
    return v->get<std::uint64_t>();
}

std::optional<std::uint64_t> JsonIn::opt_uint(const char* key) const {
    if (!has(key)) return std::nullopt;
    const auto before = errors_.size();
    const std::uint64_t v = req_uint(key);
    if (errors_.size() != before) return std::nullopt;  // reported; no value to check further
    return v;
}

std::int64_t JsonIn::req_int(const char* key) const {
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

std::optional<std::int64_t> JsonIn::opt_int(const char* key) const {
    if (!has(key)) return std::nullopt;
    return req_int(key);
}

bool JsonIn::req_bool(const char* key) const {
    const nlohmann::json* v = get(key);
    if (!v || !v->is_boolean()) {
        error_at(key,
                 "expected true or false, got " + (v ? type_text(*v) : std::string("nothing")));
        return false;
    }
    return v->get<bool>();
}

bool JsonIn::opt_bool(const char* key, bool fallback) const {
    return has(key) ? req_bool(key) : fallback;
}

std::map<std::string, std::string> JsonIn::opt_string_map(const char* key) const {
    std::map<std::string, std::string> out;
    const nlohmann::json* v = get(key);
    if (!v) return out;
    if (!v->is_object()) {
        error_at(key, "expected an object of strings, got " + type_text(*v));
        return out;
    }
    for (const auto& [k, val] : v->items()) {
        if (!val.is_string())
            errors_.push_back({path_of(key) + "." + k, "expected a string, got " + type_text(val)});
        else
            out[k] = val.get<std::string>();
    }
    return out;
}

std::vector<std::string> JsonIn::opt_string_list(const char* key) const {
    std::vector<std::string> out;
    each(key, false, [&](const JsonIn& e) {
        if (!e.json().is_string())
            e.error("expected a string, got " + type_text(e.json()));
        else
            out.push_back(e.json().get<std::string>());
    });
    return out;
}

}  // namespace rh::accept
