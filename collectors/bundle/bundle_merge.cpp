// Resolves what the parsers found (Model) into one Snapshot. Capture files rarely say how their
// facts connect, so each link is made from the most direct evidence there is, and every guess
// is a Note; what stays ambiguous is a note naming the candidates, never a silent drop:
// 1. port -> netdev: `rdma link show` netdev, else the first GID ndev (sysfs listing), else the
//    MAC inside the port's link-local GID (fe80::<EUI-64>), or inside a one-port device's node
//    GUID (bnxt_re, irdma derive it from the MAC), equal to one netdev's link/ether
//    (netdevs with a PCI parent first: a bond or VLAN on top shares the MAC).
// 2. netdev -> PCI function: `ip -d link` parentdev, else `ethtool -i` bus-info, else a
//    systemd PCI name of the netdev or one of its altnames ("enp59s0f1np1" = 0000:3b:00.1).
// 3. unnamed interface files (ethtool -S / -i, mlnx_qos) -> netdev: the interface the prompt's
//    command names; else `ethtool -i` bus-info equal to one netdev's PCI function; else a
//    netdev name (or altname) that the file name, or the marker text of its section (sections.h),
//    contains as a whole word (longest wins);
//    else the only non-loopback netdev; else (step 7) the only RDMA port.
// 4. device -> PCI function: the PCI function of a netdev linked in 1; else the udev PCI name
//    of the device ("roceP2p1s0f1" = 0002:01:00.1, rdma-core rdma_rename); else `lspci` NIC
//    functions (Ethernet/Infiniband/Network controller, of the device's vendor when any is):
//    the only one left for the only device left, or paired in BDF order with the devices in
//    name order when the counts are equal (noted with the candidates).
// 5. ports still without netdev: the one netdev on the device's PCI function; else, with one
//    RDMA port and one non-loopback netdev, that one; else a note naming the candidates.
// 6. PCIe: the function's `lspci -vv` block, then its upstream bridges found by bus number
//    ("Bus: ... secondary=<bus>" or an `lspci -t` range), up to the root port; dmesg
//    "limited by <link> at <bdf>" lines (about the whole card: any function of its
//    bus:device may print it) fill links and LnkCap/LnkSta lspci does not show. With no RDMA
//    device, each RDMA-capable NIC function becomes a Device named by its BDF.
// 7. files still unplaced (interface files, counter lists without a port): the port their
//    command names, else the only RDMA port; else a note naming the candidates.
#include <algorithm>
#include <cctype>
#include <cstdio>
#include <map>
#include <set>

#include "collectors/bundle/bundle_model.h"
#include "collectors/bundle/capture_identity.h"
#include "collectors/normalize.h"
#include "core/inventory/parse.h"

namespace rh::bundle {

namespace {

bool is_nic_class(const std::string& c) {
    return c == "Ethernet controller" || c == "Infiniband controller" ||
           c == "InfiniBand controller" || c == "Network controller";
}

bool has(const PciFunction& fn, const char* s) {
    return fn.description.find(s) != std::string::npos;
}

/// The lspci description names the vendor that goes with the RDMA driver (name or -nn id).
bool vendor_fits(DriverFamily f, const PciFunction& fn) {
    return f && f->pci_vendor && f->pci_vendor(fn.description);
}

/// An RDMA-capable NIC physical function of a registered driver (Driver::rdma_nic). Virtual
/// functions are left out (their link is the PF's).
bool rdma_capable_nic(const PciFunction& fn) {
    if (!is_nic_class(fn.class_name) || has(fn, "Virtual Function")) return false;
    for (const Driver* d : all_drivers())
        if (d->rdma_nic && d->rdma_nic(fn.description)) return true;
    return false;
}

/// `name` occurs in `file` as a whole word (not inside a longer run of letters/digits).
bool contains_word(const std::string& file, const std::string& name) {
    for (auto at = file.find(name); at != std::string::npos; at = file.find(name, at + 1)) {
        const auto end = at + name.size();
        const bool left = at == 0 || !std::isalnum(static_cast<unsigned char>(file[at - 1]));
        const bool right =
            end == file.size() || !std::isalnum(static_cast<unsigned char>(file[end]));
        if (left && right) return true;
    }
    return false;
}

std::string port_name(const PortKey& k) {
    return k.device + " port " + std::to_string(k.port);
}

std::string join(const std::vector<std::string>& v) {
    std::string s;
    for (const auto& x : v) s += (s.empty() ? "" : ", ") + x;
    return s.empty() ? "none" : s;
}

/// "0000:3b:00.0" -> {domain, bus}.
std::pair<unsigned, unsigned> domain_bus(const std::string& bdf) {
    return {static_cast<unsigned>(std::stoul(bdf.substr(0, 4), nullptr, 16)),
            static_cast<unsigned>(std::stoul(bdf.substr(5, 2), nullptr, 16))};
}

class Merger {
  public:
    Merger(Model& m, Snapshot& s) : m_(m), s_(s) {}

