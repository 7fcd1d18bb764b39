// Capture identity: the facts of a capture that name its host, and the comparison of two
// captures kind by kind (see capture_identity.h for the order and why).
#include "collectors/bundle/capture_identity.h"

#include <algorithm>
#include <cctype>
#include <cstdio>
#include <functional>
#include <vector>

#include "collectors/bundle/bundle_model.h"
#include "collectors/drivers/registry.h"
#include "core/counter_wrap.h"

namespace rh {

namespace {

using KeyedValues = std::map<std::string, std::set<std::string>>;

std::string lower(std::string s) {
    for (auto& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    return s;
}

/// "aa:bb:cc:dd:ee:ff" with 6 hex octets, not all zero and not broadcast.
bool usable_mac(const std::string& mac) {
    if (mac.size() != 17) return false;
    for (std::size_t i = 0; i < mac.size(); ++i) {
        const bool colon = i % 3 == 2;
        if (colon ? mac[i] != ':' : !std::isxdigit(static_cast<unsigned char>(mac[i])))
            return false;
    }
    return mac != "00:00:00:00:00:00" && mac != "ff:ff:ff:ff:ff:ff";
}

/// The locally administered bit: such MACs (docker bridges, veths, random VF MACs) are not
/// unique across hosts, so they count only on a netdev with a PCI parent or a RoCE port.
bool locally_administered(const std::string& mac) {
    const unsigned first = static_cast<unsigned>(std::stoul(mac.substr(0, 2), nullptr, 16));
    return (first & 0x02) != 0;
}

std::string join(const std::set<std::string>& v, std::size_t max = 2) {
    std::string out;
    std::size_t n = 0;
    for (const auto& s : v) {
        if (n == max) {
            out += ", ...";
            break;
        }
        out += (n++ ? ", " : "") + s;
    }
    return out;
}

std::set<std::string> all_values(const KeyedValues& m) {
    std::set<std::string> out;
    for (const auto& [k, v] : m) out.insert(v.begin(), v.end());
    return out;
}

std::set<std::string> common(const std::set<std::string>& a, const std::set<std::string>& b) {
    std::set<std::string> out;
    std::set_intersection(a.begin(), a.end(), b.begin(), b.end(), std::inserter(out, out.end()));
    return out;
}

/// One kind's verdict: unknown when one side lacks it.
struct KindVerdict {
    IdentityMatch::Verdict verdict = IdentityMatch::Verdict::unknown;
    std::string text;
};

/// Keyed values (node_guid per device, MAC per netdev): a value in common = same; else the
/// same key with disjoint values = different; else unknown (each side saw other devices).
KindVerdict keyed(const char* what, const KeyedValues& a, const KeyedValues& b) {
    if (a.empty() || b.empty()) return {};
    const auto both = common(all_values(a), all_values(b));
    if (!both.empty()) return {IdentityMatch::Verdict::same, std::string(what) + " " + join(both)};
    for (const auto& [key, va] : a) {
        const auto it = b.find(key);
        if (it != b.end() && !va.empty() && !it->second.empty())
            return {IdentityMatch::Verdict::different,
                    std::string(what) + " of " + key + ": " + join(va) + " vs " + join(it->second)};
    }
    return {};
}

/// Kind 7: RDMA device / netdev names and their counter-name sets. Names in common whose
/// counter sets agree (one holds the other: a grep'd listing is a subset) = same; no name in
/// common, or a common name whose sets differ both ways (another driver) = different.
KindVerdict names_and_counters(const CaptureIdentity& ia, const CaptureIdentity& ib) {
    const KeyedValues& a = ia.counter_names;
    const KeyedValues& b = ib.counter_names;
    if (a.empty() || b.empty()) return {};
    for (const auto& [key, va] : ia.counter_values) {
        const auto it = ib.counter_values.find(key);
        if (it == ib.counter_values.end()) continue;
        for (const auto& [name, before] : va)
            if (name == "lifespan")
                continue;  // mlx5: the counters' cache time (ms), a setting
            else if (const auto after = it->second.find(name);
                     after != it->second.end() && after->second < before &&
                     !wrapped_64bit(before, after->second))
                return {IdentityMatch::Verdict::different,
                        key + " " + name + " went down (" + std::to_string(before) + " -> " +
                            std::to_string(after->second) +
                            "): another host, or its counters were reset"};
    }
    std::string agree;
    std::size_t agreed = 0;
    for (const auto& [key, ca] : a) {
        const auto it = b.find(key);
        if (it == b.end()) continue;
        const auto& cb = it->second;
        const bool a_in_b = std::includes(cb.begin(), cb.end(), ca.begin(), ca.end());
        const bool b_in_a = std::includes(ca.begin(), ca.end(), cb.begin(), cb.end());
        if (!a_in_b && !b_in_a)
            return {IdentityMatch::Verdict::different,
                    key + " counter names differ (" + std::to_string(ca.size()) + " vs " +
                        std::to_string(cb.size()) + ", " + std::to_string(common(ca, cb).size()) +
                        " in common)"};
        const std::size_t n = std::min(ca.size(), cb.size());
        if (agreed++ < 2)
            agree += (agree.empty() ? "" : ", ") + key +
                     (n ? " with the same " + std::to_string(n) + " counter names" : "");
    }
    if (agreed == 0) {
        std::set<std::string> ka, kb;
        for (const auto& [k, v] : a) ka.insert(k);
        for (const auto& [k, v] : b) kb.insert(k);
        return {IdentityMatch::Verdict::different,
                "no device or netdev in common (" + join(ka) + " vs " + join(kb) + ")"};
    }
    return {IdentityMatch::Verdict::same,
            "only weak evidence: " + agree + (agreed > 2 ? ", ..." : "")};
}

KindVerdict hostnames(const std::string& a, const std::string& b) {
    if (a.empty() || b.empty()) return {};
    if (a == b) return {IdentityMatch::Verdict::same, "hostname file " + a};
    return {IdentityMatch::Verdict::different, "hostname files " + a + " vs " + b};
}

KindVerdict slots(const std::set<std::string>& a, const std::set<std::string>& b) {
    if (a.empty() || b.empty()) return {};
    const auto both = common(a, b);
    if (!both.empty())
        return {IdentityMatch::Verdict::same, "PCI slot " + join(both) +
                                                  " (weak: identical "
                                                  "servers share it)"};
    return {IdentityMatch::Verdict::different, "PCI slots " + join(a) + " vs " + join(b)};
}

void add_mac(CaptureIdentity& id, const std::string& key, std::string mac) {
    mac = lower(std::move(mac));
    if (usable_mac(mac)) id.mac[key].insert(mac);
}

/// "0000:3b:00.0" -> "0000:3b:00"; "" when not a canonical BDF.
std::string slot_of(const std::string& bdf) {
    const auto dot = bdf.rfind('.');
    return dot == std::string::npos || bdf.size() != 12 ? std::string{} : bdf.substr(0, dot);
}

}  // namespace

void CaptureIdentity::merge(const CaptureIdentity& o) {
    if (hostname.empty()) hostname = o.hostname;
    for (auto [into, from] : {std::pair{&node_guid, &o.node_guid},
                              {&sys_image_guid, &o.sys_image_guid},
                              {&mac, &o.mac},
                              {&gid, &o.gid},
                              {&counter_names, &o.counter_names}})
        for (const auto& [k, v] : *from) (*into)[k].insert(v.begin(), v.end());
    pci_slots.insert(o.pci_slots.begin(), o.pci_slots.end());
    for (const auto& [k, v] : o.counter_values)
        for (const auto& [name, value] : v) counter_values[k][name] = value;
}

IdentityMatch compare_identity(const CaptureIdentity& a, const CaptureIdentity& b) {
    const KindVerdict kinds[] = {
        keyed("node_guid", a.node_guid, b.node_guid),
        keyed("sys_image_guid", a.sys_image_guid, b.sys_image_guid),
        keyed("MAC", a.mac, b.mac),
        keyed("GID", a.gid, b.gid),
        hostnames(a.hostname, b.hostname),
        slots(a.pci_slots, b.pci_slots),
        names_and_counters(a, b),
    };
    IdentityMatch m;
    std::size_t decided = std::size(kinds);
    for (std::size_t i = 0; i < std::size(kinds); ++i)
        if (kinds[i].verdict != IdentityMatch::Verdict::unknown) {
            decided = i;
            break;
        }
    if (decided == std::size(kinds)) return m;
    m.verdict = kinds[decided].verdict;
    m.weak = decided >= 5;
    m.evidence = kinds[decided].text;
    // Further evidence of the same verdict among the strong kinds strengthens the sentence.
    for (std::size_t i = decided + 1; i < 4; ++i)
        if (kinds[i].verdict == m.verdict) m.evidence += ", " + kinds[i].text;
    for (std::size_t i = decided + 1; i < std::size(kinds); ++i)
        if (kinds[i].verdict != IdentityMatch::Verdict::unknown && kinds[i].verdict != m.verdict)
            m.disagreeing += (m.disagreeing.empty() ? "" : "; ") + kinds[i].text;
    return m;
}

std::string mac_of_link_local_gid(const std::string& gid) {
    // fe80:0000:0000:0000:AABB:CCff:feDD:EEFF -> (AA^02):BB:CC:DD:EE:FF
    if (gid.size() != 39 || lower(gid.substr(0, 20)) != "fe80:0000:0000:0000:") return {};
    const std::string g = lower(gid);
    if (g.substr(27, 2) != "ff" || g.substr(30, 2) != "fe") return {};
    for (std::size_t i = 20; i < g.size(); ++i)
        if (i % 5 != 4 && !std::isxdigit(static_cast<unsigned char>(g[i]))) return {};
    const auto octet = [&](std::size_t pos) {
        return static_cast<unsigned>(std::stoul(g.substr(pos, 2), nullptr, 16));
    };
    char buf[18];
    std::snprintf(buf, sizeof buf, "%02x:%02x:%02x:%02x:%02x:%02x", octet(20) ^ 0x02u, octet(22),
                  octet(25), octet(32), octet(35), octet(37));
    return buf;
}

CaptureIdentity identity_from_model(const bundle::Model& m, const std::string& hostname_file) {
    CaptureIdentity id;
    id.hostname = hostname_file;
    for (const auto& [name, d] : m.devices)
        if (!d.node_guid.empty() && d.node_guid != "0000:0000:0000:0000")
            id.node_guid[name].insert(lower(d.node_guid));
    for (const auto& [name, g] : m.sys_image_guid)
        if (!g.empty() && g != "0000:0000:0000:0000") id.sys_image_guid[name].insert(lower(g));
    std::set<std::string> roce_netdevs;
    for (const auto& [port, nd] : m.port_netdev) roce_netdevs.insert(nd.first);
    for (const auto& [port, table] : m.gids)
        for (const auto& [idx, g] : table) {
            if (!g.netdev.empty()) roce_netdevs.insert(g.netdev);
            const std::string key =
                port.device + " port " + std::to_string(port.port) + " GID " + std::to_string(idx);
            if (const std::string mac = mac_of_link_local_gid(g.gid); !mac.empty())
                add_mac(id, key, mac);
        }
    for (const auto& [name, nd] : m.netdevs) {
        if (nd.loopback || nd.mac.empty()) continue;
        const std::string mac = lower(nd.mac);
        if (!usable_mac(mac)) continue;
        if (locally_administered(mac) && nd.parentdev.empty() && !roce_netdevs.count(name))
            continue;
        add_mac(id, name, mac);
        if (const auto s = slot_of(nd.parentdev); !s.empty()) id.pci_slots.insert(s);
    }
    for (const auto& f : m.iface_files)
        if (const auto s = slot_of(f.bus_info); !s.empty()) id.pci_slots.insert(s);
    for (const auto& f : m.pci) {
        const std::string c = lower(f.class_name);
        const bool nic = c.find("ethernet") != std::string::npos ||
                         c.find("network") != std::string::npos ||
                         c.find("infiniband") != std::string::npos;
        if (nic)
            if (const auto s = slot_of(f.bdf); !s.empty()) id.pci_slots.insert(s);
    }
    return id;
}

void add_snapshot_identity(CaptureIdentity& id, const Snapshot& snap) {
    for (const Device& d : snap.devices) {
        if (!d.node_guid.empty() && d.node_guid != "0000:0000:0000:0000")
            id.node_guid[d.name].insert(lower(d.node_guid));
        const Driver* driver = driver_of_rdma_name(d.name);  // null: any driver's list
        for (const Port& p : d.ports) {
            const std::string key = d.name + " port " + std::to_string(p.number);
            auto& names = id.counter_names[key];
            for (const auto* list : {&p.hw_counters, &p.counters})
                for (const Counter& c : *list) {
                    names.insert(c.name);
                    // A 32-bit counter (mlx5 Q counters) that falls has wrapped: its value
                    // neither ties nor contradicts (a wrap can happen from any value).
                    if (c.value && !(list == &p.hw_counters && wrapping_hw_counter(driver, c.name)))
                        id.counter_values[key][c.name] = *c.value;
                }
            for (const Gid& g : p.gids) {
                if (g.gid.empty() || lower(g.gid).rfind("fe80:", 0) == 0) continue;
                id.gid[key].insert(lower(g.gid));
            }
            if (p.netdev && !p.netdev->ethtool_stats.empty()) {
                const std::string nkey =
                    p.netdev->name.empty() ? key + " ethtool -S" : "netdev " + p.netdev->name;
                auto& nd = id.counter_names[nkey];
                for (const Counter& c : p.netdev->ethtool_stats) {
                    nd.insert(c.name);
                    // Only traffic counters: some ethtool -S fields are gauges (queue levels,
                    // cache sizes) that may fall, while bytes and packets only grow.
                    const bool traffic = c.name.find("bytes") != std::string::npos ||
                                         c.name.find("packets") != std::string::npos;
                    if (c.value && traffic) id.counter_values[nkey][c.name] = *c.value;
                }
            }
        }
    }
    // A port known only by name (ibv_devinfo without counters) stays, with no names: it still
    // names its device for kind 7.
}

std::optional<std::string> implausible_successor(const CaptureIdentity& last,
                                                 const CaptureIdentity& next,
                                                 std::optional<double> dt_s) {
    for (const auto& [key, before_values] : last.counter_values) {
        const auto it = next.counter_values.find(key);
        if (it == next.counter_values.end()) continue;
        for (const auto& [name, before] : before_values) {
            if (name == "lifespan") continue;  // mlx5: the counters' cache time (ms), a setting
            const auto a = it->second.find(name);
            if (a == it->second.end()) continue;
            const std::uint64_t after = a->second;
            if (after < before && !wrapped_64bit(before, after))
                return key + " " + name + " went down (" + std::to_string(before) + " -> " +
                       std::to_string(after) + "): another host, or its counters were reset";
            if (dt_s && *dt_s > 0 && name.find("bytes") != std::string::npos) {
                const double rate = static_cast<double>(after - before) / *dt_s;
                if (rate > kMaxPlausiblePortBytesPerS) {
                    char buf[160];
                    std::snprintf(buf, sizeof buf,
                                  " grew %.3g bytes in %.3g s (%.3g Gb/s, above "
                                  "any port's 400 Gb/s): another host's counters",
                                  static_cast<double>(after - before), *dt_s, rate * 8 / 1e9);
                    return key + " " + name + buf;
                }
            }
        }
    }
    return std::nullopt;
}

}  // namespace rh
