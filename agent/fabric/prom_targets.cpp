#include "agent/fabric/prom_targets.h"

#include <nlohmann/json.hpp>

#include "agent/fabric/prom_response.h"

namespace rh::fabric {

namespace {

using nlohmann::json;

Error malformed(const std::string& path, const std::string& what) {
    return Error("decode", "Prometheus targets", 0, path + ": " + what, kCauseMalformed);
}

/// The string member `key` of `obj`, "" when absent; false when present but not a string.
bool optional_string(const json& obj, const char* key, std::string& out) {
    const auto it = obj.find(key);
    if (it == obj.end()) return true;
    if (!it->is_string()) return false;
    out = it->get<std::string>();
    return true;
}

/// "host:port" of "scheme://host:port/path..."; "" when it has no "://".
std::string authority_of(const std::string& url) {
    const auto start = url.find("://");
    if (start == std::string::npos) return "";
    const auto from = start + 3;
    const auto end = url.find_first_of("/?#", from);
    std::string auth = url.substr(from, end == std::string::npos ? std::string::npos : end - from);
    if (const auto at = auth.rfind('@'); at != std::string::npos) auth = auth.substr(at + 1);
    return auth;
}

Result<PromTarget> decode_target(const json& t, const std::string& path) {
    if (!t.is_object()) return malformed(path, "expected an object");
    PromTarget out;
    const auto labels = t.find("labels");
    if (labels == t.end() || !labels->is_object())
        return malformed(path + ".labels", "expected an object");
    for (const auto& [k, v] : labels->items()) {
        if (!v.is_string())
            return malformed(path + ".labels." + clipped_server_text(k), "expected a string");
        out.labels[k] = v.get<std::string>();
    }
    if (!optional_string(t, "scrapePool", out.scrape_pool))
        return malformed(path + ".scrapePool", "expected a string");
    if (!optional_string(t, "scrapeUrl", out.scrape_url))
        return malformed(path + ".scrapeUrl", "expected a string");
    const auto health = t.find("health");
    if (health == t.end() || !health->is_string())
        return malformed(path + ".health", "expected a string");
    out.health = health->get<std::string>();
    out.address = authority_of(out.scrape_url);
    if (out.address.empty())
        if (const auto d = t.find("discoveredLabels"); d != t.end()) {
            if (!d->is_object()) return malformed(path + ".discoveredLabels", "expected an object");
            if (!optional_string(*d, "__address__", out.address))
                return malformed(path + ".discoveredLabels.__address__", "expected a string");
        }
    out.host = host_of_address(out.address);
    if (out.host.empty())
        return malformed(path,
                         "no address: neither scrapeUrl nor discoveredLabels.__address__ "
                         "names a host");
    return out;
}

}  // namespace

std::string host_of_address(const std::string& address) {
    if (!address.empty() && address.front() == '[') {
        const auto close = address.find(']');
        return close == std::string::npos ? "" : address.substr(1, close - 1);
    }
    const auto colon = address.find(':');
    if (colon != std::string::npos && address.find(':', colon + 1) != std::string::npos)
        return address;  // a bare IPv6 literal
    return address.substr(0, colon);
}

Result<std::vector<PromTarget>> decode_targets(std::string_view body, std::size_t max_targets) {
    auto data = decode_api_data(body);
    if (!data) {
        Error e = data.error();
        if (e.cause == kCauseMalformed) e.subject = "Prometheus targets";
        return e;
    }
    const auto active = data->find("activeTargets");
    if (active == data->end() || !active->is_array())
        return malformed("data.activeTargets", "expected an array");
    if (active->size() > max_targets)
        return Error("decode", "Prometheus targets", 0,
                     std::to_string(active->size()) + " active targets: more than " +
                         std::to_string(max_targets),
                     kCauseTooManyTargets);
    std::vector<PromTarget> out;
    out.reserve(active->size());
    for (std::size_t i = 0; i < active->size(); ++i) {
        auto t = decode_target((*active)[i], "data.activeTargets[" + std::to_string(i) + "]");
        if (!t) return t.error();
        out.push_back(std::move(*t));
    }
    return out;
}

}  // namespace rh::fabric