    void run() {
        lspci_only_devices();
        for (auto& [name, d] : m_.devices)
            for (auto& p : d.ports) ports_.push_back({name, p.number});
        for (const auto& [name, nd] : m_.netdevs) {
            if (nd.loopback) continue;
            netdevs_.insert(name);
            if (!nd.parentdev.empty()) netdev_bdf_[name] = nd.parentdev;
        }
        explicit_links();
        mac_links();
        for (const auto& [k, name] : links_) netdevs_.insert(name);
        resolve_iface_files();
        ethtool_only_ports();
        named_functions();
        link_device_functions();
        device_functions();
        remaining_links();
        place_leftovers();
        build_ports();
        pcie();
        for (auto& [name, d] : m_.devices) s_.devices.push_back(std::move(d));
        if (s_.devices.empty())
            m_.note("capture",
                    "no RDMA device in the capture: no ibv_devinfo, hw_counters "
                    "listing, rdma statistic/link output or RDMA-capable NIC in "
                    "lspci names one");
        for (auto& n : m_.notes) s_.notes.push_back(std::move(n));
    }

  private:
    /// A ticket with only `lspci -vv` (and maybe dmesg): each RDMA-capable NIC function with
    /// link data becomes a device named by its BDF, so the PCIe rule runs.
    void lspci_only_devices() {
        if (!m_.devices.empty()) return;
        std::vector<std::string> made;
        for (const auto& fn : m_.pci) {
            if (!rdma_capable_nic(fn) || m_.devices.count(fn.bdf)) continue;
            m_.device(fn.bdf);
            device_bdf_[fn.bdf] = fn.bdf;
            made.push_back(fn.bdf);
        }
        if (!made.empty())
            m_.note(m_.pci.front().file,
                    "no RDMA device listed (no ibv_devinfo, hw_counters or rdma output): the "
                    "RDMA-capable NIC functions " +
                        join(made) +
                        " are taken as devices, named by PCI address, for the PCIe checks");
    }

    /// A ticket with `ethtool -S` of an RDMA NIC's netdev but no RDMA port (no ibv_devinfo,
    /// hw_counters or rdma output): each such netdev becomes a device named after it with
    /// port 1 and that netdev, so the netdev-side rules (pause, physical errors, discards) run.
    /// An RDMA NIC's netdev: its `ethtool -i` driver is mlx5_core, bnxt_en or ice, or its
    /// `ethtool -S` carries that driver's names (mlx5 "*_phy"/"*_vport", bnxt
    /// "*_pfc_ena_frames_pri*"/"pfc_pri*", ice "*.nic"/"*_priority_<p>_xoff"/"link_xoff_*").
    void ethtool_only_ports() {
        if (!ports_.empty()) return;
        std::map<std::string, std::string> made;  // netdev -> driver
        for (std::size_t i = 0; i < m_.iface_files.size(); ++i) {
            const IfaceFile& f = m_.iface_files[i];
            const std::string& nd = target_[i];
            if (nd.empty()) continue;
            std::string driver;
            if (auto d = driver_.find(nd); d != driver_.end()) driver = d->second;
            if (!driver_of_netdev_driver(driver)) driver = driver_from_stats(f);
            if (!driver_of_netdev_driver(driver)) continue;
            made.try_emplace(nd, driver);
        }
        for (const auto& [nd, driver] : made) {
            m_.port(nd, 1).link_layer = "Ethernet";
            const PortKey k{nd, 1};
            ports_.push_back(k);
            links_[k] = nd;
            netdevs_.insert(nd);
            driver_.try_emplace(nd, driver);
            m_.warn(nd, "no RDMA device in the capture: ethtool -S of " + nd + " (" + driver +
                            ") read as its port, device " + nd +
                            "; add ibv_devinfo -v for the RDMA side");
        }
    }

