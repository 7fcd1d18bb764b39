// `ibv_devinfo [-v]` (rdma-core libibverbs/examples/devinfo.c): "hca_id:\t<dev>", then
// "\t<key>:\t\t<value>" device lines (fw_ver, node_guid, ...), then per port "\t\tport:\t<n>"
// with "state: PORT_ACTIVE (4)", "max_mtu: 4096 (5)", "active_mtu: 1024 (3)",
// "link_layer: Ethernet" and, with -v, "active_width: 4X (2)", "active_speed: 25.0 Gbps (32)",
// "phys_state: LINK_UP (5)" and the GID table: "GID[  3]:\t\t::ffff:192.168.1.10, RoCE v2"
// (rdma-core >= 17: RoCE v2 entries as inet_ntop text, v1 as 8 hex groups, ", <type>" on
// Ethernet) or "GID[0]:\t\tfe80:0000:..." (older, no type).
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <map>

#include "collectors/bundle/bundle_model.h"
#include "core/inventory/parse.h"
#include "core/sysfs.h"

namespace rh::bundle {

namespace {

/// "PORT_ACTIVE (4)" -> {"PORT_ACTIVE", 4}; nullopt without a trailing "(<decimal>)".
std::optional<std::pair<std::string, unsigned>> coded(std::string_view v) {
    v = trim(v);
    const auto open = v.rfind('(');
    if (open == std::string_view::npos || v.back() != ')') return std::nullopt;
    const auto code = to_u64(v.substr(open + 1, v.size() - open - 2));
    if (!code || *code > 255) return std::nullopt;
    return std::pair{std::string(trim(v.substr(0, open))), static_cast<unsigned>(*code)};
}

struct Cursor {
    std::string device;
    std::optional<unsigned> port;
    bool verbose = false;
    /// active_width / active_speed text per port ("4X", "25.0 Gbps"), composed into a rate.
    std::map<PortKey, std::pair<std::string, std::string>> width_speed;
};

void port_line(const TextFile& f, std::size_t i, std::string_view key, std::string_view value,
               Cursor& cur, Model& m) {
    Port& p = m.port(cur.device, *cur.port);
    const PortKey k{cur.device, *cur.port};
    auto& sources = m.port_sources[k];
    for (const char* attr : {"state", "phys_state", "link_layer", "active_mtu", "max_mtu"})
        if (key == attr) sources.try_emplace(attr, source_of(f, i));
    if (key == "active_speed") sources.try_emplace("rate", source_of(f, i));
    if (starts_with(key, "GID[")) sources.try_emplace("gids", source_of(f, i));
    const auto bad = [&](const char* what) {
        m.note(f, i, std::string("ibv_devinfo ") + what + ": " + quote_value(value));
    };
    if (key == "state") {
        auto c = coded(value);
        if (!c) return bad("state is not \"NAME (code)\"");
        p.state_code = c->second;
        p.state = port_state_name(c->second);
        if (p.state.empty())
            p.state = starts_with(c->first, "PORT_") ? c->first.substr(5) : c->first;
    } else if (key == "phys_state") {
        cur.verbose = true;
        auto c = coded(value);
        if (!c) return bad("phys_state is not \"NAME (code)\"");
        p.phys_state_code = c->second;
        p.phys_state = phys_state_name(c->second);
        if (p.phys_state.empty()) p.phys_state = c->first;
    } else if (key == "max_mtu" || key == "active_mtu") {
        auto c = coded(value);
        if (!c) return bad("MTU is not \"BYTES (enum)\"");
        auto& slot = key == "max_mtu" ? p.verbs.max_mtu_bytes : p.verbs.active_mtu_bytes;
        slot = ibv_mtu_to_bytes(static_cast<int>(c->second));
        if (!slot)
            p.verbs.unavailable =
                "ibv_devinfo printed " + std::string(key) + " " + std::string(trim(value));
    } else if (key == "link_layer") {
        p.link_layer = std::string(value);
    } else if (key == "active_width" || key == "active_speed") {
        cur.verbose = true;
        auto c = coded(value);
        if (!c) return bad("width/speed is not \"TEXT (code)\"");
        auto& ws = cur.width_speed[{cur.device, *cur.port}];
        (key == "active_width" ? ws.first : ws.second) = c->first;
    } else if (starts_with(key, "GID[")) {
        cur.verbose = true;
        const auto idx = to_u64(key.substr(4, key.find(']') - 4));
        const auto comma = value.find(',');
        const std::string gid = canonical_gid(value.substr(0, comma));
        if (!idx || key.back() != ']' || gid.empty()) return bad("GID line not understood");
        Gid& g = m.gids[{cur.device, *cur.port}][static_cast<unsigned>(*idx)];
        g.index = static_cast<unsigned>(*idx);
        g.gid = gid;
        if (comma != std::string_view::npos) {
            const auto type = trim(value.substr(comma + 1));
            // sysfs gid_attrs/types prints "IB/RoCE v1" for what devinfo calls "RoCE v1"
            g.type = type == "RoCE v1" ? "IB/RoCE v1" : std::string(type);
        }
    } else if (key == "max_msg_sz" || key == "gid_tbl_len") {
        cur.verbose = true;
    }
}

/// active_width "4X" x active_speed "25.0 Gbps" -> "100 Gb/sec (4X)", the form of sysfs
/// `ports/<p>/rate` (without the IB speed name); empty when either is missing or not understood
/// ("invalid width", "invalid speed").
std::string compose_rate(const std::string& width, const std::string& speed) {
    if (width.size() < 2 || width.back() != 'X') return {};
    const auto gbps_pos = speed.find(" Gbps");
    if (gbps_pos == std::string::npos) return {};
    const std::uint64_t lanes =
        to_u64(std::string_view(width).substr(0, width.size() - 1)).value_or(0);
    const double lane_gbps = to_double(speed.substr(0, gbps_pos)).value_or(0);
    if (lanes == 0 || lane_gbps <= 0) return {};
    char buf[64];
    std::snprintf(buf, sizeof buf, "%g Gb/sec (%lluX)", lane_gbps * static_cast<double>(lanes),
                  static_cast<unsigned long long>(lanes));
    return buf;
}

}  // namespace

bool is_ibv_devinfo(const TextFile& f) {
    for (const auto& l : f.lines)
        if (starts_with(trim(l), "hca_id:")) return true;
    return false;
}

std::string parse_ibv_devinfo(const TextFile& f, Model& m) {
    Cursor cur;
    std::vector<PortKey> seen;
    for (std::size_t i = 0; i < f.lines.size(); ++i) {
        const std::string_view line = trim(f.lines[i]);
        const auto colon = line.find(':');
        if (line.empty() || colon == std::string_view::npos) continue;  // cap flag lists
        const std::string_view key = trim(line.substr(0, colon));
        const std::string_view value = trim(line.substr(colon + 1));
        if (key == "hca_id") {
            cur.device = std::string(value);
            cur.port.reset();
            if (value.empty() || tokens(value).size() != 1) {
                m.note(f, i, "ibv_devinfo hca_id without a device name");
                cur.device.clear();
            } else {
                m.device(cur.device);
            }
        } else if (cur.device.empty()) {
            continue;  // before the first hca_id (e.g. a shell prompt)
        } else if (key == "port") {
            const auto n = to_u64(value);
            if (!n || *n == 0 || *n > 255) {
                m.note(f, i, "ibv_devinfo port number not understood: " + quote_value(value));
                cur.port.reset();
                continue;
            }
            cur.port = static_cast<unsigned>(*n);
            seen.push_back({cur.device, *cur.port});
            m.port(cur.device, *cur.port);
        } else if (cur.port) {
            port_line(f, i, key, value, cur, m);
        } else if (key == "fw_ver") {
            m.device(cur.device).fw_ver = std::string(value);
        } else if (key == "node_guid") {
            m.device(cur.device).node_guid = std::string(value);
        } else if (key == "vendor_id" || key == "vendor_part_id") {
            // "0x15b3" (hex) and "4125" (decimal), as devinfo.c prints them.
            const std::string v(value);
            char* end = nullptr;
            const unsigned long n = std::strtoul(v.c_str(), &end, 0);
            if (!v.empty() && end && *end == '\0' && n <= 0xffff)
                (key == "vendor_id" ? m.device(cur.device).vendor_id
                                    : m.device(cur.device).vendor_part_id) =
                    static_cast<unsigned>(n);
        } else if (key == "sys_image_guid") {
            m.sys_image_guid[cur.device] = std::string(value);
        }
    }
    for (const auto& [k, ws] : cur.width_speed) {
        Port& p = m.port(k.device, k.port);
        if (p.rate.empty()) p.rate = compose_rate(ws.first, ws.second);
    }
    if (seen.empty()) m.note(f.name, "ibv_devinfo output lists no port");
    // -v prints every populated GID: its ports' tables are known, even when empty.
    if (cur.verbose)
        for (const auto& k : seen) m.gid_table_seen.insert(k);
    return cur.verbose ? "ibv_devinfo -v" : "ibv_devinfo";
}

}  // namespace rh::bundle
