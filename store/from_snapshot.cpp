#include "store/from_snapshot.h"

#include "core/inventory/parse.h"

namespace rh {

namespace {

Labels port_labels(const Device& d, const Port& p) {
    Labels l{{"device", d.name}, {"port", std::to_string(p.number)}};
    if (!p.netdev_name.empty()) l["netdev"] = p.netdev_name;
    return l;
}

Sample base(const Snapshot& snap, SampleTime when, std::string series, Labels labels,
            SampleKind kind, std::string unit, std::string source) {
    Sample s;
    s.t_s = when.t_s;
    s.wall_ms = when.wall_ms;
    s.host = snap.host;
    s.series = std::move(series);
    s.labels = std::move(labels);
    s.kind = kind;
    s.unit = std::move(unit);
    s.source = std::move(source);
    return s;
}

void gauge(std::vector<Sample>& out, const Snapshot& snap, SampleTime when, std::string series,
           Labels labels, std::string unit, std::optional<double> v, std::string source) {
    Sample s = base(snap, when, std::move(series), std::move(labels), SampleKind::gauge,
                    std::move(unit), std::move(source));
    s.value = v;
    if (!v) s.error = "not readable";
    out.push_back(std::move(s));
}

/// Lanes of a port from its rate text, "100 Gb/sec (4X EDR)" / "100 Gb/sec (4X)" -> 4;
/// nullopt without a "(<n>X" part.
std::optional<double> port_width_lanes(const std::string& rate) {
    const auto open = rate.find('(');
    if (open == std::string::npos) return std::nullopt;
    std::size_t i = open + 1;
    unsigned n = 0;
    while (i < rate.size() && rate[i] >= '0' && rate[i] <= '9' && n < 1000)
        n = n * 10 + static_cast<unsigned>(rate[i++] - '0');
    if (i == open + 1 || i >= rate.size() || rate[i] != 'X' || n == 0) return std::nullopt;
    return static_cast<double>(n);
}

/// PFC enable bits and ECN enable state per priority, when known.
void qos_gauges(std::vector<Sample>& out, const Snapshot& snap, SampleTime when, const Labels& pl,
                const Netdev& n) {
    for (unsigned prio = 0; prio < 8; ++prio) {
        Labels l = pl;
        l["priority"] = std::to_string(prio);
        if (n.dcb && n.dcb->pfc_enabled)
            gauge(out, snap, when, "pfc_enabled", l, "bool",
                  ((*n.dcb->pfc_enabled >> prio) & 1u) ? 1.0 : 0.0, n.dcb->source);
        if (const auto& e = n.qos.ecn_np_enabled[prio])
            gauge(out, snap, when, "ecn_np_enabled", l, "bool", *e ? 1.0 : 0.0, n.qos.ecn_source);
        if (const auto& e = n.qos.ecn_rp_enabled[prio])
            gauge(out, snap, when, "ecn_rp_enabled", l, "bool", *e ? 1.0 : 0.0, n.qos.ecn_source);
    }
}

}  // namespace

std::vector<Sample> samples_from_snapshot(const Snapshot& snap, SampleTime when,
                                          bool with_inventory) {
    std::vector<Sample> out;
    std::size_t n = with_inventory ? 1 : 0;  // one allocation (a Sample is 320 bytes to move)
    for (const Device& d : snap.devices)
        for (const Port& p : d.ports) n += 3 + p.normalized.size() + (p.netdev ? 1 + 3 * 8 : 0);
    out.reserve(n);
    if (with_inventory) {
        Sample s = base(snap, when, "inventory", {}, SampleKind::inventory, "", snap.sysfs_root);
        s.inventory = inventory_json(snap);
        out.push_back(std::move(s));
    }
    for (const Device& d : snap.devices) {
        for (const Port& p : d.ports) {
            const Labels pl = port_labels(d, p);
            const std::string dir =
                "class/infiniband/" + d.name + "/ports/" + std::to_string(p.number) + "/";
            // A bundle's file and line where it has one, not a sysfs file it does not have.
            const auto cited = [&](const char* attr, const char* file) {
                const auto it = p.sources.find(attr);
                return it != p.sources.end() && !it->second.empty() ? it->second : dir + file;
            };
            gauge(out, snap, when, "port_state_code", pl, "state",
                  p.state_code ? std::optional<double>(*p.state_code) : std::nullopt,
                  cited("state", "state"));
            if (auto r = parse_port_rate_gbps(p.rate))
                gauge(out, snap, when, "port_rate_gbps", pl, "Gb/s", *r, cited("rate", "rate"));
            if (auto w = port_width_lanes(p.rate))
                gauge(out, snap, when, "port_width_lanes", pl, "lanes", *w, cited("rate", "rate"));
            for (const NormalizedCounter& c : p.normalized) {
                Labels l = pl;
                for (const auto& [k, v] : c.labels) l[k] = v;
                Sample s =
                    base(snap, when, c.name, std::move(l), SampleKind::counter, c.unit, c.source);
                s.count = c.value;
                if (!c.value) s.error = "raw counter " + c.raw_name + " not readable";
                s.raw = c.raw_name;
                s.width_bits = c.width_bits;
                s.saturates = c.saturates;
                out.push_back(std::move(s));
            }
            if (p.netdev) {
                const Netdev& n = *p.netdev;
                Sample s = base(snap, when, "carrier_changes", {{"netdev", n.name}},
                                SampleKind::counter, "events", n.source);
                s.count = n.carrier_changes;
                if (!s.count) s.error = "carrier_changes not readable";
                s.raw = "carrier_changes";
                out.push_back(std::move(s));
                qos_gauges(out, snap, when, pl, n);
            }
        }
    }
    return out;
}

nlohmann::json inventory_json(const Snapshot& snap) {
    return snapshot_json_tree(snap, InventoryJson::without_counters);
}

}  // namespace rh
