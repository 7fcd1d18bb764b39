#include "collectors/normalize.h"

#include <exception>
#include <filesystem>
#include <limits>
#include <map>
#include <unordered_map>

namespace rh {

namespace {

bool starts_with(std::string_view s, std::string_view prefix) {
    return s.substr(0, prefix.size()) == prefix;
}

/// Driver basename of a sysfs `.../device/driver` link, empty when there is none. One
/// readlink: the kernel follows the intermediate class/ and device links itself.
std::string driver_of(const SysfsRoot& sysfs, const std::string& device_dir) {
    std::error_code ec;
    const auto target =
        std::filesystem::read_symlink(sysfs.path(device_dir + "/device/driver"), ec);
    return ec ? std::string{} : target.filename().string();
}

std::string replace_p(std::string_view text, unsigned p) {
    std::string out;
    out.reserve(text.size());
    for (std::size_t i = 0; i < text.size(); ++i) {
        if (text.substr(i, 3) == "{p}") {
            out += static_cast<char>('0' + p);
            i += 2;
        } else {
            out += text[i];
        }
    }
    return out;
}

std::map<std::string, std::string> parse_labels(const std::string& text) {
    std::map<std::string, std::string> labels;
    std::size_t start = 0;
    while (start < text.size()) {
        auto end = text.find(',', start);
        if (end == std::string::npos) end = text.size();
        const auto item = text.substr(start, end - start);
        const auto eq = item.find('=');
        if (eq != std::string::npos) labels[item.substr(0, eq)] = item.substr(eq + 1);
        start = end + 1;
    }
    return labels;
}

/// One table row with `{p}` expanded: built once per family, reused for every port.
struct Row {
    const MapEntry* entry = nullptr;
    unsigned priority = 0;
    std::string raw;
    std::string key;  ///< "name{labels}": one normalized counter
    std::map<std::string, std::string> labels;
};

/// A family's table, expanded, with an index raw name -> rows for the name-keyed lists.
struct CompiledTable {
    std::vector<Row> rows;
    std::unordered_map<std::string_view, std::vector<std::size_t>> hw, pma, eth;
};

CompiledTable compile(std::span<const MapEntry> table) {
    CompiledTable t;
    for (const auto& e : table) {
        const bool per_prio = e.raw.find("{p}") != std::string_view::npos ||
                              e.labels.find("{p}") != std::string_view::npos;
        for (unsigned p = 0; p < (per_prio ? 8u : 1u); ++p) {
            Row r;
            r.entry = &e;
            r.priority = p;
            r.raw = replace_p(e.raw, p);
            const std::string labels = replace_p(e.labels, p);
            r.key = std::string(e.name) + "{" + labels + "}";
            r.labels = parse_labels(labels);
            t.rows.push_back(std::move(r));
        }
    }
    for (std::size_t i = 0; i < t.rows.size(); ++i) {  // after rows stop moving
        const Row& r = t.rows[i];
        if (r.entry->from == RawList::hw_counters) t.hw[r.raw].push_back(i);
        if (r.entry->from == RawList::counters) t.pma[r.raw].push_back(i);
        if (r.entry->from == RawList::ethtool) t.eth[r.raw].push_back(i);
    }
    return t;
}

const CompiledTable& compiled(DriverFamily f) {
    static const CompiledTable tables[] = {
        compile(table_for(DriverFamily::unknown)), compile(table_for(DriverFamily::mlx5)),
        compile(table_for(DriverFamily::bnxt)), compile(table_for(DriverFamily::irdma_ice)),
        compile(table_for(DriverFamily::rxe))};
    return tables[static_cast<int>(f)];
}

/// The raw counter behind each row of one table for one port (nullptr = absent).
class Hits {
  public:
    Hits(const CompiledTable& t, const Port& port, bool rdma_side) : hit_(t.rows.size()) {
        if (rdma_side) {
            for (const auto& c : port.nl_hw_counters) mark(t.hw, c);
            for (const auto& c : port.hw_counters) mark(t.hw, c);  // sysfs wins over netlink
            for (const auto& c : port.counters) mark(t.pma, c);
        } else if (port.netdev) {
            for (const auto& c : port.netdev->ethtool_stats) mark(t.eth, c);
        }
    }
    const Counter* operator[](std::size_t i) const { return hit_[i]; }

  private:
    using Index = std::unordered_map<std::string_view, std::vector<std::size_t>>;
    void mark(const Index& idx, const Counter& c) {
        auto it = idx.find(c.name);
        if (it != idx.end())
            for (auto i : it->second) hit_[i] = &c;
    }
    std::vector<const Counter*> hit_;
};

/// DCB / link-pause value of a row as a synthetic Counter in `scratch`; nullptr when absent.
const Counter* generic_value(const Row& r, const Port& port, Counter& scratch) {
    if (!port.netdev) return nullptr;
    const auto& nd = *port.netdev;
    std::optional<std::uint64_t> v;
    std::string source;
    switch (r.entry->from) {
        case RawList::dcb_requests:
        case RawList::dcb_indications:
            if (!nd.dcb) return nullptr;
            v = r.entry->from == RawList::dcb_requests ? nd.dcb->pfc_requests[r.priority]
                                                       : nd.dcb->pfc_indications[r.priority];
            source = nd.dcb->source;
            break;
        case RawList::link_pause_tx:
        case RawList::link_pause_rx:
            v = r.entry->from == RawList::link_pause_tx ? nd.link_pause.tx_frames
                                                        : nd.link_pause.rx_frames;
            source = nd.link_pause.source;
            break;
        default:
            return nullptr;
    }
    if (!v) return nullptr;
    scratch = Counter{r.raw, v, std::move(source), {}};
    return &scratch;
}

/// Collects candidates per (name, labels): a readable one replaces an unreadable one; otherwise
/// the first candidate stays.
class Builder {
  public:
    void add(const Row& r, const Counter& c) {
        auto it = by_key_.find(r.key);
        if (it != by_key_.end() && (it->second.value || !c.value)) return;
        NormalizedCounter n;
        n.name = std::string(r.entry->name);
        n.labels = r.labels;
        if (c.value && *c.value <= std::numeric_limits<std::uint64_t>::max() / r.entry->scale)
            n.value = *c.value * r.entry->scale;
        n.unit = std::string(r.entry->unit);
        n.raw_name = c.name;
        n.source = c.source;
        n.width_bits = r.entry->width_bits;
        n.saturates = r.entry->saturates;
        by_key_.insert_or_assign(r.key, std::move(n));
    }

