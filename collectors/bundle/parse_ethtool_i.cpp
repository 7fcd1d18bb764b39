// `ethtool -i <if>`: "driver: mlx5_core", "version: ...", "firmware-version: ...",
// "bus-info: 0000:3b:00.0", "supports-statistics: yes", ... The driver picks the netdev's
// counter-name table (collectors/normalize); bus-info ties the interface to its PCI function.
// The output does not name the interface: it becomes an IfaceFile.
#include "collectors/bundle/bundle_model.h"

namespace rh::bundle {

namespace {

/// The value of the first "key: value" line with this key (indented or not), nullopt when
/// absent.
std::optional<std::string> field(const TextFile& f, std::string_view key) {
    for (const auto& line : f.lines) {
        const std::string_view l = trim(line);
        if (starts_with(l, key) && l.size() > key.size() && l[key.size()] == ':')
            return std::string(trim(l.substr(key.size() + 1)));
    }
    return std::nullopt;
}

}  // namespace

bool is_ethtool_i(const TextFile& f) {
    return field(f, "driver") && field(f, "bus-info");
}

std::string parse_ethtool_i(const TextFile& f, Model& m) {
    IfaceFile out;
    out.file = f.name;
    out.kind = "ethtool -i";
    out.iface_hint = iface_in_command(f.command, "ethtool", {"-i", "--driver"});
    out.driver = field(f, "driver").value_or("");
    const std::string bus = field(f, "bus-info").value_or("");
    // Virtual interfaces print an empty or non-PCI bus-info ("tap", "N/A"): left empty.
    out.bus_info = canonical_bdf(bus);
    if (out.driver.empty()) m.note(f.name, "ethtool -i: empty driver");
    m.iface_files.push_back(std::move(out));
    return "ethtool -i";
}

}  // namespace rh::bundle
