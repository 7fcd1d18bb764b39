// Resolves what the parsers found (Model) into one Snapshot. Capture files rarely say how their
// facts connect, so each link is made from the most direct evidence there is, and every guess
// is a Note:
// 1. port -> netdev: `rdma link show` netdev, else the first GID ndev (sysfs listing).
// 2. unnamed interface files (ethtool -S / -i, mlnx_qos) -> netdev: `ethtool -i` bus-info equal
//    to one netdev's `ip -d link` parentdev; else a netdev name (or altname) that the file name
//    contains as a whole word (longest wins); else the only non-loopback netdev.
// 3. device -> PCI function: the PCI address of a netdev linked in 1; else `lspci` NIC
//    functions (Ethernet/Infiniband/Network controller, of the device's vendor when any is)
//    paired in BDF order with the devices in name order when the counts are equal, or the first
//    one when there is a single device (the others noted).
// 4. ports still without netdev: the one netdev on the device's PCI function; else, with one
//    RDMA port and one non-loopback netdev, that one.
// 5. files still unplaced (interface files, counter lists without a port): the only RDMA port.
#include <algorithm>
#include <cctype>
#include <map>
#include <set>

#include "collectors/bundle/bundle_model.h"
#include "collectors/normalize.h"
#include "collectors/parse.h"

namespace rh::bundle {

namespace {

DriverFamily rdma_family(const std::string& dev) {
    if (starts_with(dev, "mlx5_")) return DriverFamily::mlx5;
    if (starts_with(dev, "bnxt_re")) return DriverFamily::bnxt;
    if (starts_with(dev, "irdma")) return DriverFamily::irdma_ice;
    if (starts_with(dev, "rxe")) return DriverFamily::rxe;
    return DriverFamily::unknown;
}

/// `ethtool -i` driver -> family (the netdev tables of collectors/normalize_*.cpp).
DriverFamily netdev_family(const std::string& driver) {
    if (driver == "mlx5_core") return DriverFamily::mlx5;
    if (driver == "bnxt_en") return DriverFamily::bnxt;
    if (driver == "ice") return DriverFamily::irdma_ice;
    return DriverFamily::unknown;
}

bool is_nic_class(const std::string& c) {
    return c == "Ethernet controller" || c == "Infiniband controller" ||
           c == "InfiniBand controller" || c == "Network controller";
}

/// The lspci description names the vendor that goes with the RDMA driver (name or -nn id).
bool vendor_fits(DriverFamily f, const PciFunction& fn) {
    auto has = [&](const char* s) { return fn.description.find(s) != std::string::npos; };
    switch (f) {
        case DriverFamily::mlx5:
            return has("Mellanox") || has("[15b3:");
        case DriverFamily::bnxt:
            return has("Broadcom") || has("[14e4:");
        case DriverFamily::irdma_ice:
            return has("Intel") || has("[8086:");
        default:
            return false;
    }
}

/// `name` occurs in `file` as a whole word (not inside a longer run of letters/digits).
bool contains_word(const std::string& file, const std::string& name) {
    for (auto at = file.find(name); at != std::string::npos; at = file.find(name, at + 1)) {
        const auto end = at + name.size();
        const bool left = at == 0 || !std::isalnum(static_cast<unsigned char>(file[at - 1]));
        const bool right = end == file.size() || !std::isalnum(static_cast<unsigned char>(file[end]));
        if (left && right) return true;
    }
    return false;
}

std::string port_name(const PortKey& k) {
    return k.device + " port " + std::to_string(k.port);
}

class Merger {
  public:
    Merger(Model& m, Snapshot& s) : m_(m), s_(s) {}

    void run() {
        for (auto& [name, d] : m_.devices)
            for (auto& p : d.ports) ports_.push_back({name, p.number});
        for (const auto& [name, nd] : m_.netdevs) {
            if (nd.loopback) continue;
            netdevs_.insert(name);
            if (!nd.parentdev.empty()) netdev_bdf_[name] = nd.parentdev;
        }
        explicit_links();
        for (const auto& [k, name] : links_) netdevs_.insert(name);
        resolve_iface_files();
        device_functions();
        remaining_links();
        place_leftovers();
        build_ports();
        pcie();
        for (auto& [name, d] : m_.devices) s_.devices.push_back(std::move(d));
        if (s_.devices.empty())
            m_.note("capture", "no RDMA device in the capture: no ibv_devinfo, hw_counters "
                               "listing or rdma statistic/link output names one");
        for (auto& n : m_.notes) s_.notes.push_back(std::move(n));
    }