    /// The netdev driver whose ethtool -S names `f` carries ("" when none fits).
    static std::string driver_from_stats(const IfaceFile& f) {
        for (const Counter& c : f.ethtool_stats)
            if (auto d = netdev_driver_of_ethtool_name(c.name); !d.empty()) return std::string(d);
        return {};
    }

    void explicit_links() {
        for (const auto& [k, v] : m_.port_netdev) links_[k] = v.first;
        for (const auto& [k, table] : m_.gids)
            for (const auto& [idx, g] : table)
                if (!g.netdev.empty() && !links_.count(k)) links_[k] = g.netdev;
    }

    /// Step 1, by the MAC inside the link-local GID (or inside a one-port device's node GUID).
    void mac_links() {
        std::map<std::string, std::vector<std::string>> by_mac;
        for (const auto& [name, nd] : m_.netdevs)
            if (!nd.loopback && !nd.mac.empty()) by_mac[nd.mac].push_back(name);
        for (const auto& k : ports_) {
            if (links_.count(k)) continue;
            std::set<std::string> macs;
            if (auto g = m_.gids.find(k); g != m_.gids.end())
                for (const auto& [idx, gid] : g->second)
                    if (auto mac = mac_of_link_local_gid(gid.gid); !mac.empty()) macs.insert(mac);
            // No GID table (plain ibv_devinfo): bnxt_re and irdma make a one-port device's
            // node_guid from its netdev's MAC as EUI-64 (bnxt_qplib_get_guid,
            // addrconf_addr_eui48), like the link-local GID.
            if (const Device& d = m_.devices[k.device];
                macs.empty() && d.ports.size() == 1 && d.node_guid.size() == 19)
                if (auto mac = mac_of_link_local_gid("fe80:0000:0000:0000:" + d.node_guid);
                    !mac.empty())
                    macs.insert(mac);
            for (const auto& mac : macs) {
                auto it = by_mac.find(mac);
                if (it == by_mac.end()) continue;
                std::vector<std::string> cands = it->second, physical;
                for (const auto& c : cands)
                    if (!m_.netdevs[c].parentdev.empty()) physical.push_back(c);
                if (physical.size() == 1) cands = physical;
                if (cands.size() == 1) {
                    links_[k] = cands[0];
                    break;
                }
                m_.note(port_name(k), "link-local GID holds MAC " + mac + ", which " +
                                          std::to_string(cands.size()) + " netdevs carry (" +
                                          join(cands) + "): cannot tell which is this port's");
            }
        }
    }

    std::string alias_of(const std::string& name) const {
        if (netdevs_.count(name)) return name;
        for (const auto& [n, nd] : m_.netdevs)
            if (!nd.loopback && std::count(nd.altnames.begin(), nd.altnames.end(), name)) return n;
        return {};
    }

    /// Step 3; files still unresolved keep an empty target.
    void resolve_iface_files() {
        std::map<std::string, std::string> alias;  // name or altname -> name
        for (const auto& n : netdevs_) alias[n] = n;
        for (const auto& [name, nd] : m_.netdevs)
            if (!nd.loopback)
                for (const auto& alt : nd.altnames) alias.try_emplace(alt, name);
        const bool no_ip_link = netdevs_.empty();
        for (auto& f : m_.iface_files) {
            std::string target;
            if (!f.iface_hint.empty()) {
                target = alias_of(f.iface_hint);
                if (target.empty() && netdevs_.empty()) {
                    target = f.iface_hint;  // no ip link: the command's name is all there is
                    netdevs_.insert(target);
                } else if (target.empty()) {
                    m_.note(f.file, f.kind + " of " + f.iface_hint +
                                        " (the prompt's command): "
                                        "not an interface of the ip link output");
                }
            }
            if (target.empty() && !f.bus_info.empty()) {
                std::vector<std::string> on_fn;
                for (const auto& [name, bdf] : netdev_bdf_)
                    if (bdf == f.bus_info) on_fn.push_back(name);
                if (on_fn.size() == 1) target = on_fn[0];
            }
            if (target.empty()) {
                std::string best;
                for (const auto& [a, name] : alias)
                    if (a.size() > best.size() &&
                        (contains_word(f.file, a) || contains_word(f.label, a)))
                        best = a, target = name;
            }
            if (target.empty() && no_ip_link) {  // "eth2-pfc.txt" or "### eth2" with no ip link
                target = iface_in_file_name(f.file);
                for (const auto w : tokens(f.label))
                    if (target.empty()) target = iface_in_file_name(w);
                if (!target.empty()) {
                    netdevs_.insert(target);
                    m_.note(f.file, f.kind + " taken as " + target +
                                        "'s: the interface its file name or section marker "
                                        "names (no ip link output, no command naming it)");
                }
            }
            if (target.empty() && netdevs_.size() == 1) {
                target = *netdevs_.begin();
                m_.note(f.file, f.kind +
                                    " does not name its interface and neither does the file "
                                    "name: used the only netdev, " +
                                    target);
            }
            target_.push_back(target);
            if (!f.bus_info.empty() && !target.empty()) netdev_bdf_.try_emplace(target, f.bus_info);
            if (!f.driver.empty() && !target.empty()) driver_[target] = f.driver;
        }
    }

