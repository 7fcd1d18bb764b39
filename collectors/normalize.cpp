#include "collectors/normalize.h"

#include <algorithm>
#include <cstring>
#include <exception>
#include <filesystem>
#include <limits>
#include <map>
#include <mutex>
#include <unordered_map>

namespace rh {

namespace {

/// Driver basename of a sysfs `.../device/driver` link, empty when there is none. One
/// readlink: the kernel follows the intermediate class/ and device links itself.
std::string driver_of(const SysfsRoot& sysfs, const std::string& device_dir) {
    std::error_code ec;
    const auto target =
        std::filesystem::read_symlink(sysfs.path(device_dir + "/device/driver"), ec);
    return ec ? std::string{} : target.filename().string();
}

/// `to = from` unless they are already equal (a comparison is cheaper than a copy): for the DCB
/// and link-pause entries, whose source apply() cannot assume unchanged.
void assign_if_changed(std::string& to, const std::string& from) {
    if (to != from) to = from;
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

/// A family's compiled table, built once per registered driver; the empty one for unknown.
const CompiledTable& compiled(DriverFamily f) {
    static const std::map<DriverFamily, CompiledTable> tables = [] {
        std::map<DriverFamily, CompiledTable> t;
        t.emplace(nullptr, CompiledTable{});
        for (const Driver* d : all_drivers()) t.emplace(d, compile(d->table));
        return t;
    }();
    const auto it = tables.find(f);
    return it != tables.end() ? it->second : tables.at(nullptr);
}

}  // namespace

bool is_netdev_list(RawList l) {
    return l != RawList::hw_counters && l != RawList::counters;
}

DriverFamily detect_rdma_driver(const SysfsRoot& sysfs, const std::string& dev) {
    if (const Driver* d = driver_of_rdma_name(dev)) return d;
    // Renamed devices (udev "rocep59s0f0", `rdma dev set name`): the PCI function's driver.
    const std::string dir = "class/infiniband/" + dev;
    const std::string driver = driver_of(sysfs, dir);
    if (!driver.empty()) return driver_of_pci_driver(driver);
    for (const Driver* d : all_drivers())
        if (d->renamed_device && d->renamed_device(sysfs, dir)) return d;
    return nullptr;
}

DriverFamily detect_netdev_driver(const SysfsRoot& sysfs, const std::string& ifname) {
    if (ifname.empty()) return nullptr;
    return driver_of_netdev_driver(driver_of(sysfs, "class/net/" + ifname));
}

DriverFamily netdev_family_of(const SysfsRoot& sysfs, const Port& port, DriverFamily rdma) {
    const std::string ifname = port.netdev ? port.netdev->name : port.netdev_name;
    DriverFamily netdev = detect_netdev_driver(sysfs, ifname);
    if (!netdev && rdma && rdma->own_netdev) netdev = rdma;
    return netdev;
}

/// One way a row can give a normalized counter: a raw list entry, or (generic) the DCB / link
/// pause value the row names, which exists only while that value is present.
struct PortNormalizer::Candidate {
    enum class From : std::uint8_t { hw, nl_hw, pma, eth, generic };
    const Row* row = nullptr;
    From from = From::generic;
    std::uint32_t index = 0;  ///< entry in the list `from`; unused for generic
};

PortNormalizer::PortNormalizer(const Port& port, DriverFamily rdma, DriverFamily netdev)
    : rdma_(rdma), netdev_(netdev) {
    resolve(port);
}

PortNormalizer::~PortNormalizer() = default;
PortNormalizer::PortNormalizer(PortNormalizer&&) noexcept = default;
PortNormalizer& PortNormalizer::operator=(PortNormalizer&&) noexcept = default;

PortNormalizer::ListSizes PortNormalizer::sizes_of(const Port& port) {
    return {port.hw_counters.size(), port.nl_hw_counters.size(), port.counters.size(),
            port.netdev ? port.netdev->ethtool_stats.size() : 0, port.netdev.has_value()};
}

namespace {

/// What a resolution depends on besides the two families: every name of the port's raw lists
/// in order (each length-prefixed, so no two layouts give one key) and whether it has a netdev.
std::string layout_key(const Port& port) {
    const std::vector<Counter>* lists[] = {&port.hw_counters, &port.nl_hw_counters, &port.counters,
                                           port.netdev ? &port.netdev->ethtool_stats : nullptr};
    std::size_t bytes = 1;
    for (const auto* l : lists)
        if (l) {
            bytes += sizeof(std::uint32_t);
            for (const Counter& c : *l) bytes += sizeof(std::uint32_t) + c.name.size();
        }
    std::string key(bytes, '\0');  // filled through one pointer: a few hundred names per port
    char* p = key.data();
    auto put = [&p](std::size_t v) {
        const auto n = static_cast<std::uint32_t>(v);
        std::memcpy(p, &n, sizeof n);
        p += sizeof n;
    };
    *p++ = port.netdev ? 'n' : '-';
    for (const auto* l : lists) {
        if (!l) continue;
        put(l->size());
        for (const Counter& c : *l) {
            put(c.name.size());
            std::memcpy(p, c.name.data(), c.name.size());
            p += c.name.size();
        }
    }
    return key;
}

}  // namespace

/// Resolutions kept by (families, names of the raw lists): a discovery re-reads the same names
/// every time, and a host's ports of one NIC model share one. Keyed by the names themselves, so
/// a renamed, added or removed counter is simply another key (nothing to invalidate); bounded,
/// the oldest dropped first.
struct PortNormalizer::KeptCache {
    struct Kept {
        DriverFamily rdma, netdev;
        std::string key;
        std::vector<Candidate> cands;
        std::vector<std::size_t> group_begin;
    };
    static constexpr std::size_t kMaxKept = 64;
    std::mutex mu;
    std::vector<Kept> kept;
};

PortNormalizer::KeptCache& PortNormalizer::kept_cache() {
    static KeptCache cache;
    return cache;
}

/// Takes the kept resolution of `key` (from layout_key) and these families, if there is one.
bool PortNormalizer::reuse_kept(const std::string& key) {
    KeptCache& cache = kept_cache();
    const std::lock_guard lock(cache.mu);
    for (const KeptCache::Kept& k : cache.kept)
        if (k.rdma == rdma_ && k.netdev == netdev_ && k.key == key) {
            cands_ = k.cands;
            group_begin_ = k.group_begin;
            return true;
        }
    return false;
}

/// Keeps this resolution under `key`, dropping the oldest one when full.
void PortNormalizer::keep(std::string key) const {
    KeptCache& cache = kept_cache();
    const std::lock_guard lock(cache.mu);
    if (cache.kept.size() >= KeptCache::kMaxKept) cache.kept.erase(cache.kept.begin());
    cache.kept.push_back(KeptCache::Kept{rdma_, netdev_, std::move(key), cands_, group_begin_});
}

/// No winner yet, none before: the next apply() writes every entry.
void PortNormalizer::start_winners() {
    const std::size_t groups = group_begin_.size() - 1;
    winner_.assign(groups, -1);
    last_winner_.assign(groups, kNever);
}

/// cands_ and group_begin_ from the two families' tables and the port's raw lists.
void PortNormalizer::collect_candidates(const Port& port) {
    using From = Candidate::From;
    const CompiledTable& rt = compiled(rdma_);
    const CompiledTable& nt = compiled(netdev_);

    // The raw entry behind each row (none = absent). For a name in both hw lists sysfs wins
    // over netlink; for a name listed twice, the last one.
    struct Hit {
        bool set = false;
        From from = From::hw;
        std::uint32_t index = 0;
    };
    using Index = std::unordered_map<std::string_view, std::vector<std::size_t>>;
    auto mark = [](std::vector<Hit>& hits, const Index& idx, const std::vector<Counter>& list,
                   From from) {
        for (std::size_t k = 0; k < list.size(); ++k)
            if (auto it = idx.find(list[k].name); it != idx.end())
                for (auto i : it->second) hits[i] = Hit{true, from, static_cast<std::uint32_t>(k)};
    };
    std::vector<Hit> rhits(rt.rows.size()), nhits(nt.rows.size());
    mark(rhits, rt.hw, port.nl_hw_counters, From::nl_hw);
    mark(rhits, rt.hw, port.hw_counters, From::hw);
    mark(rhits, rt.pma, port.counters, From::pma);
    if (port.netdev) mark(nhits, nt.eth, port.netdev->ethtool_stats, From::eth);

    // Candidates per (name, labels) in the order they are tried: non-fallback rows before
    // fallback ones, RDMA rows before netdev rows. Collected in that order, then sorted by key
    // (as the output is) keeping it within a key: one vector, no node per key.
    struct Keyed {
        std::string_view key;
        std::size_t order;
        Candidate c;
    };
    std::vector<Keyed> keyed;
    auto add = [&](const Row& r, Candidate::From from, std::uint32_t index) {
        keyed.push_back(Keyed{r.key, keyed.size(), Candidate{&r, from, index}});
    };
    for (const bool fallback : {false, true}) {
        for (std::size_t i = 0; i < rt.rows.size(); ++i) {
            const Row& r = rt.rows[i];
            if (r.entry->fallback == fallback && !is_netdev_list(r.entry->from) && rhits[i].set)
                add(r, rhits[i].from, rhits[i].index);
        }
        for (std::size_t i = 0; i < nt.rows.size(); ++i) {
            const Row& r = nt.rows[i];
            if (r.entry->fallback != fallback || !is_netdev_list(r.entry->from)) continue;
            if (nhits[i].set)
                add(r, nhits[i].from, nhits[i].index);
            else if (r.entry->from != RawList::ethtool && port.netdev)
                add(r, From::generic, 0);
        }
    }
    std::sort(keyed.begin(), keyed.end(), [](const Keyed& a, const Keyed& b) {
        return a.key != b.key ? a.key < b.key : a.order < b.order;
    });
    cands_.clear();
    group_begin_.assign(1, 0);
    for (std::size_t i = 0; i < keyed.size(); ++i) {
        cands_.push_back(keyed[i].c);
        if (i + 1 == keyed.size() || keyed[i + 1].key != keyed[i].key)
            group_begin_.push_back(cands_.size());
    }
}

void PortNormalizer::resolve(const Port& port) {
    sizes_ = sizes_of(port);
    std::string key = layout_key(port);
    if (reuse_kept(key)) {
        start_winners();
        return;
    }
    collect_candidates(port);
    start_winners();
    keep(std::move(key));
}

/// A candidate's raw value into `v`; false when it does not exist this pass (generic value
/// absent).
bool PortNormalizer::raw_value(const Port& port, const Candidate& c,
                               std::optional<std::uint64_t>& v) {
    using From = Candidate::From;
    switch (c.from) {
        case From::hw:
            v = port.hw_counters[c.index].value;
            return true;
        case From::nl_hw:
            v = port.nl_hw_counters[c.index].value;
            return true;
        case From::pma:
            v = port.counters[c.index].value;
            return true;
        case From::eth:
            v = port.netdev->ethtool_stats[c.index].value;
            return true;
        case From::generic:
            break;
    }
    const Netdev& nd = *port.netdev;
    const unsigned p = c.row->priority;
    switch (c.row->entry->from) {
        case RawList::dcb_requests:
            v = nd.dcb ? nd.dcb->pfc_requests[p] : std::nullopt;
            break;
        case RawList::dcb_indications:
            v = nd.dcb ? nd.dcb->pfc_indications[p] : std::nullopt;
            break;
        case RawList::link_pause_tx:
            v = nd.link_pause.tx_frames;
            break;
        case RawList::link_pause_rx:
            v = nd.link_pause.rx_frames;
            break;
        default:
            v.reset();
    }
    return v.has_value();
}

namespace {

/// `v` times the row's scale; none when absent or when the product does not fit 64 bits.
std::optional<std::uint64_t> scaled(const Row& row, const std::optional<std::uint64_t>& v) {
    const std::uint64_t scale = row.entry->scale;
    return v && *v <= std::numeric_limits<std::uint64_t>::max() / scale
               ? std::optional<std::uint64_t>(*v * scale)
               : std::nullopt;
}

}  // namespace

/// winner_ per (name, labels): the first candidate, replaced by a later one with a raw value
/// while the kept one has no (scaled) value. Returns how many groups have one; `moved` is set
/// when a group gained or lost its counter since the last apply (output positions shift).
std::size_t PortNormalizer::choose_winners(const Port& port, bool& moved) {
    std::size_t present = 0;
    moved = false;
    for (std::size_t g = 0; g + 1 < group_begin_.size(); ++g) {
        int win = -1;
        bool win_valued = false;
        for (std::size_t k = group_begin_[g]; k < group_begin_[g + 1]; ++k) {
            std::optional<std::uint64_t> v;
            if (!raw_value(port, cands_[k], v) || (win >= 0 && (win_valued || !v))) continue;
            win = static_cast<int>(k);
            win_valued = scaled(*cands_[k].row, v).has_value();
        }
        // Same output positions only while the same (name, labels) are present.
        if (last_winner_[g] != kNever && (last_winner_[g] >= 0) != (win >= 0)) moved = true;
        winner_[g] = win;
        present += win >= 0;
    }
    return present;
}

/// The winner `c`'s value into `n`, and, when `changed` (another candidate or entry than the
/// last apply wrote there), its name, labels, unit, width, raw name and source.
void PortNormalizer::write_counter(const Port& port, const Candidate& c, bool changed,
                                   NormalizedCounter& n) const {
    using From = Candidate::From;
    std::optional<std::uint64_t> v;
    raw_value(port, c, v);
    n.value = scaled(*c.row, v);
    if (changed) {  // else these are unchanged
        n.name = c.row->entry->name;
        n.labels = c.row->labels;
        n.unit = c.row->entry->unit;
        n.width_bits = c.row->entry->width_bits;
        n.saturates = c.row->entry->saturates;
    }
    switch (c.from) {
        case From::hw:
        case From::nl_hw:
        case From::pma:
        case From::eth: {
            const Counter& raw = c.from == From::hw      ? port.hw_counters[c.index]
                                 : c.from == From::nl_hw ? port.nl_hw_counters[c.index]
                                 : c.from == From::pma   ? port.counters[c.index]
                                                         : port.netdev->ethtool_stats[c.index];
            if (changed) {  // else the same entry's
                n.raw_name = raw.name;
                n.source = raw.source;
            }
            break;
        }
        case From::generic: {
            const Netdev& nd = *port.netdev;
            const bool dcb = c.row->entry->from == RawList::dcb_requests ||
                             c.row->entry->from == RawList::dcb_indications;
            assign_if_changed(n.raw_name, c.row->raw);
            assign_if_changed(n.source, dcb ? nd.dcb->source : nd.link_pause.source);
            break;
        }
    }
}

void PortNormalizer::apply(const Port& port, std::vector<NormalizedCounter>& out) {
    if (sizes_of(port) != sizes_) resolve(port);  // lists changed: never index past them
    bool moved = false;
    const std::size_t present = choose_winners(port, moved);
    const bool in_place = !moved && out.size() == present;
    if (!in_place) {
        out.clear();
        out.reserve(present);
    }
    std::size_t o = 0;
    for (std::size_t g = 0; g < winner_.size(); ++g) {
        if (winner_[g] < 0) continue;
        if (!in_place) out.emplace_back();
        write_counter(port, cands_[static_cast<std::size_t>(winner_[g])],
                      !in_place || last_winner_[g] != winner_[g], out[o++]);
    }
    last_winner_ = winner_;
}

std::vector<NormalizedCounter> normalize_port(const Port& port, DriverFamily rdma,
                                              DriverFamily netdev) {
    std::vector<NormalizedCounter> out;
    PortNormalizer(port, rdma, netdev).apply(port, out);
    return out;
}

void normalize_device(Device& d, const SysfsRoot& sysfs) {
    try {
        const DriverFamily rdma = detect_rdma_driver(sysfs, d.name);
        for (auto& port : d.ports)
            port.normalized = normalize_port(port, rdma, netdev_family_of(sysfs, port, rdma));
    } catch (const std::exception& e) {
        d.problems.push_back(Note{d.name, std::string("normalizing counters failed: ") + e.what()});
    }
}

}  // namespace rh