    std::vector<NormalizedCounter> take() {
        std::vector<NormalizedCounter> out;
        out.reserve(by_key_.size());
        for (auto& [key, c] : by_key_) out.push_back(std::move(c));
        return out;
    }

  private:
    std::map<std::string_view, NormalizedCounter> by_key_;  // keys live in the static tables
};

DriverFamily family_of_netdev_driver(const std::string& driver) {
    if (driver == "mlx5_core") return DriverFamily::mlx5;
    if (driver == "bnxt_en") return DriverFamily::bnxt;
    if (driver == "ice") return DriverFamily::irdma_ice;
    return DriverFamily::unknown;
}

}  // namespace

std::string_view to_string(DriverFamily f) {
    switch (f) {
        case DriverFamily::mlx5:
            return "mlx5";
        case DriverFamily::bnxt:
            return "bnxt";
        case DriverFamily::irdma_ice:
            return "irdma_ice";
        case DriverFamily::rxe:
            return "rxe";
        case DriverFamily::unknown:
            return "unknown";
    }
    return "unknown";
}

bool is_netdev_list(RawList l) {
    return l != RawList::hw_counters && l != RawList::counters;
}

std::span<const MapEntry> table_for(DriverFamily f) {
    switch (f) {
        case DriverFamily::mlx5:
            return mlx5_table();
        case DriverFamily::bnxt:
            return bnxt_table();
        case DriverFamily::irdma_ice:
            return irdma_ice_table();
        case DriverFamily::rxe:
            return rxe_table();
        case DriverFamily::unknown:
            return {};
    }
    return {};
}

DriverFamily detect_rdma_driver(const SysfsRoot& sysfs, const std::string& dev) {
    if (starts_with(dev, "mlx5_")) return DriverFamily::mlx5;
    if (starts_with(dev, "bnxt_re")) return DriverFamily::bnxt;
    if (starts_with(dev, "irdma")) return DriverFamily::irdma_ice;
    if (starts_with(dev, "rxe")) return DriverFamily::rxe;
    // Renamed devices (udev "rocep59s0f0", `rdma dev set name`): the PCI function's driver.
    const std::string dir = "class/infiniband/" + dev;
    const std::string driver = driver_of(sysfs, dir);
    if (driver == "i40e") return DriverFamily::irdma_ice;  // irdma on X722: same RDMA names
    if (!driver.empty()) return family_of_netdev_driver(driver);
    // A renamed rxe has no PCI device; it has `parent` and rxe-only counter names.
    if (sysfs.exists(dir + "/parent") && sysfs.exists(dir + "/ports/1/hw_counters/rcvd_rnr_err"))
        return DriverFamily::rxe;
    return DriverFamily::unknown;
}

DriverFamily detect_netdev_driver(const SysfsRoot& sysfs, const std::string& ifname) {
    if (ifname.empty()) return DriverFamily::unknown;
    return family_of_netdev_driver(driver_of(sysfs, "class/net/" + ifname));
}

std::vector<NormalizedCounter> normalize_port(const Port& port, DriverFamily rdma,
                                              DriverFamily netdev) {
    const CompiledTable& rt = compiled(rdma);
    const CompiledTable& nt = compiled(netdev);
    const Hits rhits(rt, port, true), nhits(nt, port, false);
    Builder b;
    Counter scratch;
    for (const bool fallback : {false, true}) {
        for (std::size_t i = 0; i < rt.rows.size(); ++i) {
            const Row& r = rt.rows[i];
            if (r.entry->fallback == fallback && !is_netdev_list(r.entry->from) && rhits[i])
                b.add(r, *rhits[i]);
        }
        for (std::size_t i = 0; i < nt.rows.size(); ++i) {
            const Row& r = nt.rows[i];
            if (r.entry->fallback != fallback || !is_netdev_list(r.entry->from)) continue;
            if (const Counter* c = nhits[i] ? nhits[i] : generic_value(r, port, scratch))
                b.add(r, *c);
        }
    }
    return b.take();
}

void normalize_device(Device& d, const SysfsRoot& sysfs) {
    try {
        const DriverFamily rdma = detect_rdma_driver(sysfs, d.name);
        for (auto& port : d.ports) {
            const std::string ifname = port.netdev ? port.netdev->name : port.netdev_name;
            DriverFamily netdev = detect_netdev_driver(sysfs, ifname);
            if (netdev == DriverFamily::unknown && rdma != DriverFamily::rxe) netdev = rdma;
            port.normalized = normalize_port(port, rdma, netdev);
        }
    } catch (const std::exception& e) {
        d.problems.push_back(Note{d.name, std::string("normalizing counters failed: ") + e.what()});
    }
}

}  // namespace rh
