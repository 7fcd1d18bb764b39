#include "store/from_snapshot.h"

#include <array>
#include <cstdio>
#include <iterator>
#include <string_view>

#include "core/inventory/nic_models.h"
#include "core/inventory/parse.h"

namespace rh {

namespace {

Labels port_labels(const Device& d, const Port& p) {
    Labels l{{"device", d.name}, {"port", std::to_string(p.number)}};
    if (!p.netdev_name.empty()) l["netdev"] = p.netdev_name;
    return l;
}

/// Sets `l` to `base` with `extra` over it, leaving it alone when it already is that (the usual
/// case for a reused Sample: no node allocated or freed).
void assign_labels(Labels& l, const Labels& base, const Labels& extra = {}) {
    std::size_t n = base.size();
    for (const auto& [k, v] : extra) n += base.count(k) ? 0 : 1;
    bool same = l.size() == n;
    const auto has = [&](const std::string& k, const std::string& v) {
        const auto it = l.find(k);
        return it != l.end() && it->second == v;
    };
    for (auto it = extra.begin(); same && it != extra.end(); ++it)
        same = has(it->first, it->second);
    for (auto it = base.begin(); same && it != base.end(); ++it)
        same = extra.count(it->first) || has(it->first, it->second);
    if (same) return;
    l = base;
    for (const auto& [k, v] : extra) l[k] = v;
}

/// Writes a pass's samples into `out` from its start, reusing the Samples already there: their
/// strings and label maps keep their storage, so a pass laid out as the last one allocates
/// nothing (the agent's steady state: issue 13 §2). finish() drops what this pass did not use.
class Emitter {
  public:
    Emitter(std::vector<Sample>& out, const Snapshot& snap, SampleTime when)
        : out_(out), snap_(snap), when_(when) {}

    /// The next sample, every field set to a fresh sample's except those given here.
    Sample& next(std::string_view series, SampleKind kind, std::string_view unit,
                 std::string_view source) {
        if (n_ == out_.size()) out_.emplace_back();
        Sample& s = out_[n_++];
        s.t_s = when_.t_s;
        s.wall_ms = when_.wall_ms;
        s.host = snap_.host;
        s.series.assign(series);
        s.kind = kind;
        s.unit.assign(unit);
        s.count.reset();
        s.value.reset();
        if (s.inventory) s.inventory = nullptr;
        s.error.clear();
        s.source.assign(source);
        s.raw.clear();
        s.width_bits = 64;
        s.saturates = false;
        return s;
    }
    void gauge(std::string_view series, const Labels& labels, std::string_view unit,
               std::optional<double> v, std::string_view source, const Labels& extra = {}) {
        Sample& s = next(series, SampleKind::gauge, unit, source);
        assign_labels(s.labels, labels, extra);
        s.value = v;
        if (!v) s.error = "not readable";
    }
    void finish() { out_.resize(n_); }