    /// Step 2's last resort: systemd PCI names of netdevs and altnames.
    void named_functions() {
        for (const auto& name : netdevs_) {
            if (netdev_bdf_.count(name)) continue;
            std::string bdf = bdf_from_pci_name(name);
            if (auto it = m_.netdevs.find(name); bdf.empty() && it != m_.netdevs.end())
                for (const auto& alt : it->second.altnames)
                    if (bdf = bdf_from_pci_name(alt); !bdf.empty()) break;
            if (!bdf.empty()) netdev_bdf_[name] = bdf;
        }
    }

    /// Step 4 by a linked netdev or the device's own udev name.
    void link_device_functions() {
        for (const auto& [k, name] : links_)
            if (auto it = netdev_bdf_.find(name); it != netdev_bdf_.end())
                device_bdf_.try_emplace(k.device, it->second);
        for (const auto& [name, d] : m_.devices)
            if (!device_bdf_.count(name))
                if (auto bdf = bdf_from_pci_name(name); !bdf.empty()) device_bdf_[name] = bdf;
    }

    /// Step 4 for the devices whose function nothing told.
    void device_functions() {
        std::set<std::string> claimed;
        for (const auto& [dev, bdf] : device_bdf_) claimed.insert(bdf);
        std::vector<std::string> devs;
        std::set<DriverFamily> families;
        for (const auto& [name, d] : m_.devices) {
            const Driver* f = driver_of_rdma_name(name);
            if (!device_bdf_.count(name) && !(f && f->pci_drivers.empty())) {  // not soft (rxe)
                devs.push_back(name);
                families.insert(f);
            }
        }
        std::vector<const PciFunction*> nics, fitting;
        for (const auto& fn : m_.pci)
            if (is_nic_class(fn.class_name) && !claimed.count(fn.bdf) &&
                !has(fn, "Virtual Function"))
                nics.push_back(&fn);
        std::sort(nics.begin(), nics.end(),
                  [](const PciFunction* a, const PciFunction* b) { return a->bdf < b->bdf; });
        if (families.size() == 1)
            for (auto* fn : nics)
                if (vendor_fits(*families.begin(), *fn)) fitting.push_back(fn);
        if (!fitting.empty()) nics = fitting;
        if (devs.empty() || nics.empty()) return;
        const std::string file = nics.front()->file;
        std::vector<std::string> cands;
        for (auto* fn : nics) cands.push_back(fn->bdf);
        if (devs.size() == 1) {
            // One card's functions share its PCIe link: the first stands for the card.
            device_bdf_[devs[0]] = nics[0]->bdf;
            cands.erase(cands.begin());
            m_.note(file,
                    devs[0] + " taken to be the first NIC function " + nics[0]->bdf +
                        " (nothing in the capture ties them directly); not used: " + join(cands));
        } else if (devs.size() == nics.size()) {
            for (std::size_t i = 0; i < devs.size(); ++i) device_bdf_[devs[i]] = nics[i]->bdf;
            m_.note(file,
                    "PCI functions " + join(cands) + " matched to RDMA devices " + join(devs) +
                        " by order (BDF order to name order): nothing in the "
                        "capture ties them directly (a GID MAC, parentdev or bus-info would)");
        } else {
            m_.note(file, std::to_string(nics.size()) + " NIC functions (" + join(cands) +
                              ") for RDMA devices " + join(devs) +
                              ": cannot tell which is which; their PCIe links are left out");
        }
    }