  private:
    void explicit_links() {
        for (const auto& [k, v] : m_.port_netdev) links_[k] = v.first;
        for (const auto& [k, table] : m_.gids)
            for (const auto& [idx, g] : table)
                if (!g.netdev.empty() && !links_.count(k)) links_[k] = g.netdev;
        for (const auto& [k, name] : links_)
            if (auto it = netdev_bdf_.find(name); it != netdev_bdf_.end())
                device_bdf_.try_emplace(k.device, it->second);
    }

    /// Step 2; files still unresolved keep an empty target.
    void resolve_iface_files() {
        std::map<std::string, std::string> alias;  // name or altname -> name
        for (const auto& n : netdevs_) alias[n] = n;
        for (const auto& [name, nd] : m_.netdevs)
            if (!nd.loopback)
                for (const auto& alt : nd.altnames) alias.try_emplace(alt, name);
        for (auto& f : m_.iface_files) {
            std::string target;
            if (!f.bus_info.empty()) {
                std::vector<std::string> on_fn;
                for (const auto& [name, bdf] : netdev_bdf_)
                    if (bdf == f.bus_info) on_fn.push_back(name);
                if (on_fn.size() == 1) target = on_fn[0];
            }
            if (target.empty()) {
                std::string best;
                for (const auto& [a, name] : alias)
                    if (a.size() > best.size() && contains_word(f.file, a)) best = a, target = name;
            }
            if (target.empty() && netdevs_.size() == 1) {
                target = *netdevs_.begin();
                m_.note(f.file, f.kind + " does not name its interface and neither does the file "
                                         "name: used the only netdev, " + target);
            }
            target_.push_back(target);
            if (!f.bus_info.empty() && !target.empty()) netdev_bdf_.try_emplace(target, f.bus_info);
            if (!f.driver.empty() && !target.empty()) driver_[target] = f.driver;
        }
        for (const auto& [k, name] : links_)  // bus-info may have placed a linked netdev
            if (auto it = netdev_bdf_.find(name); it != netdev_bdf_.end())
                device_bdf_.try_emplace(k.device, it->second);
    }

    /// Step 3 for the devices whose function no netdev told.
    void device_functions() {
        std::set<std::string> claimed;
        for (const auto& [dev, bdf] : device_bdf_) claimed.insert(bdf);
        std::vector<std::string> devs;
        std::set<DriverFamily> families;
        for (const auto& [name, d] : m_.devices)
            if (!device_bdf_.count(name) && rdma_family(name) != DriverFamily::rxe) {
                devs.push_back(name);
                families.insert(rdma_family(name));
            }
        std::vector<const PciFunction*> nics, fitting;
        for (const auto& fn : m_.pci)
            if (is_nic_class(fn.class_name) && !claimed.count(fn.bdf)) nics.push_back(&fn);
        std::sort(nics.begin(), nics.end(),
                  [](const PciFunction* a, const PciFunction* b) { return a->bdf < b->bdf; });
        if (families.size() == 1)
            for (auto* fn : nics)
                if (vendor_fits(*families.begin(), *fn)) fitting.push_back(fn);
        if (!fitting.empty()) nics = fitting;
        if (devs.empty() || nics.empty()) return;
        const std::string file = nics.front()->file;
        if (devs.size() == nics.size()) {
            for (std::size_t i = 0; i < devs.size(); ++i) device_bdf_[devs[i]] = nics[i]->bdf;
            if (devs.size() > 1)
                m_.note(file, "PCI functions matched to RDMA devices by order (BDF order to name "
                              "order); nothing in the capture ties them directly");
        } else if (devs.size() == 1) {
            device_bdf_[devs[0]] = nics[0]->bdf;
            std::string others;
            for (std::size_t i = 1; i < nics.size(); ++i) others += " " + nics[i]->bdf;
            m_.note(file, devs[0] + " taken to be the first NIC function " + nics[0]->bdf +
                              "; not used:" + others);
        } else {
            m_.note(file, std::to_string(nics.size()) + " NIC functions for " +
                              std::to_string(devs.size()) +
                              " RDMA devices: cannot tell which is which; PCIe links left out");
        }
    }

