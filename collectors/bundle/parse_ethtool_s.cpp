// `ethtool -S <if>`: "NIC statistics:" then one "     name: value" line per driver counter
// (ethtool's do_gstats prints "     %.*s: %llu"). Names may contain spaces or ": " (bnxt
// per-ring "[0]: rx_ucast_packets"), so each line splits at its LAST ':'. The output does not
// name the interface: the file becomes an IfaceFile resolved in bundle_merge.cpp.
#include "collectors/bundle/bundle_model.h"
#include "core/sysfs.h"

namespace rh::bundle {

namespace {

std::size_t first_content_line(const TextFile& f) {
    for (std::size_t i = 0; i < f.lines.size(); ++i)
        if (!trim(f.lines[i]).empty()) return i;
    return f.lines.size();
}

}  // namespace

bool is_ethtool_s(const TextFile& f) {
    const std::size_t i = first_content_line(f);
    return i < f.lines.size() && trim(f.lines[i]) == "NIC statistics:";
}

std::string parse_ethtool_s(const TextFile& f, Model& m) {
    IfaceFile out;
    out.file = f.name;
    out.kind = "ethtool -S";
    const std::string source = source_of(f);
    for (std::size_t i = first_content_line(f) + 1; i < f.lines.size(); ++i) {
        const std::string_view line = f.lines[i];
        if (trim(line).empty()) continue;
        const auto colon = line.rfind(':');
        const std::string name(colon == std::string_view::npos ? std::string_view{}
                                                               : trim(line.substr(0, colon)));
        if (name.empty()) {
            m.note(f, i, "not a \"name: value\" ethtool -S line: " + quote_value(line));
            continue;
        }
        Counter c{name, to_u64(line.substr(colon + 1)), source, {}};
        if (!c.value) {
            c.error = "not an unsigned decimal: " + quote_value(trim(line.substr(colon + 1)));
            m.note(f, i, "ethtool -S counter " + name + ": " + c.error);
        }
        add_counter(out.ethtool_stats, std::move(c), m, f.name);
    }
    if (out.ethtool_stats.empty()) m.note(f.name, "ethtool -S output with no counter lines");
    m.iface_files.push_back(std::move(out));
    return "ethtool -S";
}

}  // namespace rh::bundle
