#include "core/inventory/inventory_from_json.h"

#include <string>
#include <type_traits>

#include "core/json/json_reader.h"

namespace rh {

namespace {

/// What a T is called in messages ("a string", "a whole number").
template <typename T>
std::string kind_of() {
    if constexpr (std::is_same_v<T, std::string>)
        return "a string";
    else if constexpr (std::is_same_v<T, bool>)
        return "true or false";
    else if constexpr (std::is_integral_v<T>)
        return "a whole number";
    else if constexpr (std::is_floating_point_v<T>)
        return "a number";
    else
        return "an array or object of the snapshot's shape";
}

/// The snapshot's reader: every field with a wrong type is collected in `errs` with its JSON
/// path (the core reader's JsonErrors and type texts); the field stays absent or empty.
struct InventoryReader {
    JsonErrors& errs;

    /// v as T into `out`; false (and an error at `path`) when v does not hold a T.
    template <typename T>
    bool convert(const nlohmann::json& v, T& out, const std::string& path) const {
        try {
            out = v.get<T>();
            return true;
        } catch (const nlohmann::json::exception&) {
            errs.add(path, "expected " + kind_of<T>() + ", got " + JsonReader::type_text(v));
            return false;
        }
    }

    const nlohmann::json* field(const nlohmann::json& j, const char* key) const {
        const auto it = j.find(key);
        return it == j.end() || it->is_null() ? nullptr : &*it;
    }

    template <typename T>
    void get(const nlohmann::json& j, const char* key, T& out, const std::string& path) {
        if (const auto* v = field(j, key)) {
            convert(*v, out, path + "." + key);
        }
    }

    template <typename T>
    void get(const nlohmann::json& j, const char* key, std::optional<T>& out,
             const std::string& path) {
        if (field(j, key)) {
            T v{};
            get(j, key, v, path);
            out = v;
        }
    }

    template <typename T>
    void get(const nlohmann::json& a, std::size_t i, std::optional<T>& out,
             const std::string& path) {
        T v{};
        if (convert(a[i], v, path + "[" + std::to_string(i) + "]")) out = v;
    }

    template <typename T, std::size_t N>
    void get_opt_array(const nlohmann::json& j, const char* key,
                       std::array<std::optional<T>, N>& out, const std::string& path) {
        const auto* a = field(j, key);
        if (!a) return;
        if (!a->is_array() || a->size() != N)
            return errs.add(path + "." + key, "expected an array of " + std::to_string(N) +
                                                  ", got " + JsonReader::type_text(*a));
        for (std::size_t i = 0; i < N; ++i)
            if (!(*a)[i].is_null()) get((*a), i, out[i], path + "." + key);
    }

    const nlohmann::json& array_field(const nlohmann::json& j, const char* key,
                                      const std::string& path) {
        static const nlohmann::json kEmpty = nlohmann::json::array();
        const auto* a = field(j, key);
        if (!a) return kEmpty;
        if (!a->is_array()) {
            errs.add(path + "." + key, "expected an array, got " + JsonReader::type_text(*a));
            return kEmpty;
        }
        return *a;
    }

    std::vector<Note> notes(const nlohmann::json& j, const char* key, const std::string& path) {
        std::vector<Note> out;
        const auto& a = array_field(j, key, path);
        for (std::size_t i = 0; i < a.size(); ++i) {
            Note n;
            const std::string p = path + "." + key + "[" + std::to_string(i) + "]";
            get(a[i], "subject", n.subject, p);
            get(a[i], "text", n.text, p);
            out.push_back(std::move(n));
        }
        return out;
    }

    DcbConfig dcb_from(const nlohmann::json& j, const std::string& path) {
        DcbConfig d;
        get(j, "source", d.source, path);
        get(j, "pfc_cap", d.pfc_cap, path);
        if (const auto* en = field(j, "pfc_enabled_priorities")) {
            const std::string ep = path + ".pfc_enabled_priorities";
            if (!en->is_array()) {
                errs.add(ep,
                         "expected an array of priorities 0..7, got " + JsonReader::type_text(*en));
            } else {
                std::uint8_t mask = 0;
                bool ok = true;
                for (std::size_t i = 0; i < en->size(); ++i) {
                    const auto p = JsonReader((*en)[i], ep + "[" + std::to_string(i) + "]", errs)
                                       .uint_in(0, 7);
                    if (p)
                        mask = static_cast<std::uint8_t>(mask | (1u << *p));
                    else
                        ok = false;
                }
                if (ok) d.pfc_enabled = mask;
            }
        }
        get(j, "prio_tc", d.prio_tc, path);
        get(j, "tc_tsa", d.tc_tsa, path);
        get(j, "tc_tx_bw_percent", d.tc_tx_bw_percent, path);
        get(j, "dcbx_mode", d.dcbx_mode, path);
        const auto& apps = array_field(j, "apps", path);
        for (std::size_t i = 0; i < apps.size(); ++i) {
            DcbApp a;
            const std::string p = path + ".apps[" + std::to_string(i) + "]";
            get(apps[i], "selector", a.selector, p);
            get(apps[i], "priority", a.priority, p);
            get(apps[i], "protocol", a.protocol, p);
            d.apps.push_back(a);
        }
        return d;
    }

