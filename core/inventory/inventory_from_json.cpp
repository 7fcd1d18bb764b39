#include "core/inventory/inventory_from_json.h"

#include <stdexcept>

namespace rh {

namespace {

/// Thrown inside this file only; converted to an Error naming the path at the API.
struct BadField : std::runtime_error {
    using std::runtime_error::runtime_error;
};

const nlohmann::json* field(const nlohmann::json& j, const char* key) {
    const auto it = j.find(key);
    return it == j.end() || it->is_null() ? nullptr : &*it;
}

template <typename T>
void get(const nlohmann::json& j, const char* key, T& out, const std::string& path) {
    if (const auto* v = field(j, key)) {
        try {
            out = v->get<T>();
        } catch (const nlohmann::json::exception&) {
            throw BadField(path + "." + key + ": unexpected " + std::string(v->type_name()));
        }
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
void get(const nlohmann::json& a, std::size_t i, std::optional<T>& out, const std::string& path) {
    try {
        out = a[i].get<T>();
    } catch (const nlohmann::json::exception&) {
        throw BadField(path + "[" + std::to_string(i) + "]: unexpected " +
                       std::string(a[i].type_name()));
    }
}

template <typename T, std::size_t N>
void get_opt_array(const nlohmann::json& j, const char* key, std::array<std::optional<T>, N>& out,
                   const std::string& path) {
    const auto* a = field(j, key);
    if (!a) return;
    if (!a->is_array() || a->size() != N)
        throw BadField(path + "." + key + ": expected an array of " + std::to_string(N));
    for (std::size_t i = 0; i < N; ++i)
        if (!(*a)[i].is_null()) get((*a), i, out[i], path + "." + key);
}

const nlohmann::json& array_field(const nlohmann::json& j, const char* key,
                                  const std::string& path) {
    static const nlohmann::json kEmpty = nlohmann::json::array();
    const auto* a = field(j, key);
    if (!a) return kEmpty;
    if (!a->is_array()) throw BadField(path + "." + key + ": expected an array");
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
        if (!en->is_array()) throw BadField(path + ".pfc_enabled_priorities: expected an array");
        std::uint8_t mask = 0;
        for (const auto& p : *en) {
            if (!p.is_number_unsigned() || p.get<std::uint64_t>() > 7)
                throw BadField(path + ".pfc_enabled_priorities: expected priorities 0..7");
            mask = static_cast<std::uint8_t>(mask | (1u << p.get<unsigned>()));
        }
        d.pfc_enabled = mask;
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
    return l;
}

}  // namespace

Result<Snapshot> snapshot_from_json(const nlohmann::json& j) {
    if (!j.is_object()) return Error{"read inventory", "snapshot", 0, "expected a JSON object"};
    try {
        Snapshot s;
        get(j, "host", s.host, "snapshot");
        get(j, "sysfs_root", s.sysfs_root, "snapshot");
        get(j, "collected_at", s.collected_at, "snapshot");
        s.notes = notes(j, "notes", "snapshot");
        const auto& devs = array_field(j, "devices", "snapshot");
        for (std::size_t i = 0; i < devs.size(); ++i) {
            const std::string dp = "devices[" + std::to_string(i) + "]";
            Device d;
            get(devs[i], "name", d.name, dp);
            get(devs[i], "node_guid", d.node_guid, dp);
            get(devs[i], "fw_ver", d.fw_ver, dp);
            get(devs[i], "node_type", d.node_type, dp);
            const auto& ports = array_field(devs[i], "ports", dp);
            for (std::size_t k = 0; k < ports.size(); ++k)
                d.ports.push_back(port_from(ports[k], dp + ".ports[" + std::to_string(k) + "]"));
            const auto& pcie = array_field(devs[i], "pcie", dp);
            for (std::size_t k = 0; k < pcie.size(); ++k)
                d.pcie.push_back(pcie_from(pcie[k], dp + ".pcie[" + std::to_string(k) + "]"));
            d.problems = notes(devs[i], "problems", dp);
            s.devices.push_back(std::move(d));
        }
        return s;
    } catch (const BadField& e) {
        return Error{"read inventory", "snapshot", 0, e.what()};
    } catch (const nlohmann::json::exception& e) {
        return Error{"read inventory", "snapshot", 0, e.what()};
    }
}

}  // namespace rh
