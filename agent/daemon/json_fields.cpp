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

namespace {

/// "http." -> "http": the reader's path of the object whose prefix this is.
std::string without_dot(std::string prefix) {
    if (!prefix.empty() && prefix.back() == '.') prefix.pop_back();
    return prefix;
}

}  // namespace

ObjectReader::ObjectReader(const json& obj, std::string prefix, JsonErrors& errors)
    : in_(obj, without_dot(prefix), errors), prefix_(std::move(prefix)) {
    in_.allow("comment");  // free text allowed in every object
}

bool ObjectReader::present(const char* key, const char* what) {
    in_.allow(key);
    const auto it = in_.json().find(key);
    if (it == in_.json().end()) return false;
    if (it->is_null()) {
        fail(key, std::string("expected ") + what + ", got null");
        return false;
    }
    return true;
}

void ObjectReader::string(const char* key, std::string& out) {
    if (!present(key, "a string")) return;
    const auto before = in_.errors().size();
    std::string v = in_.req_string(key);
    if (in_.errors().size() == before) out = std::move(v);
}

void ObjectReader::boolean(const char* key, bool& out) {
    if (!present(key, "true or false")) return;
    const auto before = in_.errors().size();
    const bool v = in_.req_bool(key);
    if (in_.errors().size() == before) out = v;
}

void ObjectReader::number(const char* key, double& out, double lo, double hi, const char* unit) {
    if (!present(key, "a number")) return;
    if (const auto v = in_.opt_number_in(key, lo, hi, unit)) out = *v;
}

const json* ObjectReader::sized_array(const char* key, std::size_t lo, std::size_t hi) {
    if (!present(key, "an array")) return nullptr;
    const json& v = in_.json()[key];
    if (!v.is_array()) {
        fail(key, "expected an array, got " + JsonReader::type_text(v));
        return nullptr;
    }
    if (v.size() < lo || v.size() > hi) {
        fail(key, std::to_string(v.size()) + " items: expected " + std::to_string(lo) + " to " +
                      std::to_string(hi));
        return nullptr;
    }
    return &v;
}

void ObjectReader::string_list(const char* key, std::vector<std::string>& out,
                               std::size_t min_items, std::size_t max_items, bool unique,
                               std::string (*valid)(const std::string&)) {
    const json* v = sized_array(key, min_items, max_items);
    if (!v) return;
    std::vector<std::string> items;
    bool ok = true;
    for (std::size_t i = 0; i < v->size(); ++i) {
        const std::string item_key = std::string(key) + "[" + std::to_string(i) + "]";
        const json& e = (*v)[i];
        if (!e.is_string()) {
            fail(item_key, "expected a string, got " + JsonReader::type_text(e));
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
    const json* v = sized_array(key, min_items, max_items);
    if (!v) return;
    std::vector<std::uint64_t> items;
    bool ok = true;
    for (std::size_t i = 0; i < v->size(); ++i) {
        const std::string item_key = std::string(key) + "[" + std::to_string(i) + "]";
        const auto n = JsonReader((*v)[i], in_.path_of(item_key), in_.errors())
                           .int_in(static_cast<std::int64_t>(lo), static_cast<std::int64_t>(hi));
        if (!n) {
            ok = false;
            continue;
        }
        const auto u = static_cast<std::uint64_t>(*n);
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
    if (!present(key, "an object")) return nullptr;
    const auto v = in_.opt_object(key);
    return v ? &v->json() : nullptr;
}

}  // namespace rh::agent