    Netdev netdev_from(const nlohmann::json& j, const std::string& path) {
        Netdev n;
        get(j, "name", n.name, path);
        get(j, "source", n.source, path);
        get(j, "mtu_bytes", n.mtu_bytes, path);
        get(j, "operstate", n.operstate, path);
        get(j, "carrier_changes", n.carrier_changes, path);
        get(j, "rx_bytes", n.rx_bytes, path);
        get(j, "tx_bytes", n.tx_bytes, path);
        get(j, "rx_packets", n.rx_packets, path);
        get(j, "tx_packets", n.tx_packets, path);
        if (const auto* d = field(j, "dcb")) n.dcb = dcb_from(*d, path + ".dcb");
        if (const auto* q = field(j, "qos")) {
            get(*q, "trust", n.qos.trust, path + ".qos");
            get(*q, "trust_source", n.qos.trust_source, path + ".qos");
            get(*q, "ecn_source", n.qos.ecn_source, path + ".qos");
            get_opt_array(*q, "ecn_rp_enabled", n.qos.ecn_rp_enabled, path + ".qos");
            get_opt_array(*q, "ecn_np_enabled", n.qos.ecn_np_enabled, path + ".qos");
        }
        n.unavailable = notes(j, "unavailable", path);
        return n;
    }

    Port port_from(const nlohmann::json& j, const std::string& path) {
        Port p;
        get(j, "number", p.number, path);
        get(j, "state_code", p.state_code, path);
        get(j, "state", p.state, path);
        get(j, "phys_state_code", p.phys_state_code, path);
        get(j, "phys_state", p.phys_state, path);
        get(j, "rate", p.rate, path);
        get(j, "link_layer", p.link_layer, path);
        get(j, "netdev_name", p.netdev_name, path);
        const auto& gids = array_field(j, "gids", path);
        for (std::size_t i = 0; i < gids.size(); ++i) {
            Gid g;
            const std::string gp = path + ".gids[" + std::to_string(i) + "]";
            get(gids[i], "index", g.index, gp);
            get(gids[i], "gid", g.gid, gp);
            get(gids[i], "type", g.type, gp);
            get(gids[i], "netdev", g.netdev, gp);
            p.gids.push_back(std::move(g));
        }
        if (const auto* n = field(j, "netdev")) p.netdev = netdev_from(*n, path + ".netdev");
        if (const auto* v = field(j, "verbs")) {
            get(*v, "active_mtu_bytes", p.verbs.active_mtu_bytes, path + ".verbs");
            get(*v, "max_mtu_bytes", p.verbs.max_mtu_bytes, path + ".verbs");
            get(*v, "unavailable", p.verbs.unavailable, path + ".verbs");
        }
        get(j, "gids_unavailable", p.gids_unavailable, path);
        get(j, "sources", p.sources, path);
        return p;
    }

    PcieLink pcie_from(const nlohmann::json& j, const std::string& path) {
        PcieLink l;
        get(j, "bdf", l.bdf, path);
        get(j, "sysfs_path", l.sysfs_path, path);
        get(j, "is_function", l.is_function, path);
        get(j, "current_speed_gts", l.current_speed_gts, path);
        get(j, "max_speed_gts", l.max_speed_gts, path);
        get(j, "current_width_lanes", l.current_width, path);
        get(j, "max_width_lanes", l.max_width, path);
        get(j, "numa_node", l.numa_node, path);
        get(j, "source", l.source, path);
        get(j, "port_type", l.port_type, path);
        get(j, "target_speed_gts", l.target_speed_gts, path);
        get(j, "upstream_unread", l.upstream_unread, path);
        return l;
    }
};
}  // namespace

Result<Snapshot> snapshot_from_json(const nlohmann::json& j) {
    if (!j.is_object()) return Error{"read inventory", "snapshot", 0, "expected a JSON object"};
    JsonErrors errs;
    InventoryReader r{errs};
    Snapshot s;
    {
        r.get(j, "host", s.host, "snapshot");
        r.get(j, "sysfs_root", s.sysfs_root, "snapshot");
        r.get(j, "collected_at", s.collected_at, "snapshot");
        s.notes = r.notes(j, "notes", "snapshot");
        const auto& devs = r.array_field(j, "devices", "snapshot");
        for (std::size_t i = 0; i < devs.size(); ++i) {
            const std::string dp = "devices[" + std::to_string(i) + "]";
            Device d;
            r.get(devs[i], "name", d.name, dp);
            r.get(devs[i], "node_guid", d.node_guid, dp);
            r.get(devs[i], "fw_ver", d.fw_ver, dp);
            r.get(devs[i], "node_type", d.node_type, dp);
            const auto& ports = r.array_field(devs[i], "ports", dp);
            for (std::size_t k = 0; k < ports.size(); ++k)
                d.ports.push_back(r.port_from(ports[k], dp + ".ports[" + std::to_string(k) + "]"));
            const auto& pcie = r.array_field(devs[i], "pcie", dp);
            for (std::size_t k = 0; k < pcie.size(); ++k)
                d.pcie.push_back(r.pcie_from(pcie[k], dp + ".pcie[" + std::to_string(k) + "]"));
            d.problems = r.notes(devs[i], "problems", dp);
            s.devices.push_back(std::move(d));
        }
    }
    if (!errs.empty()) return Error{"read inventory", "snapshot", 0, errs.joined()};
    return s;
}

}  // namespace rh
