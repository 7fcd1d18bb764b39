// `ethtool -S <if>`: "NIC statistics:" then one "     name: value" line per driver counter
// (ethtool's do_gstats prints "     %.*s: %llu"). Names may contain spaces or ": " (bnxt
// per-ring "[0]: rx_ucast_packets"), so each line splits at its LAST ':'. The output does not
// name the interface: the file becomes an IfaceFile resolved in bundle_merge.cpp (the prompt's
// `ethtool -S <if>` command, when pasted, names it).
//
// `ethtool -S <if> | grep ...` drops the header. Such a paste is still ethtool -S when
// - the prompt's command is `ethtool -S|--statistics`, or
// - its counter lines have ethtool's shape: most non-blank lines are "name: <decimal>" with
//   the ": " separator AND either ethtool's indentation (leading whitespace) or at least one
//   name that only a driver's netdev statistics use (Driver::netdev_only_stat in
//   collectors/drivers/<driver>.cpp: mlx5 "_prio<N>_", "_phy"; bnxt "[<ring>]:" ...).
// A sysfs hw_counters listing (`grep . *` in hw_counters/) prints "name:value" with no space
// and no indentation, so it is not taken for ethtool -S.
#include <cctype>

#include "collectors/bundle/bundle_model.h"
#include "collectors/bundle/sections.h"
#include "collectors/drivers/registry.h"
#include "core/sysfs.h"

namespace rh::bundle {

namespace {

std::size_t first_content_line(const TextFile& f) {
    for (std::size_t i = 0; i < f.lines.size(); ++i)
        if (!trim(f.lines[i]).empty()) return i;
    return f.lines.size();
}

bool has_header(const TextFile& f) {
    const std::size_t i = first_content_line(f);
    return i < f.lines.size() && trim(f.lines[i]) == "NIC statistics:";
}

bool ethtool_s_command(const TextFile& f) {
    return !iface_in_command(f.command, "ethtool", {"-S", "--statistics"}).empty();
}

/// "name: 123" with a space or tab after the last ':' and a decimal value.
bool counter_line(std::string_view line) {
    const auto colon = line.rfind(':');
    if (colon == std::string_view::npos || colon + 1 >= line.size() ||
        (line[colon + 1] != ' ' && line[colon + 1] != '\t'))
        return false;
    return !trim(line.substr(0, colon)).empty() && to_u64(line.substr(colon + 1)).has_value();
}

bool headerless_shape(const TextFile& f) {
    std::size_t total = 0, match = 0, indented = 0, netdev_names = 0;
    for (const auto& l : f.lines) {
        if (trim(l).empty() || watch_command(l)) continue;  // the header of a `watch` screen
        ++total;
        if (starts_with(trim(l), "hca_id:")) return false;  // ibv_devinfo | grep
        if (!counter_line(l)) continue;
        ++match;
        if (std::isspace(static_cast<unsigned char>(l[0]))) ++indented;
        if (netdev_only_stat(trim(std::string_view(l).substr(0, l.rfind(':'))))) ++netdev_names;
    }
    if (match == 0 || match * 5 < total * 4) return false;
    return indented * 2 > match || netdev_names > 0;
}

}  // namespace

bool is_ethtool_s(const TextFile& f) {
    if (has_header(f)) return true;
    if (ethtool_s_command(f)) {
        for (const auto& l : f.lines)
            if (counter_line(l)) return true;
        return false;
    }
    return headerless_shape(f);
}

std::string parse_ethtool_s(const TextFile& f, Model& m) {
    IfaceFile out;
    out.file = f.name;
    out.kind = "ethtool -S";
    out.iface_hint = iface_in_command(f.command, "ethtool", {"-S", "--statistics"});
    const bool header = has_header(f);
    for (std::size_t i = first_content_line(f) + (header ? 1 : 0); i < f.lines.size(); ++i) {
        const std::string_view line = f.lines[i];
        if (trim(line).empty()) continue;
        const auto colon = line.rfind(':');
        const std::string name(colon == std::string_view::npos ? std::string_view{}
                                                               : trim(line.substr(0, colon)));
        if (name.empty() || (i == first_content_line(f) && watch_command(line))) {
            if (!name.empty()) continue;  // a `watch` header: the capture's clock, not a counter
            m.note(f, i, "not a \"name: value\" ethtool -S line: " + quote_value(line));
            continue;
        }
        Counter c{name, to_u64(line.substr(colon + 1)), source_of(f, i), {}};
        if (!c.value) {
            c.error = "not an unsigned decimal: " + quote_value(trim(line.substr(colon + 1)));
            m.bad_value(f, i, "ethtool -S counter " + name + ": " + c.error);
        }
        add_counter(out.ethtool_stats, std::move(c), m, f.name);
    }
    if (out.ethtool_stats.empty()) m.note(f.name, "ethtool -S output with no counter lines");
    m.iface_files.push_back(std::move(out));
    return header ? "ethtool -S" : "ethtool -S (no header)";
}

}  // namespace rh::bundle