    /// Step 5.
    void remaining_links() {
        std::set<std::string> used;
        for (const auto& [k, name] : links_) used.insert(name);
        for (const auto& k : ports_) {
            if (links_.count(k)) continue;
            std::vector<std::string> same_fn;
            if (auto b = device_bdf_.find(k.device); b != device_bdf_.end())
                for (const auto& [name, bdf] : netdev_bdf_)
                    if (bdf == b->second && !used.count(name)) same_fn.push_back(name);
            std::vector<std::string> free;
            for (const auto& n : netdevs_)
                if (!used.count(n)) free.push_back(n);
            if (same_fn.size() == 1) {
                links_[k] = same_fn[0];
                used.insert(same_fn[0]);
            } else if (ports_.size() == 1 && netdevs_.size() == 1) {
                links_[k] = *netdevs_.begin();
                m_.note(port_name(k), "netdev " + links_[k] +
                                          " assumed: the capture's only RDMA port and only netdev");
            } else if (m_.port(k.device, k.port).link_layer != "InfiniBand" && !netdevs_.empty()) {
                m_.note(port_name(k),
                        "netdev unknown: no GID ndev or MAC, `rdma link`, parentdev or bus-info "
                        "ties one to this port; candidates: " +
                            join(same_fn.empty() ? free : same_fn));
            }
        }
    }

    /// The port a file goes to when nothing named its interface: the command's port, else
    /// the only RDMA port.
    std::optional<PortKey> lone_port() const {
        if (ports_.size() == 1) return ports_[0];
        return std::nullopt;
    }