    /// Step 4.
    void remaining_links() {
        std::set<std::string> used;
        for (const auto& [k, name] : links_) used.insert(name);
        for (const auto& k : ports_) {
            if (links_.count(k)) continue;
            std::vector<std::string> same_fn;
            if (auto b = device_bdf_.find(k.device); b != device_bdf_.end())
                for (const auto& [name, bdf] : netdev_bdf_)
                    if (bdf == b->second && !used.count(name)) same_fn.push_back(name);
            if (same_fn.size() == 1) {
                links_[k] = same_fn[0];
                used.insert(same_fn[0]);
            } else if (ports_.size() == 1 && netdevs_.size() == 1) {
                links_[k] = *netdevs_.begin();
                m_.note(port_name(k), "netdev " + links_[k] +
                                          " assumed: the capture's only RDMA port and only netdev");
            } else if (m_.port(k.device, k.port).link_layer != "InfiniBand") {
                m_.note(port_name(k), "netdev unknown: no GID ndevs, `rdma link` or `ip -d link` "
                                      "parentdev ties one to this port");
            }
        }
    }

    /// Step 5.
    void place_leftovers() {
        const bool one = ports_.size() == 1;
        for (std::size_t i = 0; i < m_.iface_files.size(); ++i) {
            if (!target_[i].empty()) continue;
            const auto& f = m_.iface_files[i];
            if (one) {
                to_single_port_.push_back(i);
                m_.note(f.file, f.kind + ": interface not known; attached to the only RDMA port, " +
                                    port_name(ports_[0]));
            } else {
                m_.note(f.file, f.kind + ": cannot tell which interface this is (name it in the "
                                         "file name, e.g. ethtool-S-<if>.txt); not used");
            }
        }
        for (auto& u : m_.unplaced) {
            if (!one) {
                m_.note(u.file, u.kind + " does not say which RDMA port its counters belong to, "
                                         "and the capture has " + std::to_string(ports_.size()) +
                                         " ports; not used");
                continue;
            }
            Port& p = m_.port(ports_[0].device, ports_[0].port);
            for (auto& c : u.hw_counters) add_counter(p.hw_counters, std::move(c), m_, u.file);
            for (auto& c : u.counters) add_counter(p.counters, std::move(c), m_, u.file);
            m_.note(u.file, u.kind + " does not name its port; attached to the only RDMA port, " +
                                port_name(ports_[0]));
        }
    }

    /// Interface files for one port: those resolved to `ifname` or placed on the single port.
    std::vector<const IfaceFile*> files_for(const std::string& ifname, bool single) {
        std::vector<const IfaceFile*> out;
        for (std::size_t i = 0; i < m_.iface_files.size(); ++i)
            if ((!ifname.empty() && target_[i] == ifname) ||
                (single && std::count(to_single_port_.begin(), to_single_port_.end(), i)))
                out.push_back(&m_.iface_files[i]);
        return out;
    }

    void build_ports() {
        std::set<std::string> attached;
        for (const auto& k : ports_) {
            Port& p = m_.port(k.device, k.port);
            const std::string ifname = links_.count(k) ? links_[k] : std::string{};
            p.netdev_name = ifname;
            attached.insert(ifname);
            if (auto g = m_.gids.find(k); g != m_.gids.end())
                for (const auto& [idx, gid] : g->second)
                    if (!gid.gid.empty() && !is_zero_gid(gid.gid)) p.gids.push_back(gid);
            const auto files = files_for(ifname, ports_.size() == 1);
            auto nd_it = m_.netdevs.find(ifname);
            if (nd_it != m_.netdevs.end() || !files.empty()) {
                Netdev nd = nd_it != m_.netdevs.end() ? nd_it->second.netdev : Netdev{};
                nd.name = ifname;
                apply_files(nd, files);
                p.netdev = std::move(nd);
            }
            if (!p.verbs.active_mtu_bytes && !p.verbs.max_mtu_bytes && p.verbs.unavailable.empty())
                p.verbs.unavailable = "no ibv_devinfo for this port in the capture";
            std::sort(p.hw_counters.begin(), p.hw_counters.end(),
                      [](const Counter& a, const Counter& b) { return a.name < b.name; });
            std::sort(p.counters.begin(), p.counters.end(),
                      [](const Counter& a, const Counter& b) { return a.name < b.name; });
            normalize(k, p);
        }
        for (std::size_t i = 0; i < m_.iface_files.size(); ++i)
            if (!target_[i].empty() && !attached.count(target_[i]))
                m_.note(m_.iface_files[i].file,
                        m_.iface_files[i].kind + " of " + target_[i] +
                            ": not the netdev of any RDMA port in the capture; not used");
    }

