// `ethtool <if>` (no option): "Settings for ens1f0np0:", then tab-indented "Supported ports:",
// "Speed: 100000Mb/s" (ethtool.c dump_link_usettings prints "%uMb/s", or "Unknown!" when the
// link is down), "Duplex: Full", ..., "Link detected: yes". The speed gives the port's rate
// when nothing else does (ibv_devinfo active_speed x width, a sysfs `rate` line), so the
// pause-time share from frame counts can be computed. It becomes an IfaceFile.
#include "collectors/bundle/bundle_model.h"
#include "core/sysfs.h"

namespace rh::bundle {

namespace {

/// The value of the first "<key>: value" line (leading whitespace allowed) and its index.
std::optional<std::pair<std::string, std::size_t>> setting_line(const TextFile& f,
                                                                std::string_view key) {
    for (std::size_t i = 0; i < f.lines.size(); ++i) {
        const std::string_view l = trim(f.lines[i]);
        if (starts_with(l, key) && l.size() > key.size() && l[key.size()] == ':')
            return std::pair{std::string(trim(l.substr(key.size() + 1))), i};
    }
    return std::nullopt;
}

/// "Settings for <if>:" -> "<if>", "" when absent.
std::string settings_for(const TextFile& f) {
    for (const auto& l : f.lines) {
        const std::string_view t = trim(l);
        if (starts_with(t, "Settings for ") && t.back() == ':')
            return std::string(trim(t.substr(13, t.size() - 14)));
    }
    return {};
}

}  // namespace

bool is_ethtool_link(const TextFile& f) {
    if (!setting_line(f, "Speed")) return false;
    return !settings_for(f).empty() || setting_line(f, "Link detected") ||
           setting_line(f, "Duplex");
}

std::string parse_ethtool_link(const TextFile& f, Model& m) {
    IfaceFile out;
    out.file = f.name;
    out.kind = "ethtool";
    out.iface_hint = settings_for(f);
    if (out.iface_hint.empty()) out.iface_hint = iface_in_command(f.command, "ethtool", {});
    const auto speed = setting_line(f, "Speed");
    std::string v = speed->first;
    if (v.size() > 4 && v.compare(v.size() - 4, 4, "Mb/s") == 0) {
        if (auto mbps = to_u64(std::string_view(v).substr(0, v.size() - 4)); mbps && *mbps > 0) {
            out.speed_mbps = static_cast<double>(*mbps);
            out.speed_source = source_of(f, speed->second);
        }
    }
    if (!out.speed_mbps)
        m.note(f, speed->second,
               "ethtool: link speed " + quote_value(v) +
                   " is not \"<N>Mb/s\" (link down?); the port rate is not taken from it");
    if (const auto link = setting_line(f, "Link detected"))
        out.link_detected = link->first == "yes";
    m.iface_files.push_back(std::move(out));
    return "ethtool (link settings)";
}

}  // namespace rh::bundle
