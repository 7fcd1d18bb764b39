#include "agent/fabric/prom_targets.h"

#include <new>
#include <optional>

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

namespace {

/// nlohmann's SAX events of a targets answer: the root's status and error texts, and each
/// element of data.activeTargets built as a small tree of its own (json_sax_dom_parser), decoded
/// by decode_target and dropped — never a tree of the whole answer. droppedTargets and unknown
/// keys are skipped without being stored. Targets past `max` are counted, not decoded.
class TargetsSax {
  public:
    explicit TargetsSax(std::size_t max) : max_(max) {}

    std::vector<PromTarget> out;
    std::optional<Error> fault;  ///< the first target that did not decode, or not JSON
    std::optional<std::string> status, error_type, error_text;
    bool data_is_object = false, active_is_array = false;
    std::size_t count = 0;  ///< active targets seen
    bool top_not_object = false;

    bool null() {
        return value([](auto& d) { return d.null(); });
    }
    bool boolean(bool v) {
        return value([v](auto& d) { return d.boolean(v); });
    }
    bool number_integer(json::number_integer_t v) {
        return value([v](auto& d) { return d.number_integer(v); });
    }
    bool number_unsigned(json::number_unsigned_t v) {
        return value([v](auto& d) { return d.number_unsigned(v); });
    }
    bool number_float(json::number_float_t v, const json::string_t& t) {
        return value([v, &t](auto& d) { return d.number_float(v, t); });
    }
    bool binary(json::binary_t& v) {
        return value([&v](auto& d) { return d.binary(v); });
    }
    bool string(json::string_t& v) {
        if (skip_ == 0 && !dom_ && depth_ == 1) {
            if (key_ == "status") status = clipped_server_text(v);
            if (key_ == "errorType") error_type = clipped_server_text(v);
            if (key_ == "error") error_text = clipped_server_text(v);
        }
        return value([&v](auto& d) { return d.string(v); });
    }
    bool key(json::string_t& k) {
        if (dom_) return dom_->key(k);
        key_ = std::move(k);
        return true;
    }
    bool start_object(std::size_t n) { return open(true, n); }
    bool start_array(std::size_t n) { return open(false, n); }
    bool end_object() {
        return close([](auto& d) { return d.end_object(); });
    }
    bool end_array() {
        return close([](auto& d) { return d.end_array(); });
    }
    bool parse_error(std::size_t, const std::string&, const nlohmann::detail::exception&) {
        fault = Error("decode", "Prometheus targets", 0, "not JSON", kCauseMalformed);
        return false;
    }

  private:
    using Dom = nlohmann::detail::json_sax_dom_parser<json>;

    /// A scalar: into the target being built, else nothing to keep (the root's strings above).
    template <typename F>
    bool value(F f) {
        if (dom_) return f(*dom_);
        if (skip_ > 0) return true;
        if (depth_ == 0) top_not_object = true;  // told once the parse ends: JSON or not
        if (depth_ == 3 && ++count <= max_ && !fault)
            fault = malformed("data.activeTargets[" + std::to_string(count - 1) + "]",
                              "expected an object");
        return true;
    }

    bool open(bool object, std::size_t n) {
        if (dom_) {
            ++dom_depth_;
            return object ? dom_->start_object(n) : dom_->start_array(n);
        }
        if (skip_ > 0 || (depth_ == 1 && key_ != "data") ||
            (depth_ == 2 && key_ != "activeTargets") || depth_ > 3) {
            ++skip_;
            return true;
        }
        if (depth_ == 0 && !object) {
            top_not_object = true;
            ++skip_;
            return true;
        }
        if (depth_ == 1) data_is_object = object;
        if (depth_ == 2) active_is_array = !object;
        if ((depth_ == 1 || depth_ == 2) && !(depth_ == 1 ? object : !object)) {
            ++skip_;  // data not an object / activeTargets not an array: found missing at the end
            return true;
        }
        if (depth_ == 3) {  // one active target begins
            ++count;
            if (count > max_ || fault) {
                ++skip_;
                return true;
            }
            target_ = json();
            dom_.emplace(target_, false);
            dom_depth_ = 1;
            return object ? dom_->start_object(n) : dom_->start_array(n);
        }
        ++depth_;
        return true;
    }

    template <typename F>
    bool close(F f) {
        if (dom_) {
            const bool ok = f(*dom_);
            if (--dom_depth_ == 0) {
                dom_.reset();
                auto t =
                    decode_target(target_, "data.activeTargets[" + std::to_string(count - 1) + "]");
                target_ = json();
                if (t)
                    out.push_back(std::move(*t));
                else
                    fault = t.error();  // kept; counting goes on (too many targets wins)
            }
            return ok;
        }
        if (skip_ > 0) {
            --skip_;
            return true;
        }
        --depth_;
        return true;
    }

    std::size_t max_;
    std::size_t depth_ = 0;  ///< 1 in the root, 2 in data, 3 in activeTargets
    std::size_t skip_ = 0;   ///< nesting inside what is skipped
    std::string key_;
    json target_;
    std::optional<Dom> dom_;
    std::size_t dom_depth_ = 0;
};

}  // namespace

Result<std::vector<PromTarget>> decode_targets(std::string_view body, std::size_t max_targets) {
    TargetsSax sax(max_targets);
    bool parsed = false;
    try {
        parsed = json::sax_parse(body, &sax);
    } catch (const std::bad_alloc&) {
        throw;  // out of memory is no malformed answer: the command says what to ask for less
    } catch (const std::exception&) {  // sax_parse reports through parse_error; belt and braces
        parsed = false;
    }
    if (!parsed && !sax.fault)
        return Error("decode", "Prometheus targets", 0, "not JSON", kCauseMalformed);
    if (sax.status == "error" && (!sax.fault || sax.fault->cause == kCauseMalformed))
        return prometheus_api_error(sax.error_type, sax.error_text);
    if (!parsed) return *sax.fault;
    if (sax.top_not_object)
        return Error("decode", "Prometheus targets", 0, "not a JSON object", kCauseMalformed);
    const auto top = [](const char* what) {
        return Error("decode", "Prometheus targets", 0, what, kCauseMalformed);
    };
    if (!sax.status) return top("no \"status\" string");
    if (*sax.status != "success") return top("\"status\" is neither success nor error");
    if (!sax.data_is_object) return top("no \"data\" object");
    if (!sax.active_is_array) return malformed("data.activeTargets", "expected an array");
    if (sax.count > max_targets)
        return Error(
            "decode", "Prometheus targets", 0,
            std::to_string(sax.count) + " active targets: more than " + std::to_string(max_targets),
            kCauseTooManyTargets);
    if (sax.fault) return *sax.fault;
    return std::move(sax.out);
}

}  // namespace rh::fabric