    void apply_files(Netdev& nd, const std::vector<const IfaceFile*>& files) {
        std::string stats_from, qos_from;
        for (const IfaceFile* f : files) {
            if (nd.source.empty()) nd.source = "bundle:" + f->file;
            if (!f->ethtool_stats.empty()) {
                if (stats_from.empty()) {
                    nd.ethtool_stats = f->ethtool_stats;
                    stats_from = f->file;
                } else {
                    m_.note(f->file, "second ethtool -S of " + nd.name + " (first: " + stats_from +
                                         "); not used");
                }
            }
            if (f->qos || f->dcb) {
                if (!qos_from.empty()) {
                    m_.note(f->file, "second mlnx_qos of " + nd.name + " (first: " + qos_from +
                                         "); not used");
                    continue;
                }
                qos_from = f->file;
                if (f->qos) nd.qos = *f->qos;
                if (f->dcb) nd.dcb = *f->dcb;
            }
        }
    }

    void normalize(const PortKey& k, Port& p) {
        std::string driver;
        if (auto it = driver_.find(p.netdev_name); it != driver_.end()) driver = it->second;
        for (const IfaceFile* f : files_for(p.netdev_name, ports_.size() == 1))
            if (driver.empty()) driver = f->driver;
        DriverFamily rdma = rdma_family(k.device);
        DriverFamily net = netdev_family(driver);
        if (rdma == DriverFamily::unknown) rdma = net;  // renamed device, e.g. "rocep59s0f0"
        if (net == DriverFamily::unknown && rdma != DriverFamily::rxe) net = rdma;
        p.normalized = normalize_port(p, rdma, net);
    }

    void pcie() {
        for (auto& [name, d] : m_.devices) {
            auto b = device_bdf_.find(name);
            if (b == device_bdf_.end()) continue;
            auto fn = std::find_if(m_.pci.begin(), m_.pci.end(),
                                   [&](const PciFunction& f) { return f.bdf == b->second; });
            if (fn == m_.pci.end()) {
                if (!m_.pci.empty())
                    m_.note(name, "PCI function " + b->second + " is not in the lspci output");
                continue;
            }
            PcieLink l;
            l.bdf = fn->bdf;
            l.sysfs_path = fn->file;
            l.is_function = true;
            l.current_speed_gts = fn->sta_speed_gts;
            l.max_speed_gts = fn->cap_speed_gts;
            l.current_width = fn->sta_width;
            l.max_width = fn->cap_width;
            l.numa_node = fn->numa_node;
            d.pcie.push_back(std::move(l));
            if (fn->caps_denied)
                m_.note(fn->file, fn->bdf + ": lspci shows \"Capabilities: <access denied>\" "
                                            "(run as root): link speed/width unknown");
        }
        for (const auto& fn : m_.pci)
            if (fn.class_name == "PCI bridge" && fn.sta_downgraded)
                m_.note(fn.file + ":" + std::to_string(fn.line),
                        "PCI bridge " + fn.bdf + " link is downgraded (" + link_text(fn) +
                            "); without `lspci -t` it cannot be placed on a device's PCIe path");
    }

    static std::string link_text(const PciFunction& fn) {
        auto g = [](const std::optional<double>& s) {
            if (!s) return std::string("?");
            std::string t = std::to_string(*s);
            t.erase(t.find_last_not_of('0') + 1);
            if (t.back() == '.') t.pop_back();
            return t + " GT/s";
        };
        auto w = [](const std::optional<unsigned>& x) {
            return x ? "x" + std::to_string(*x) : std::string("x?");
        };
        return g(fn.sta_speed_gts) + " " + w(fn.sta_width) + " of " + g(fn.cap_speed_gts) + " " +
               w(fn.cap_width);
    }

    Model& m_;
    Snapshot& s_;
    std::vector<PortKey> ports_;
    std::set<std::string> netdevs_;  ///< known non-loopback netdev names
    std::map<std::string, std::string> netdev_bdf_, device_bdf_, driver_;
    std::map<PortKey, std::string> links_;
    std::vector<std::string> target_;  ///< per iface file: resolved netdev, or empty
    std::vector<std::size_t> to_single_port_;
};

}  // namespace

void merge_into(Model& m, Snapshot& snap) {
    Merger(m, snap).run();
}

}  // namespace rh::bundle
