#include "probes/wire/control_fields.h"

namespace rh::ctl {

namespace {
const nlohmann::json kEmptyArray = nlohmann::json::array();
}  // namespace

Fields::Fields(const nlohmann::json& j)
    : j_(j),
      cmd_(j.is_object() && j.contains("cmd") && j["cmd"].is_string() ? j["cmd"].get<std::string>()
                                                                      : "?") {}

const nlohmann::json* Fields::get(const char* name) {
    if (!ok()) return nullptr;
    if (!j_.is_object() || !j_.contains(name) || j_[name].is_null()) {
        fail(name, "missing");
        return nullptr;
    }
    return &j_[name];
}

void Fields::fail(const char* name, const std::string& what) {
    errors_.add(name, what);
}

bool Fields::has(const char* name) const {
    return j_.is_object() && j_.contains(name) && !j_[name].is_null();
}

Error Fields::error() const {
    if (ok()) return Error{"decode", cmd_ + " message", 0, {}};
    const JsonError& first = errors_.list.front();
    return Error{"decode", cmd_ + " message", 0,
                 cmd_ + ": \"" + first.path + "\": " + first.message};
}

std::uint64_t Fields::u64(const char* name, std::uint64_t lo, std::uint64_t hi) {
    const auto* v = get(name);
    if (!v) return lo;
    return JsonReader(*v, name, errors_).uint_in(lo, hi).value_or(lo);
}

std::int64_t Fields::i64(const char* name) {
    if (!get(name)) return 0;
    return view().req_int(name);
}

std::string Fields::str(const char* name, std::size_t max_len) {
    if (!get(name)) return {};
    const std::size_t before = errors_.size();
    std::string s = view().req_string(name);
    if (errors_.size() != before) return {};
    if (s.size() > max_len) {
        fail(name, "longer than " + std::to_string(max_len) + " characters");
        return {};
    }
    for (const char c : s)
        if (static_cast<unsigned char>(c) < 0x20 || static_cast<unsigned char>(c) >= 0x7f) {
            fail(name, "non-printable character");
            return {};
        }
    return s;
}

const nlohmann::json& Fields::array(const char* name, std::size_t lo, std::size_t hi) {
    const auto* v = get(name);
    if (!v) return kEmptyArray;
    if (!v->is_array() || v->size() < lo || v->size() > hi) {
        fail(name, "expected an array of " + std::to_string(lo) + " to " + std::to_string(hi) +
                       " elements, got " + JsonReader::type_text(*v));
        return kEmptyArray;
    }
    return *v;
}

std::array<std::uint8_t, 16> Fields::gid(const char* name) {
    std::array<std::uint8_t, 16> g{};
    const std::string s = str(name, 32);
    if (!ok()) return g;
    auto nibble = [](char c) -> int {
        if (c >= '0' && c <= '9') return c - '0';
        if (c >= 'a' && c <= 'f') return c - 'a' + 10;
        if (c >= 'A' && c <= 'F') return c - 'A' + 10;
        return -1;
    };
    if (s.size() != 32) {
        fail(name, "expected 32 hex digits, got " + std::to_string(s.size()) + " characters");
        return g;
    }
    for (std::size_t i = 0; i < 16; ++i) {
        const int hi = nibble(s[2 * i]), lo = nibble(s[2 * i + 1]);
        if (hi < 0 || lo < 0) {
            fail(name, "not a hex digit in '" + s + "'");
            return g;
        }
        g[i] = static_cast<std::uint8_t>(hi * 16 + lo);
    }
    return g;
}

std::map<std::string, std::uint64_t> Fields::counts(const char* name) {
    std::map<std::string, std::uint64_t> m;
    if (!ok() || !has(name)) return m;
    const auto& v = j_[name];
    if (!v.is_object()) {
        fail(name, "expected an object of counts, got " + JsonReader::type_text(v));
        return m;
    }
    for (const auto& [k, x] : v.items()) {
        if (!x.is_number_unsigned() && !(x.is_number_integer() && x.get<std::int64_t>() >= 0)) {
            fail(name, k + ": expected a whole number, got " + JsonReader::type_text(x));
            return {};
        }
        m[k] = x.get<std::uint64_t>();
    }
    return m;
}

std::uint64_t req_uint_max(const JsonReader& r, const char* key, std::uint64_t hi) {
    const auto before = r.errors().size();
    const std::uint64_t v = r.req_uint(key);
    if (r.errors().size() != before) return 0;
    if (v > hi) {
        r.error_at(key, "expected a whole number from 0 to " + std::to_string(hi) + ", got " +
                            std::to_string(v));
        return 0;
    }
    return v;
}

namespace {
bool present(const JsonReader& r, const char* key, const char* expected) {
    if (r.json().is_object() && r.json().contains(key)) return true;
    r.allow(key);
    r.error_at(key, std::string("missing (expected ") + expected + ")");
    return false;
}
}  // namespace

std::optional<double> nullable_number(const JsonReader& r, const char* key) {
    return present(r, key, "a number or null") ? r.opt_number(key) : std::nullopt;
}

std::optional<std::uint64_t> nullable_uint(const JsonReader& r, const char* key) {
    return present(r, key, "a whole number or null") ? r.opt_uint(key) : std::nullopt;
}

std::vector<std::string> req_strings(const JsonReader& r, const char* key) {
    std::vector<std::string> out;
    r.each(key, true, [&](const JsonReader& e) {
        if (e.json().is_string())
            out.push_back(e.json().get<std::string>());
        else
            e.error("expected a string, got " + JsonReader::type_text(e.json()));
    });
    return out;
}

nlohmann::json req_objects(const JsonReader& r, const char* key) {
    nlohmann::json out = nlohmann::json::array();
    r.each(key, true, [&](const JsonReader& e) {
        if (e.json().is_object())
            out.push_back(e.json());
        else
            e.error("expected an object, got " + JsonReader::type_text(e.json()));
    });
    return out;
}

nlohmann::json counts_json(const std::map<std::string, std::uint64_t>& m) {
    nlohmann::json j = nlohmann::json::object();
    for (const auto& [k, v] : m) j[k] = v;
    return j;
}

std::string gid_hex(const std::array<std::uint8_t, 16>& gid) {
    static constexpr char kHex[] = "0123456789abcdef";
    std::string s;
    for (auto b : gid) {
        s.push_back(kHex[b >> 4]);
        s.push_back(kHex[b & 15]);
    }
    return s;
}

}  // namespace rh::ctl