    /// Step 7.
    void place_leftovers() {
        std::vector<std::string> port_names;
        for (const auto& k : ports_) port_names.push_back(port_name(k));
        for (std::size_t i = 0; i < m_.iface_files.size(); ++i) {
            if (!target_[i].empty()) continue;
            const auto& f = m_.iface_files[i];
            if (auto one = lone_port()) {
                to_single_port_.push_back(i);
                std::string how = links_.count(*one) ? " (its netdev " + links_.at(*one) +
                                                           " decided by the capture's evidence)"
                                                     : std::string{};
                m_.note(f.file, f.kind + ": interface not named; attached to the only RDMA port, " +
                                    port_name(*one) + how);
            } else {
                std::vector<std::string> cands(netdevs_.begin(), netdevs_.end());
                m_.note(f.file, f.kind + ": cannot tell which interface this is (candidates: " +
                                    join(cands) +
                                    "; name it in the file name, e.g. ethtool-S-<if>.txt, or "
                                    "keep the prompt line with the command); not used");
            }
        }
        for (auto& u : m_.unplaced) {
            std::optional<PortKey> to = u.port_hint;
            if (to && !std::count(ports_.begin(), ports_.end(), *to)) {
                m_.port(to->device, to->port);  // the command's path names a port: it exists
                ports_.push_back(*to);
            }
            const bool by_command = to.has_value();
            if (!to) to = lone_port();
            if (!to) {
                m_.note(u.file, u.kind +
                                    " does not say which RDMA port its counters belong to "
                                    "(candidates: " +
                                    join(port_names) + "); not used");
                continue;
            }
            Port& p = m_.port(to->device, to->port);
            for (auto& c : u.hw_counters) add_counter(p.hw_counters, std::move(c), m_, u.file);
            for (auto& c : u.counters) add_counter(p.counters, std::move(c), m_, u.file);
            if (!by_command)
                m_.note(u.file, u.kind +
                                    " does not name its port; attached to the only RDMA port, " +
                                    port_name(*to));
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
        bool port_without_netdev = false;  // a port the unused files could have belonged to
        for (const auto& k : ports_) {
            Port& p = m_.port(k.device, k.port);
            const std::string ifname = links_.count(k) ? links_[k] : std::string{};
            p.netdev_name = ifname;
            attached.insert(ifname);
            port_without_netdev = port_without_netdev || ifname.empty();
            if (auto g = m_.gids.find(k); g != m_.gids.end())
                for (const auto& [idx, gid] : g->second)
                    if (!gid.gid.empty() && !is_zero_gid(gid.gid)) p.gids.push_back(gid);
            if (!m_.gid_table_seen.count(k) && p.gids.empty())
                p.gids_unavailable =
                    m_.port_sources[k].count("state")
                        ? "no GID table in the capture (ibv_devinfo without -v)"
                        : "no GID table in the capture (no ibv_devinfo -v or gids/ listing)";
            if (auto src = m_.port_sources.find(k); src != m_.port_sources.end())
                p.sources = src->second;
            const auto files = files_for(ifname, ports_.size() == 1);
            auto nd_it = m_.netdevs.find(ifname);
            if (nd_it != m_.netdevs.end() || !files.empty()) {
                Netdev nd = nd_it != m_.netdevs.end() ? nd_it->second.netdev : Netdev{};
                nd.name = ifname;
                apply_files(nd, files);
                p.netdev = std::move(nd);
            }
            // `ethtool <if>` Speed: the port rate when no capture gave one.
            for (const IfaceFile* f : files)
                if (p.rate.empty() && f->speed_mbps) {
                    char buf[48];
                    std::snprintf(buf, sizeof buf, "%g Gb/sec", *f->speed_mbps / 1000.0);
                    p.rate = buf;
                    p.sources.try_emplace("rate", f->speed_source);
                    m_.note(f->file, port_name(k) + " rate " + p.rate +
                                         " taken from the ethtool link speed");
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
            if (!target_[i].empty() && !attached.count(target_[i])) {
                m_.note(m_.iface_files[i].file,
                        m_.iface_files[i].kind + " of " + target_[i] +
                            ": not the netdev of any RDMA port in the capture; not used");
                // A management NIC's counters beside ports whose netdevs are all known are
                // rightly left out; beside a port with no netdev they may be that port's.
                if (port_without_netdev)
                    m_.unused_counters.push_back(m_.dir + "/" + m_.iface_files[i].file + ": " +
                                                 m_.iface_files[i].kind + " of " + target_[i] +
                                                 " is tied to no RDMA port of the capture");
            }
    }

    void apply_files(Netdev& nd, const std::vector<const IfaceFile*>& files) {
        std::string stats_from, qos_from;
        for (const IfaceFile* f : files) {
            if (nd.source.empty())
                nd.source = f->ethtool_stats.empty() ? f->file : f->ethtool_stats[0].source;
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
        // As detect_rdma_driver / netdev_family_of on a live host, with `ethtool -i` for the
        // driver links: a renamed device ("rocep59s0f0") by its PCI function's driver.
        DriverFamily rdma = driver_of_rdma_name(k.device);
        DriverFamily net = driver_of_netdev_driver(driver);
        if (!rdma) rdma = driver_of_pci_driver(driver);
        if (!net && rdma && rdma->own_netdev) net = rdma;
        p.normalized = normalize_port(p, rdma, net);
    }

    // --- PCIe ------------------------------------------------------------------------------

    const PciFunction* function(const std::string& bdf) const {
        auto it = std::find_if(m_.pci.begin(), m_.pci.end(),
                               [&](const PciFunction& f) { return f.bdf == bdf; });
        return it == m_.pci.end() ? nullptr : &*it;
    }

    /// The bridge whose secondary bus is `bus` in `domain` (lspci -vv Bus lines first, then an
    /// `lspci -t` range); "" at a root bus.
    std::string bridge_above(unsigned domain, unsigned bus) const {
        for (const auto& fn : m_.pci)
            if (fn.secondary_bus && *fn.secondary_bus == bus && domain_bus(fn.bdf).first == domain)
                return fn.bdf;
        for (const auto& b : m_.tree_bridges)
            if (b.secondary_bus == bus && domain_bus(b.bdf).first == domain) return b.bdf;
        return {};
    }

    /// "0000:b3:00" of "0000:b3:00.1": the card whose functions share one PCIe link.
    static std::string card_of(const std::string& bdf) {
        const auto dot = bdf.rfind('.');
        return dot == std::string::npos ? bdf : bdf.substr(0, dot);
    }
    static bool same_card(const std::string& a, const std::string& b) {
        return !a.empty() && card_of(a) == card_of(b);
    }

    static PcieLink link_of(const PciFunction& fn, bool is_function) {
        PcieLink l;
        l.bdf = fn.bdf;
        l.sysfs_path = "";
        l.source = fn.file + ":" + std::to_string(fn.sta_line ? fn.sta_line : fn.line);
        l.is_function = is_function;
        l.current_speed_gts = fn.sta_speed_gts;
        l.max_speed_gts = fn.cap_speed_gts;
        l.current_width = fn.sta_width;
        l.max_width = fn.cap_width;
        l.target_speed_gts = fn.target_speed_gts;
        l.numa_node = fn.numa_node;
        l.port_type = fn.port_type;
        return l;
    }

    /// When no RDMA device of the capture is tied to an lspci function (its parentdev /
    /// bus-info names a function lspci does not show) but lspci holds RDMA-capable NIC
    /// functions, their PCIe facts are kept: with one device and one candidate card (vendor
    /// fitting), the card's first function is taken as the device's; else each candidate
    /// becomes a device named by its BDF, as in lspci_only_devices. Both are warnings.
    void pcie_fallback() {
        if (m_.pci.empty()) return;
        std::set<std::string> printed;  // cards ("0000:b3:00") a kernel PCIe line is about
        for (const auto& x : m_.dmesg_pcie) printed.insert(card_of(x.function));
        std::vector<std::string> lost;  // devices whose function is in neither lspci nor dmesg
        for (const auto& [name, d] : m_.devices) {
            auto b = device_bdf_.find(name);
            if (b != device_bdf_.end() &&
                (function(b->second) || printed.count(card_of(b->second))))
                return;  // one device is tied: the capture's mapping holds
            if (b != device_bdf_.end()) lost.push_back(name);
        }
        if (lost.empty()) return;
        std::set<DriverFamily> families;
        for (const auto& name : lost) {
            DriverFamily f = driver_of_rdma_name(name);
            if (!f)
                for (const auto& [k, nd] : links_)
                    if (k.device == name)
                        if (auto it = driver_.find(nd); it != driver_.end())
                            f = driver_of_pci_driver(it->second);
            families.insert(f);
        }
        std::vector<const PciFunction*> cands;
        for (const auto& fn : m_.pci)
            if (rdma_capable_nic(fn) &&
                (families.size() != 1 || !*families.begin() || vendor_fits(*families.begin(), fn)))
                cands.push_back(&fn);
        if (cands.empty()) return;
        std::sort(cands.begin(), cands.end(),
                  [](const PciFunction* a, const PciFunction* b) { return a->bdf < b->bdf; });
        std::set<std::string> cards;  // "0000:b3:00" of "0000:b3:00.1"
        for (auto* fn : cands) cards.insert(fn->bdf.substr(0, fn->bdf.rfind('.')));
        std::vector<std::string> bdfs;
        for (auto* fn : cands) bdfs.push_back(fn->bdf);
        const std::string file = cands.front()->file;
        if (lost.size() == 1 && cards.size() == 1) {
            const std::string was = device_bdf_[lost[0]];
            device_bdf_[lost[0]] = cands.front()->bdf;
            m_.warn(file, lost[0] + "'s PCI function " + was +
                              " (from the netdev's parentdev/bus-info) is not in the lspci "
                              "output; lspci's only RDMA-capable NIC, " +
                              cands.front()->bdf + " (" + cands.front()->description +
                              "), is taken as " + lost[0] + "'s by vendor");
            return;
        }
        for (auto* fn : cands)
            if (!m_.devices.count(fn->bdf)) {
                m_.device(fn->bdf);
                device_bdf_[fn->bdf] = fn->bdf;
            }
        std::string was;
        for (const auto& name : lost)
            was += (was.empty() ? "" : ", ") + name + " at " + device_bdf_[name];
        m_.warn(file, "the RDMA devices' PCI functions (" + was +
                          ") are not in the lspci output; its RDMA-capable NIC functions " +
                          join(bdfs) +
                          " are kept as devices named by PCI address for the "
                          "PCIe checks");
    }

    /// The kernel's "limited by" lines about `bdf`'s card: its own first, then those another
    /// function of the same bus:device printed for all of them (0000:b3:00.1 speaks for b3:00.0
    /// too).
    std::vector<const DmesgPcieLink*> printed_for(const std::string& bdf) const {
        std::vector<const DmesgPcieLink*> printed;
        for (const auto& x : m_.dmesg_pcie)
            if (x.function == bdf) printed.push_back(&x);
        for (const auto& x : m_.dmesg_pcie)
            if (x.function != bdf && same_card(x.function, bdf)) printed.push_back(&x);
        return printed;
    }

    /// The function's own link from lspci. When lspci was cut before LnkCap/LnkSta (or lacks
    /// them) the kernel's line fills them: "capable of" is the card's own capability, and the
    /// trained link is the card's own when nothing above it limits (or the limit is on the card).
    PcieLink lspci_link(const PciFunction& fn, const std::vector<const DmesgPcieLink*>& printed,
                        const std::string& bdf) {
        PcieLink own = link_of(fn, true);
        if (!printed.empty()) {
            const DmesgPcieLink& x = *printed[0];
            const bool cut = !own.current_speed_gts || !own.current_width;
            if (!own.max_speed_gts && !own.max_width) {
                own.max_speed_gts = x.cap_speed_gts;
                own.max_width = x.cap_width;
                if (cut) own.source = x.source;
            }
            if (cut && (x.limited_at.empty() || same_card(x.limited_at, bdf))) {
                own.current_speed_gts = x.speed_gts;
                own.current_width = x.width;
                own.source = x.source;
            }
        }
        if (fn.caps_denied)
            m_.note(fn.file, fn.bdf +
                                 ": lspci shows \"Capabilities: <access denied>\" "
                                 "(run as root): link speed/width unknown");
        return own;
    }

    /// The function's link from the kernel's first line alone (lspci does not show it).
    static PcieLink dmesg_link(const DmesgPcieLink& x, const std::string& bdf) {
        PcieLink l;
        l.bdf = bdf;
        l.is_function = true;
        l.source = x.source;
        l.max_speed_gts = x.cap_speed_gts;
        l.max_width = x.cap_width;
        if (x.limited_at.empty() || same_card(x.limited_at, bdf)) {
            l.current_speed_gts = x.speed_gts;
            l.current_width = x.width;
        }
        return l;
    }

    /// Upstream: the bridge above the function's bus, then above that bridge's bus, ...
    void upstream_links(const std::string& name, Device& d, const std::string& bdf) {
        std::set<std::string> seen{bdf};
        auto [domain, bus] = domain_bus(bdf);
        for (std::string up = bridge_above(domain, bus); !up.empty() && !seen.count(up);
             up = bridge_above(domain, bus)) {
            seen.insert(up);
            if (const PciFunction* br = function(up))
                d.pcie.push_back(link_of(*br, false));
            else
                m_.note(name, "upstream bridge " + up +
                                  " (from lspci -t) has no lspci -vv "
                                  "block: its link is not known");
            bus = domain_bus(up).second;
        }
    }

    /// dmesg names the limiting link: added when lspci did not show it.
    static void limiting_links(Device& d, const std::vector<const DmesgPcieLink*>& printed,
                               const std::string& bdf) {
        for (const auto* x : printed) {
            if (x->limited_at.empty() || same_card(x->limited_at, bdf)) continue;
            const bool known = std::any_of(d.pcie.begin(), d.pcie.end(), [&](const PcieLink& l) {
                return l.bdf == x->limited_at && l.current_speed_gts;
            });
            if (known) continue;
            PcieLink l;
            l.bdf = x->limited_at;
            l.is_function = false;
            l.source = x->source;
            l.current_speed_gts = x->speed_gts;
            l.current_width = x->width;
            d.pcie.push_back(std::move(l));
        }
    }

    /// The PCIe path of device `name` at `bdf`: its function, the bridges above it, the link
    /// the kernel says limits it; sources relative to the capture folder.
    void device_pcie(const std::string& name, Device& d, const std::string& bdf) {
        const PciFunction* fn = function(bdf);
        const std::vector<const DmesgPcieLink*> printed = printed_for(bdf);
        if (!fn && printed.empty()) {
            if (!m_.pci.empty())
                m_.warn(name, "PCI function " + bdf + " is not in the lspci output");
            return;
        }
        d.pcie.push_back(fn ? lspci_link(*fn, printed, bdf) : dmesg_link(*printed[0], bdf));
        upstream_links(name, d, bdf);
        limiting_links(d, printed, bdf);
        const std::string& dir = m_.dir;
        for (auto& l : d.pcie)
            if (!dir.empty() && !l.source.empty() && l.source.find('/') == std::string::npos)
                l.source = dir + "/" + l.source;
    }

    /// A downgraded bridge on no device's path: noted, as the rules never see it.
    void note_unplaced_bridges() {
        std::set<std::string> placed;
        for (const auto& [name, d] : m_.devices)
            for (const auto& l : d.pcie) placed.insert(l.bdf);
        for (const auto& fn : m_.pci)
            if (fn.class_name == "PCI bridge" && fn.sta_downgraded && !placed.count(fn.bdf))
                m_.note(fn.file + ":" + std::to_string(fn.line),
                        "PCI bridge " + fn.bdf + " link is downgraded (" + link_text(fn) +
                            ") but is not on the PCIe path of any RDMA device in the capture");
    }

    void pcie() {
        pcie_fallback();
        for (auto& [name, d] : m_.devices)
            if (auto b = device_bdf_.find(name); b != device_bdf_.end())
                device_pcie(name, d, b->second);
        note_unplaced_bridges();
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
