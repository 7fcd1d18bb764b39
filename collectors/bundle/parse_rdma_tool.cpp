// iproute2 `rdma` output (rdma/stat.c, rdma/link.c):
// - `rdma statistic show [link dev/port]`: "link mlx5_0/1 rx_write_requests 0 ..." on one line
//   (iproute2 < 6.8) or "link mlx5_0/1 " then one indented "    name value " line per counter.
//   These come from RDMA netlink, so they go to Port::nl_hw_counters.
// - `rdma link show`: "link mlx5_0/1 state ACTIVE physical_state LINK_UP netdev ens1f0np0";
//   InfiniBand ports also "subnet_prefix fe80:0000:0000:0000 lid 5 sm_lid 1 lmc 0" (a non-zero
//   LID: the link layer is InfiniBand).
// `rdma statistic qp show` lines (they carry "cntn") are per-QP counters and are left out.
#include <cctype>
#include <set>

#include "collectors/bundle/bundle_model.h"
#include "core/inventory/parse.h"
#include "core/sysfs.h"

namespace rh::bundle {

namespace {

/// "mlx5_0/1" -> {mlx5_0, 1}.
std::optional<PortKey> link_target(std::string_view t) {
    const auto slash = t.rfind('/');
    if (slash == std::string_view::npos || slash == 0) return std::nullopt;
    const auto port = to_u64(t.substr(slash + 1));
    if (!port || *port == 0 || *port > 255) return std::nullopt;
    return PortKey{std::string(t.substr(0, slash)), static_cast<unsigned>(*port)};
}

bool is_link_line(std::string_view line) {
    const auto t = tokens(line);
    return t.size() >= 2 && t[0] == "link" && !std::isspace(static_cast<unsigned char>(line[0])) &&
           link_target(t[1]);
}

/// rdma/link.c link_state_to_str / phys_state_to_str: the code is the index.
std::optional<unsigned> index_of(std::string_view name, std::initializer_list<const char*> names) {
    unsigned i = 0;
    for (const char* n : names) {
        if (name == n) return i;
        ++i;
    }
    return std::nullopt;
}

/// "name 12 name 34 ...": names each followed by a whole number.
bool counter_pairs(const std::vector<std::string_view>& t) {
    if (t.empty() || t.size() % 2 != 0) return false;
    for (std::size_t k = 0; k < t.size(); k += 2)
        if (to_u64(t[k]) || !to_u64(t[k + 1])) return false;
    return true;
}

struct Seen {
    bool link = false, stats = false, qp = false;
};

/// One "key value" pair of the current port.
void pair(const TextFile& f, std::size_t i, const PortKey& k, std::string_view key,
          std::string_view value, Seen& seen, Model& m) {
    static const std::set<std::string_view> kLinkInfo = {"subnet_prefix", "lid", "sm_lid", "lmc",
                                                         "netdev_index"};
    Port& p = m.port(k.device, k.port);
    if (key == "state") {
        seen.link = true;
        if (auto c = index_of(value, {"NOP", "DOWN", "INIT", "ARMED", "ACTIVE", "ACTIVE_DEFER"})) {
            if (!p.state_code) p.state_code = *c, p.state = port_state_name(*c);
        } else {
            m.note(f, i, "rdma link state not understood: " + quote_value(value));
        }
    } else if (key == "physical_state") {
        seen.link = true;
        if (auto c = index_of(value, {"NOP", "SLEEP", "POLLING", "DISABLED", "ARMED", "LINK_UP",
                                      "LINK_ERROR_RECOVER", "PHY_TEST"})) {
            if (!p.phys_state_code) p.phys_state_code = *c, p.phys_state = phys_state_name(*c);
        } else {
            m.note(f, i, "rdma link physical_state not understood: " + quote_value(value));
        }
    } else if (key == "netdev") {
        seen.link = true;
        m.port_netdev.try_emplace(k, std::string(value), source_of(f, i) + " (rdma link)");
    } else if (kLinkInfo.count(key)) {
        seen.link = true;
        // `rdma link` prints no link layer. A LID is assigned only on InfiniBand (by the subnet
        // manager; RoCE ports have none): a non-zero lid or sm_lid means InfiniBand; 0 tells
        // nothing (an IB port without SM has LID 0 too), so the link layer stays unknown.
        if ((key == "lid" || key == "sm_lid") && p.link_layer.empty())
            if (const auto v = to_u64(value); v && *v != 0) {
                p.link_layer = "InfiniBand";
                m.port_sources[k].try_emplace(
                    "link_layer",
                    source_of(f, i) + " (" + std::string(key) + " " + std::string(value) + ")");
            }
    } else {
        seen.stats = true;
        Counter c{std::string(key), to_u64(value), source_of(f, i), {}};
        if (!c.value) {
            c.error = "not an unsigned decimal: " + quote_value(value);
            m.bad_value(f, i, "rdma statistic " + c.name + ": " + c.error);
        }
        add_counter(p.nl_hw_counters, std::move(c), m, f.name);
    }
}

}  // namespace

bool is_rdma_tool(const TextFile& f) {
    for (const auto& l : f.lines)
        if (is_link_line(l)) return true;
    return false;
}

std::string parse_rdma_tool(const TextFile& f, Model& m) {
    Seen seen;
    std::optional<PortKey> cur;
    for (std::size_t i = 0; i < f.lines.size(); ++i) {
        const std::string_view line = f.lines[i];
        auto t = tokens(line);
        if (t.empty()) continue;
        std::size_t first = 0;
        if (is_link_line(line)) {
            cur = link_target(t[1]);
            first = 2;
            for (auto tok : t)
                if (tok == "cntn") cur.reset();  // rdma statistic qp show: per-QP counters
            if (!cur) {
                seen.qp = true;
                continue;
            }
            m.port(cur->device, cur->port);
        } else if (!cur ||
                   (!std::isspace(static_cast<unsigned char>(line[0])) && !counter_pairs(t))) {
            // "name value" pairs whose indentation was lost in the paste still belong to the
            // port above (iproute2 >= 6.8 prints one counter per line; older ones one long
            // line that a terminal or a ticket wraps).
            if (t[0] != "caps:")  // `rdma link -d` capability line
                m.note(f, i, "not an rdma statistic/link line: " + quote_value(line));
            continue;
        }
        if (first == t.size() || t[first] == "caps:") continue;
        if ((t.size() - first) % 2 != 0) {
            m.note(f, i, "rdma line is not \"name value\" pairs: " + quote_value(line));
            continue;
        }
        for (std::size_t k = first; k + 1 < t.size(); k += 2)
            pair(f, i, *cur, t[k], t[k + 1], seen, m);
    }
    if (seen.qp) m.note(f.name, "per-QP counter lines (rdma statistic qp show) left out");
    if (seen.link && seen.stats) return "rdma link + statistic show";
    return seen.link ? "rdma link show" : "rdma statistic show";
}

}  // namespace rh::bundle