  private:
    std::vector<Sample>& out_;
    const Snapshot& snap_;
    SampleTime when_;
    std::size_t n_ = 0;
};

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
void qos_gauges(Emitter& out, const Labels& pl, const Netdev& n) {
    static const std::array<Labels, 8> kPriority = [] {
        std::array<Labels, 8> a;
        for (unsigned prio = 0; prio < 8; ++prio) a[prio] = {{"priority", std::to_string(prio)}};
        return a;
    }();
    for (unsigned prio = 0; prio < 8; ++prio) {
        const Labels& l = kPriority[prio];
        if (n.dcb && n.dcb->pfc_enabled)
            out.gauge("pfc_enabled", pl, "bool", ((*n.dcb->pfc_enabled >> prio) & 1u) ? 1.0 : 0.0,
                      n.dcb->source, l);
        if (const auto& e = n.qos.ecn_np_enabled[prio])
            out.gauge("ecn_np_enabled", pl, "bool", *e ? 1.0 : 0.0, n.qos.ecn_source, l);
        if (const auto& e = n.qos.ecn_rp_enabled[prio])
            out.gauge("ecn_rp_enabled", pl, "bool", *e ? 1.0 : 0.0, n.qos.ecn_source, l);
    }
}

}  // namespace

void fill_samples_from_snapshot(const Snapshot& snap, SampleTime when, std::vector<Sample>& out) {
    Emitter emit(out, snap, when);
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
            emit.gauge("port_state_code", pl, "state",
                       p.state_code ? std::optional<double>(*p.state_code) : std::nullopt,
                       cited("state", "state"));
            if (auto r = parse_port_rate_gbps(p.rate))
                emit.gauge("port_rate_gbps", pl, "Gb/s", *r, cited("rate", "rate"));
            else if (d.vendor_id && d.vendor_part_id)
                // No rate read: the model's fastest, so pause frames still bound time paused.
                if (auto mx = nic_model_max_port_gbps(*d.vendor_id, *d.vendor_part_id)) {
                    char model[48];
                    std::snprintf(model, sizeof model, "NIC model %04x:%04x (vendor_part_id %u)",
                                  *d.vendor_id, *d.vendor_part_id, *d.vendor_part_id);
                    emit.gauge("port_max_rate_gbps", pl, "Gb/s", *mx, model);
                }
            if (auto w = port_width_lanes(p.rate))
                emit.gauge("port_width_lanes", pl, "lanes", *w, cited("rate", "rate"));
            for (const NormalizedCounter& c : p.normalized) {
                Sample& s = emit.next(c.name, SampleKind::counter, c.unit, c.source);
                assign_labels(s.labels, pl, c.labels);
                s.count = c.value;
                if (!c.value) s.error = "raw counter " + c.raw_name + " not readable";
                s.raw = c.raw_name;
                s.width_bits = c.width_bits;
                s.saturates = c.saturates;
            }
            if (p.netdev) {
                const Netdev& n = *p.netdev;
                Sample& s = emit.next("carrier_changes", SampleKind::counter, "events", n.source);
                if (s.labels.size() != 1 || s.labels.begin()->first != "netdev")
                    s.labels = {{"netdev", n.name}};
                else
                    s.labels.begin()->second = n.name;
                s.count = n.carrier_changes;
                if (!s.count) s.error = "carrier_changes not readable";
                s.raw = "carrier_changes";
                // Received packets the kernel counts as dropped (`ip -s link` RX "dropped",
                // statistics/rx_dropped; mlx5: rx_out_of_buffer), on the port's labels so the
                // receive-discard rule judges it with the port. Only where it was read.
                if (n.rx_dropped) {
                    Sample& d =
                        emit.next("netdev_rx_dropped", SampleKind::counter, "packets", n.source);
                    d.labels = pl;
                    d.count = n.rx_dropped;
                    d.raw = "rx_dropped";
                }
                qos_gauges(emit, pl, n);
            }
        }
    }
    emit.finish();
}

std::vector<Sample> samples_from_snapshot(const Snapshot& snap, SampleTime when,
                                          bool with_inventory) {
    std::vector<Sample> out;
    if (with_inventory) out.push_back(inventory_sample(snap, when));
    std::vector<Sample> pass;
    fill_samples_from_snapshot(snap, when, pass);
    out.insert(out.end(), std::make_move_iterator(pass.begin()),
               std::make_move_iterator(pass.end()));
    return out;
}

Sample inventory_sample(const Snapshot& snap, SampleTime when) {
    Sample s;
    s.t_s = when.t_s;
    s.wall_ms = when.wall_ms;
    s.host = snap.host;
    s.series = "inventory";
    s.kind = SampleKind::inventory;
    s.source = snap.sysfs_root;
    s.inventory = std::make_shared<const Snapshot>(inventory_static_facts(snap));
    return s;
}

nlohmann::json inventory_json(const Snapshot& snap) {
    return snapshot_json_tree(snap, InventoryJson::without_counters);
}

}  // namespace rh
