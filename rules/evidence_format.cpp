#include "rules/evidence_format.h"

#include <cmath>
#include <cstdio>

#include "core/inventory/parse.h"  // port_state_name, phys_state_name (sysfs names)

namespace rh {

namespace {

/// Up to `digits` significant digits, no exponent for the values evidence shows.
std::string number(double v, int digits = 4) {
    char buf[64];
    if (std::fabs(v) >= 1e15 || v == std::floor(v))
        std::snprintf(buf, sizeof buf, "%.0f", v);
    else
        std::snprintf(buf, sizeof buf, "%.*g", digits, v);
    return buf;
}

std::string singular(const std::string& unit) {
    if (unit.size() > 1 && unit.back() == 's' && unit != "us" && unit != "bits/s")
        return unit.substr(0, unit.size() - 1);
    return unit;
}

}  // namespace

bool is_location_label(const std::string& k) {
    return k == "device" || k == "port" || k == "netdev";
}

std::string format_bytes(double bytes) {
    return number(std::round(bytes)) + (std::round(bytes) == 1 ? " byte" : " bytes");
}

std::string format_gbps(double gbps) {
    return number(gbps) + " Gb/s";
}

std::string format_on_off(double v) {
    return v != 0 ? "on" : "off";
}

std::string format_port_state(unsigned code) {
    const std::string name = port_state_name(code);
    return std::to_string(code) + " (" + (name.empty() ? "unknown state" : name) + ")";
}

std::string format_phys_state(unsigned code) {
    const std::string name = phys_state_name(code);
    return std::to_string(code) + " (" + (name.empty() ? "unknown physical state" : name) + ")";
}

std::string format_us(double us) {
    return number(us) + " us";
}

std::string format_count(double v, const std::string& unit) {
    if (unit.empty()) return number(v);
    return number(v) + " " + (v == 1 ? singular(unit) : unit);
}

std::string format_value(double v, const std::string& unit) {
    if (unit == "bool") return format_on_off(v);
    if (unit == "state" && v >= 0 && v == std::floor(v))
        return format_port_state(static_cast<unsigned>(v));
    if (unit == "phys_state" && v >= 0 && v == std::floor(v))
        return format_phys_state(static_cast<unsigned>(v));
    if (unit == "bytes") return format_bytes(v);
    if (unit == "Gb/s") return format_gbps(v);
    if (unit == "us") return format_us(v);
    return format_count(v, unit);
}

std::string series_display_name(const std::string& series, const Labels& labels) {
    const auto label = [&](const char* k) {
        const auto it = labels.find(k);
        return it == labels.end() ? std::string("?") : it->second;
    };
    if (series == "pfc_enabled") return "PFC on priority " + label("priority");
    if (series == "ecn_np_enabled")
        return "ECN notification point (roce_np) on priority " + label("priority");
    if (series == "ecn_rp_enabled")
        return "ECN reaction point (roce_rp) on priority " + label("priority");
    if (series == "port_state_code") return "port state";
    if (series == "port_rate_gbps") return "port rate";
    if (series == "port_width_lanes") return "port width";
    std::string extra;
    for (const auto& [k, v] : labels) {
        if (is_location_label(k)) continue;
        // "priority 3", but a direction or a level reads as itself ("rx", "warning").
        const std::string part = k == "direction" || k == "level" ? v : k + " " + v;
        extra += (extra.empty() ? "" : ", ") + part;
    }
    return extra.empty() ? series : series + " (" + extra + ")";
}

std::string evidence_text(const std::string& value, const std::string& unit) {
    const bool bare_number =
        !value.empty() && value.find_first_not_of("0123456789.-+eE") == std::string::npos;
    return bare_number && !unit.empty() ? value + " " + unit : value;
}

std::string cite_sysfs(const std::string& sysfs_root, const std::string& path) {
    if (sysfs_root.empty() || sysfs_root == "/sys") return path;
    std::string root = sysfs_root;
    while (root.size() > 1 && root.back() == '/') root.pop_back();
    if (path.size() > root.size() && path.compare(0, root.size(), root) == 0 &&
        path[root.size()] == '/')
        return "..." + path.substr(root.size());
    return path;
}

}  // namespace rh
