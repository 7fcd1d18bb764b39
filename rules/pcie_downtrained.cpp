// pcie_downtrained: the PCIe path of a NIC (its function, then each bridge up to the root port:
// switch downstream/upstream ports, root port) carries less than the NIC can use. Names the
// link that limits (lowest trained bandwidth) and why, from what the two ends of that link
// can do (LnkCap) and did train (LnkSta):
// - trained below what both ends support: a training fault (seating, riser, lane
//   bifurcation, signal integrity): reseat / check BIOS bifurcation and AER;
// - trained at what the downstream end (root port or switch downstream port: the slot) is
//   capable of, but below the card's (or switch's) capability: the slot limits: move the card;
// - a switch whose upstream port is itself capable of less: the switch limits.
// Below the RDMA port rate is an error, otherwise a warning (the headroom for bursts, PCIe
// protocol overhead and reads is gone).
// Source: `devices/.../<bdf>/{current,max}_link_{speed,width}`, `ports/<p>/rate`; for bundles
// the `lspci -vv` / dmesg line (PcieLink::source, Port::sources).
#include <cctype>
#include <cstdio>

#include "rules/pcie_math.h"
#include "rules/rule.h"

namespace rh {

namespace {

std::optional<double> trained_gbps(const PcieLink& l) {
    if (!l.current_speed_gts || !l.current_width) return std::nullopt;
    return pcie_link_gbps(*l.current_speed_gts, *l.current_width);
}

std::optional<double> capable_gbps(const PcieLink& l) {
    if (!l.max_speed_gts || !l.max_width) return std::nullopt;
    return pcie_link_gbps(*l.max_speed_gts, *l.max_width);
}

std::string fmt(double v, const char* format) {
    char buf[48];
    std::snprintf(buf, sizeof buf, format, v);
    return buf;
}

std::string speed_width(const std::optional<double>& s, const std::optional<unsigned>& w) {
    std::string out = s ? fmt(*s, "%g GT/s") : std::string("? GT/s");
    out += " x";
    out += w ? std::to_string(*w) : std::string("?");
    return out;
}

std::string describe(const PcieLink& l) {
    return speed_width(l.current_speed_gts, l.current_width) + " of " +
           speed_width(l.max_speed_gts, l.max_width);
}

bool downstream_facing(const PcieLink& l) {
    return l.port_type == "Root Port" || l.port_type == "Downstream Port";
}

std::string role(const PcieLink& l) {
    if (l.is_function) return "the NIC's own PCIe function";
    if (l.port_type == "Root Port") return "root port";
    if (l.port_type == "Downstream Port") return "PCIe switch downstream port";
    if (l.port_type == "Upstream Port") return "PCIe switch upstream port";
    return "upstream port";
}

std::optional<double> fastest_port_rate(const Device& d) {
    std::optional<double> best;
    for (const auto& p : d.ports)
        if (auto r = parse_port_rate_gbps(p.rate); r && (!best || *r > *best)) best = r;
    return best;
}

/// The two ends of the physical link `chain[i]` is on: {upstream-facing end (function or
/// switch upstream port), downstream-facing end (root / switch downstream port)}; nullptr
/// where the chain does not show it. Without port types (live sysfs), ends pair up in chain
/// order: function + first bridge, next bridge + the one above it, ...
std::pair<const PcieLink*, const PcieLink*> ends(const std::vector<PcieLink>& chain,
                                                 std::size_t i) {
    const bool typed = !chain[i].port_type.empty() || chain[i].is_function;
    bool down = typed ? downstream_facing(chain[i]) : (i % 2 == 1);
    if (chain[i].is_function) down = false;
    if (down) return {i > 0 ? &chain[i - 1] : nullptr, &chain[i]};
    const PcieLink* d =
        i + 1 < chain.size() && (chain[i + 1].port_type.empty() || downstream_facing(chain[i + 1]))
            ? &chain[i + 1]
            : nullptr;
    return {&chain[i], d};
}

template <typename T>
std::optional<T> min_opt(const std::optional<T>& a, const std::optional<T>& b) {
    if (a && b) return std::min(*a, *b);
    return std::nullopt;
}

bool below(const std::optional<double>& s, const std::optional<unsigned>& w,
           const std::optional<double>& cs, const std::optional<unsigned>& cw) {
    return (s && cs && *s < *cs) || (w && cw && *w < *cw);
}

}  // namespace

void rule_pcie_downtrained(const RuleInput& in, RuleOutput& out) {
    const bool bundle = in.local.sysfs_root.rfind("bundle:", 0) == 0;
    for (const auto& d : in.local.devices) {
        if (d.pcie.empty()) continue;
        const PcieLink* limiting = nullptr;
        std::size_t at = 0;
        bool degraded_any = false;
        for (std::size_t i = 0; i < d.pcie.size(); ++i) {
            const auto& l = d.pcie[i];
            if (!l.current_speed_gts || !l.current_width) {
                out.unevaluated.push_back(
                    {d.name + " PCIe " + l.bdf, "link speed/width unknown (" + describe(l) +
                                                    "): cannot tell whether it limits the NIC"});
                continue;
            }
            degraded_any = degraded_any || below(l.current_speed_gts, l.current_width,
                                                 l.max_speed_gts, l.max_width);
            const auto bw = trained_gbps(l);
            // Lowest bandwidth wins; on a tie the end further upstream (it is the same link
            // seen from its other end, or a link above it that limits as much).
            if (!limiting || *bw <= *trained_gbps(*limiting)) limiting = &l, at = i;
        }
        if (!limiting) continue;
        const PcieLink& fn = d.pcie.front();
        const auto path_bw = trained_gbps(*limiting);
        std::optional<double> nic_bw;
        if (fn.is_function) nic_bw = capable_gbps(fn);
        const bool below_nic = path_bw && nic_bw && *path_bw + 0.5 < *nic_bw;
        if (!degraded_any && !below_nic) continue;

        auto [up, down] = ends(d.pcie, at);
        const auto s = limiting->current_speed_gts;
        const auto w = limiting->current_width;
        std::string why, advice;
        const auto both_s =
            up && down ? min_opt(up->max_speed_gts, down->max_speed_gts) : std::nullopt;
        const auto both_w = up && down ? min_opt(up->max_width, down->max_width) : std::nullopt;
        const std::string link_name = up && down
                                          ? "the link between " + role(*down) + " " + down->bdf +
                                                " and " + role(*up) + " " + up->bdf
                                          : role(*limiting) + " " + limiting->bdf;
        if (up && down && below(s, w, both_s, both_w)) {
            why = "it trained at " + describe(*limiting) + ", below the " +
                  speed_width(both_s, both_w) + " both ends support";
            advice = up->is_function
                         ? "reseat the card (or its riser), check BIOS lane bifurcation for the "
                           "slot and AER errors on that link"
                         : "check the PCIe switch's uplink (its seating/cabling, BIOS "
                           "bifurcation of the root port) and AER errors on that link";
        } else if (up && down &&
                   below(down->max_speed_gts, down->max_width, up->max_speed_gts, up->max_width)) {
            why = role(*down) + " " + down->bdf + " (the slot) is itself capable of only " +
                  speed_width(down->max_speed_gts, down->max_width) + ", while " + role(*up) + " " +
                  up->bdf + " can do " + speed_width(up->max_speed_gts, up->max_width);
            advice = up->is_function
                         ? "the slot limits, not the card: move the card to a slot wired for " +
                               speed_width(up->max_speed_gts, up->max_width) +
                               " (or enable it in BIOS); reseating will not help"
                         : "the slot the PCIe switch sits in limits: move the switch/riser to a "
                           "slot of its width and speed";
        } else if (below(s, w, limiting->max_speed_gts, limiting->max_width)) {
            why = role(*limiting) + " " + limiting->bdf + " trained at " + describe(*limiting);
            advice =
                down ? "reseat the card, check BIOS lane bifurcation and AER errors on that link"
                     : "the capture does not show the port above it, so slot and card "
                       "cannot be told apart: check the slot's capability (lspci -vv of the "
                       "root port), reseat, check BIOS lane bifurcation and AER errors";
        } else if (up && !up->is_function &&
                   below(up->max_speed_gts, up->max_width, fn.max_speed_gts, fn.max_width)) {
            why = role(*up) + " " + up->bdf + " is itself capable of only " +
                  speed_width(up->max_speed_gts, up->max_width);
            advice =
                "the PCIe switch (or retimer) above the NIC limits: use a switch or slot "
                "that carries the NIC's " +
                speed_width(fn.max_speed_gts, fn.max_width);
        } else {
            why = role(*limiting) + " " + limiting->bdf + " trained at " + describe(*limiting);
            advice =
                down ? "reseat the card, check BIOS lane bifurcation and AER errors on that link"
                     : "the capture does not show the port above it, so slot and card "
                       "cannot be told apart: check the slot's capability (lspci -vv of the "
                       "root port), reseat the card, check BIOS lane bifurcation";
        }

        const auto port_rate = fastest_port_rate(d);
        const bool below_rate = path_bw && port_rate && *path_bw < *port_rate;
        Finding f = check_finding("pcie_downtrained", in.local.host, d.name, 0,
                                  below_rate ? "below_port_rate" : "");
        f.summary = d.name + " PCIe is limited by " + link_name + ": " + why;
        if (path_bw && port_rate && below_rate)
            f.summary += "; about " + fmt(*path_bw, "%.0f") + " Gb/s, below the " +
                         fmt(*port_rate, "%g") +
                         " Gb/s port rate, so the NIC cannot reach line rate";
        else if (path_bw && port_rate)
            f.summary += "; about " + fmt(*path_bw, "%.0f") +
                         " Gb/s before PCIe protocol overhead (~10-20%) for a " +
                         fmt(*port_rate, "%g") +
                         " Gb/s port, so line rate has little or no headroom (and none for a "
                         "second port on the same card)";
        else if (path_bw) {
            f.summary += "; about " + fmt(*path_bw, "%.0f") + " Gb/s";
            if (nic_bw)
                f.summary += " of the " + fmt(nic_bw.value_or(0), "%.0f") + " Gb/s the NIC can use";
        }
        if (!advice.empty())
            advice[0] = static_cast<char>(std::toupper(static_cast<unsigned char>(advice[0])));
        f.summary += ". " + advice + ".";
        for (const auto& l : d.pcie) {
            const std::string source = !l.source.empty() ? l.source
                                       : bundle          ? std::string{}
                                                : in.local.sysfs_root + "/" + l.sysfs_path +
                                                      "/{current,max}_link_{speed,width}";
            const std::string who =
                l.bdf + (l.is_function ? " (NIC function)" : " (" + role(l) + ")");
            f.evidence.push_back({who + " link", describe(l), "", source});
        }
        if (port_rate) {
            for (const auto& p : d.ports)
                if (parse_port_rate_gbps(p.rate) == port_rate) {
                    const auto src = p.sources.find("rate");
                    f.evidence.push_back({"port rate", fmt(*port_rate, "%g"), "Gb/s",
                                          src != p.sources.end() ? src->second
                                          : bundle               ? std::string{}
                                                   : in.local.sysfs_root + "/class/infiniband/" +
                                                         d.name + "/ports/" +
                                                         std::to_string(p.number) + "/rate"});
                    break;
                }
        }
        out.findings.push_back(std::move(f));
    }
}

}  // namespace rh
