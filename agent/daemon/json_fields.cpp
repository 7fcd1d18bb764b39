#include "agent/daemon/json_fields.h"

#include <arpa/inet.h>

#include <algorithm>
#include <sstream>

namespace rh::agent {

using nlohmann::json;

std::string fmt_number(double v) {
    std::ostringstream os;
    os << v;
    return os.str();
}

bool is_ip_literal(const std::string& s) {
    unsigned char buf[sizeof(in6_addr)];
    return inet_pton(AF_INET, s.c_str(), buf) == 1 || inet_pton(AF_INET6, s.c_str(), buf) == 1;
}

bool is_host_port(const std::string& s) {
    if (s.empty() || s.find_first_of(" \t\r\n/") != std::string::npos) return false;
    std::string host = s, port;
    if (s.front() == '[') {  // [V6] or [V6]:PORT
        const auto close = s.find(']');
        if (close == std::string::npos) return false;
        host = s.substr(1, close - 1);
        if (close + 1 < s.size()) {
            if (s[close + 1] != ':') return false;
            port = s.substr(close + 2);
            if (port.empty()) return false;
        }
        if (!is_ip_literal(host)) return false;
    } else if (const auto colon = s.rfind(':'); colon != std::string::npos) {
        if (is_ip_literal(s)) return true;  // a bare IPv6 literal
        host = s.substr(0, colon);
        port = s.substr(colon + 1);
        if (host.find(':') != std::string::npos || port.empty()) return false;
    }
    if (host.empty()) return false;
    if (port.empty()) return true;
    if (port.size() > 5 || port.find_first_not_of("0123456789") != std::string::npos) return false;
    const unsigned long p = std::stoul(port);
    return p >= 1 && p <= 65535;
}

ObjectReader::~ObjectReader() {
    for (const auto& [key, _] : obj_.items())
        if (!known_.count(key)) fail(key, "unknown field");
}

const json* ObjectReader::get(const char* key) {
    known_.insert(key);
    const auto it = obj_.find(key);
    return it == obj_.end() ? nullptr : &*it;
}

void ObjectReader::string(const char* key, std::string& out) {
    if (const json* v = get(key)) {
        if (v->is_string())
            out = v->get<std::string>();
        else
            fail(key, "expected a string, got " + std::string(v->type_name()));
    }
}

void ObjectReader::boolean(const char* key, bool& out) {
    if (const json* v = get(key)) {
        if (v->is_boolean())
            out = v->get<bool>();
        else
            fail(key, "expected true or false, got " + std::string(v->type_name()));
    }
}

void ObjectReader::number(const char* key, double& out, double lo, double hi, const char* unit) {
    if (const json* v = get(key)) {
        if (!v->is_number()) {
            fail(key, "expected a number (" + std::string(unit) + "), got " + v->type_name());
            return;
        }
        const double d = v->get<double>();
        if (!(d >= lo && d <= hi))
            fail(key, fmt_number(d) + " is out of range: expected " + fmt_number(lo) + " to " +
                          fmt_number(hi) + " " + unit);
        else
            out = d;
    }
}

bool ObjectReader::whole(const std::string& key, const json& v, std::int64_t lo, std::int64_t hi,
                         std::int64_t& out) {
    if (!v.is_number_integer()) {
        fail(key, "expected a whole number, got " + (v.is_number() ? v.dump() : v.type_name()));
        return false;
    }
    const std::int64_t i =
        v.is_number_unsigned()
            ? static_cast<std::int64_t>(std::min<std::uint64_t>(v.get<std::uint64_t>(), INT64_MAX))
            : v.get<std::int64_t>();
    if (i < lo || i > hi) {
        fail(key, std::to_string(i) + " is out of range: expected " + std::to_string(lo) + " to " +
                      std::to_string(hi));
        return false;
    }
    out = i;
    return true;
}

namespace {

/// The array at `key` with a size in [lo, hi], or nullptr after an error.
const json* sized_array(ObjectReader& r, const char* key, const json* v, std::size_t lo,
                        std::size_t hi) {
    if (!v) return nullptr;
    if (!v->is_array()) {
        r.fail(key, "expected an array, got " + std::string(v->type_name()));
        return nullptr;
    }
    if (v->size() < lo || v->size() > hi) {
        r.fail(key, std::to_string(v->size()) + " items: expected " + std::to_string(lo) + " to " +
                        std::to_string(hi));
        return nullptr;
    }
    return v;
}

}  // namespace

void ObjectReader::string_list(const char* key, std::vector<std::string>& out,
                               std::size_t min_items, std::size_t max_items, bool unique,
                               std::string (*valid)(const std::string&)) {
    const json* v = sized_array(*this, key, get(key), min_items, max_items);
    if (!v) return;
    std::vector<std::string> items;
    bool ok = true;
    for (std::size_t i = 0; i < v->size(); ++i) {
        const std::string item_key = std::string(key) + "[" + std::to_string(i) + "]";
        const json& e = (*v)[i];
        if (!e.is_string()) {
            fail(item_key, "expected a string, got " + std::string(e.type_name()));
            ok = false;
            continue;
        }
        const std::string s = e.get<std::string>();
        if (const std::string why = valid ? valid(s) : ""; !why.empty()) {
            fail(item_key, why);
            ok = false;
        } else if (unique && std::find(items.begin(), items.end(), s) != items.end()) {
            fail(item_key, "\"" + s + "\" given twice");
            ok = false;
        }
        items.push_back(s);
    }
    if (ok) out = std::move(items);
}

void ObjectReader::integer_list(const char* key, std::vector<std::uint64_t>& out,
                                std::size_t min_items, std::size_t max_items, std::uint64_t lo,
                                std::uint64_t hi, std::string (*valid)(std::uint64_t)) {
    const json* v = sized_array(*this, key, get(key), min_items, max_items);
    if (!v) return;
    std::vector<std::uint64_t> items;
    bool ok = true;
    for (std::size_t i = 0; i < v->size(); ++i) {
        const std::string item_key = std::string(key) + "[" + std::to_string(i) + "]";
        std::int64_t n = 0;
        if (!whole(item_key, (*v)[i], static_cast<std::int64_t>(lo), static_cast<std::int64_t>(hi),
                   n)) {
            ok = false;
            continue;
        }
        const auto u = static_cast<std::uint64_t>(n);
        if (const std::string why = valid ? valid(u) : ""; !why.empty()) {
            fail(item_key, why);
            ok = false;
        } else if (std::find(items.begin(), items.end(), u) != items.end()) {
            fail(item_key, std::to_string(u) + " given twice");
            ok = false;
        }
        items.push_back(u);
    }
    if (ok) out = std::move(items);
}

const json* ObjectReader::object(const char* key) {
    const json* v = get(key);
    if (v && !v->is_object()) {
        fail(key, "expected an object, got " + std::string(v->type_name()));
        return nullptr;
    }
    return v;
}

std::string join_errors(const std::vector<std::string>& errors) {
    std::string detail;
    for (const auto& e : errors) detail += (detail.empty() ? "" : "\n  ") + e;
    return detail;
}

}  // namespace rh::agent
