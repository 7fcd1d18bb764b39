// pcie_downtrained: the PCIe path of a NIC (its function, then each bridge up to the root port:
// switch downstream/upstream ports, root port) is short of what the card needs, or a link on it
// trained below what both of its ends can do. Names the link that limits (lowest trained
// bandwidth) and why, from what the two ends of that link can do (LnkCap, capped by a lower
// Target Link Speed in LnkCtl2) and did train (LnkSta):
// - trained below the LOWER of the two ends' capabilities (speed or width): a training fault
//   (seating, riser, lane bifurcation, signal integrity): reseat / check BIOS and AER. Only
//   where both ends' capability is known: an x8 card in an x16 slot trains at x8, healthy;
// - trained at what the downstream end (root port or switch downstream port: the slot) is
//   capable of, but below the card's (or switch's) capability: the slot limits: move the card;
// - a switch whose upstream port is itself capable of less: the switch limits.
// The bandwidth must cover what the card's ports need: the sum of the port rates of every
// function of the card (devices whose PCI function shares its bus:device), since they share
// the link: error below it, warning when it leaves less than PCIe protocol overhead
// (kUsableShare). Without any port rate, the NIC's own capability stands in for the need.
// Source: `devices/.../<bdf>/{current,max}_link_{speed,width}`, `ports/<p>/rate`; for bundles
// the `lspci -vv` / dmesg line (PcieLink::source, Port::sources).
#include <algorithm>
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

/// What an end can train at: LnkCap's speed, capped by a lower LnkCtl2 Target Link Speed.
std::optional<double> cap_speed(const PcieLink& l) {
    if (l.max_speed_gts && l.target_speed_gts)
        return std::min(*l.max_speed_gts, *l.target_speed_gts);
    return l.max_speed_gts ? l.max_speed_gts : l.target_speed_gts;
}

std::optional<double> capable_gbps(const PcieLink& l) {
    const auto s = cap_speed(l);
    if (!s || !l.max_width) return std::nullopt;
    return pcie_link_gbps(*s, *l.max_width);
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
    std::string out = speed_width(l.current_speed_gts, l.current_width) + " of " +
                      speed_width(l.max_speed_gts, l.max_width);
    if (l.target_speed_gts && (!l.max_speed_gts || *l.target_speed_gts < *l.max_speed_gts))
        out += " (Target Link Speed " + fmt(*l.target_speed_gts, "%g GT/s") + ")";
    return out;
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

/// "0000:b3:00" of "0000:b3:00.1": the card (its functions share one link).
std::string card_of(const std::string& bdf) {
    const auto dot = bdf.rfind('.');
    return dot == std::string::npos ? bdf : bdf.substr(0, dot);
}

/// What the card's ports need, Gb/s: the rates of every port of every device whose PCI function
/// is on the same card as `d`'s (they share its link), and the list ("mlx5_0 port 1 25 Gb/s,
/// mlx5_1 port 1 25 Gb/s"); nullopt when no port rate is known.
struct Need {
    std::optional<double> gbps;
    std::string ports;
    const Port* port = nullptr;  ///< one of `d`'s ports with a rate (its source is evidence)
};

Need card_need(const Snapshot& s, const Device& d) {
    Need n;
    const std::string card = card_of(d.pcie.front().bdf);
    for (const auto& e : s.devices) {
        const bool same =
            &e == &d || (!e.pcie.empty() && e.pcie.front().is_function &&
                         d.pcie.front().is_function && card_of(e.pcie.front().bdf) == card);
        if (!same) continue;
        for (const auto& p : e.ports)
            if (auto r = parse_port_rate_gbps(p.rate)) {
                n.gbps = n.gbps.value_or(0) + *r;
                n.ports += (n.ports.empty() ? "" : ", ") + e.name + " port " +
                           std::to_string(p.number) + " " + fmt(*r, "%g") + " Gb/s";
                if (&e == &d && !n.port) n.port = &p;
            }
    }
    return n;
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

/// Share of a link's encoded bandwidth left after PCIe protocol overhead (TLP/DLLP headers,
/// flow control: ~10-20 % at the payload sizes NICs use): a card needing more has no headroom.
constexpr double kUsableShare = 0.85;

template <typename T>
std::optional<T> min_opt(const std::optional<T>& a, const std::optional<T>& b) {
    if (a && b) return std::min(*a, *b);
    return std::nullopt;
}

bool below(const std::optional<double>& s, const std::optional<unsigned>& w,
           const std::optional<double>& cs, const std::optional<unsigned>& cw) {
    return (s && cs && *s < *cs) || (w && cw && *w < *cw);
}

/// The link of the lowest trained bandwidth on `d`'s path (its index in `at`); on a tie the
/// end further upstream (the same link seen from its other end, or a link above it that limits
/// as much). Links of unknown speed/width are listed as unevaluated.
const PcieLink* lowest_link(const Device& d, std::size_t& at, RuleOutput& out) {
    const PcieLink* limiting = nullptr;
    for (std::size_t i = 0; i < d.pcie.size(); ++i) {
        const auto& l = d.pcie[i];
        if (!l.current_speed_gts || !l.current_width) {
            out.unevaluated.push_back(
                {d.name + " PCIe " + l.bdf, "link speed/width unknown (" + describe(l) +
                                                "): cannot tell whether it limits the NIC"});
            continue;
        }
        const auto bw = trained_gbps(l);
        if (!limiting || *bw <= *trained_gbps(*limiting)) limiting = &l, at = i;
    }
    return limiting;
}

/// Downtrained: a link below the lower of its two ends' capabilities, both known; the one at
/// `at` (the lowest) when it is, else the last one.
std::optional<std::size_t> downtrained_link(const Device& d, std::size_t at) {
    std::optional<std::size_t> low;
    for (std::size_t i = 0; i < d.pcie.size(); ++i) {
        auto [up, down] = ends(d.pcie, i);
        if (!up || !down) continue;
        const auto& l = d.pcie[i];
        if (below(l.current_speed_gts, l.current_width, min_opt(cap_speed(*up), cap_speed(*down)),
                  min_opt(up->max_width, down->max_width)) &&
            (!low || i == at))
            low = i;
    }
    return low;
}

/// The path's bandwidth against what the card needs, Gb/s.
struct Bandwidth {
    std::optional<double> path, nic;  ///< trained on the limiting link; the NIC's capability
    Need need;
    bool short_of_need = false;  ///< below the ports' need
    bool no_headroom = false;    ///< above it, but not after protocol overhead
    bool below_nic = false;      ///< no need known, and below the NIC's own capability
};

Bandwidth bandwidth(const Snapshot& s, const Device& d, const PcieLink& limiting) {
    Bandwidth b;
    const PcieLink& fn = d.pcie.front();
    b.path = trained_gbps(limiting);
    if (fn.is_function) b.nic = capable_gbps(fn);
    b.need = card_need(s, d);
    const auto& need = b.need.gbps;
    b.short_of_need = b.path && need && *b.path < *need;
    b.no_headroom = b.path && need && !b.short_of_need && *need > *b.path * kUsableShare;
    b.below_nic = !need && b.path && b.nic && *b.path + 0.5 < *b.nic;
    return b;
}

/// Which link limits, why, and what to do about it.
struct LimitCause {
    std::string link_name, why, advice;
};

/// The cause at chain index `at` (`limiting`): a downtrained link (`downtrained`), a slot
/// capable of less than the card, a switch capable of less, a link at the most both ends can
/// do, or (ends' capabilities unknown) a link that cannot be told apart.
LimitCause limit_cause(const Device& d, std::size_t at, const PcieLink& limiting,
                       bool downtrained) {
    const PcieLink& fn = d.pcie.front();
    auto [up, down] = ends(d.pcie, at);
    LimitCause c;
    const auto both_s = up && down ? min_opt(cap_speed(*up), cap_speed(*down)) : std::nullopt;
    const auto both_w = up && down ? min_opt(up->max_width, down->max_width) : std::nullopt;
    c.link_name = up && down ? "the link between " + role(*down) + " " + down->bdf + " and " +
                                   role(*up) + " " + up->bdf
                             : role(limiting) + " " + limiting.bdf;
    if (downtrained) {
        c.why = "it trained at " + describe(limiting) + ", below the " +
                speed_width(both_s, both_w) + " both ends support";
        c.advice = up->is_function
                       ? "reseat the card (or its riser), check BIOS lane bifurcation for the "
                         "slot and AER errors on that link"
                       : "check the PCIe switch's uplink (its seating/cabling, BIOS "
                         "bifurcation of the root port) and AER errors on that link";
    } else if (up && down &&
               below(cap_speed(*down), down->max_width, cap_speed(*up), up->max_width)) {
        c.why = role(*down) + " " + down->bdf + " (the slot) is itself capable of only " +
                speed_width(cap_speed(*down), down->max_width) + ", while " + role(*up) + " " +
                up->bdf + " can do " + speed_width(cap_speed(*up), up->max_width);
        c.advice = up->is_function
                       ? "the slot limits, not the card: move the card to a slot wired for " +
                             speed_width(cap_speed(*up), up->max_width) +
                             " (or enable it in BIOS); reseating will not help"
                       : "the slot the PCIe switch sits in limits: move the switch/riser to a "
                         "slot of its width and speed";
    } else if (up && !up->is_function &&
               !below(limiting.current_speed_gts, limiting.current_width, cap_speed(limiting),
                      limiting.max_width) &&
               below(cap_speed(*up), up->max_width, cap_speed(fn), fn.max_width)) {
        c.why = role(*up) + " " + up->bdf + " is itself capable of only " +
                speed_width(cap_speed(*up), up->max_width);
        c.advice =
            "the PCIe switch (or retimer) above the NIC limits: use a switch or slot "
            "that carries the NIC's " +
            speed_width(cap_speed(fn), fn.max_width);
    } else if (up && down && both_s && both_w) {
        c.why = "it runs at " + describe(limiting) + ", the most both ends can do";
        c.advice =
            "the card's own PCIe interface cannot carry its ports at line rate: use "
            "a card (or slot generation) with more PCIe bandwidth, or fewer ports in use";
    } else {
        c.why = role(limiting) + " " + limiting.bdf + " trained at " + describe(limiting);
        c.advice =
            "the capture does not show the capability (LnkCap) of both ends of that link, "
            "so a slot wired for fewer lanes or a lower speed (move the card) and a link "
            "that trained low (reseat, check BIOS lane bifurcation and AER errors) cannot "
            "be told apart: compare the LnkCap lines of both ends (lspci -vv)";
    }
    return c;
}

/// "; about 50 Gb/s, below the 100 Gb/s the card's ports need (...)...": the bandwidth part
/// of the summary.
std::string bandwidth_text(const Bandwidth& b) {
    const auto& need = b.need;
    if (b.short_of_need)
        return "; about " + fmt(*b.path, "%.0f") + " Gb/s, below the " + fmt(*need.gbps, "%g") +
               " Gb/s the card's ports need (" + need.ports +
               "), so the NIC cannot reach line rate";
    if (b.no_headroom)
        return "; about " + fmt(*b.path, "%.0f") +
               " Gb/s before PCIe protocol overhead (~10-20%) for the " + fmt(*need.gbps, "%g") +
               " Gb/s the card's ports need (" + need.ports +
               "), so line rate has little or no headroom";
    if (b.path && need.gbps)
        return "; about " + fmt(*b.path, "%.0f") + " Gb/s, still above the " +
               fmt(*need.gbps, "%g") + " Gb/s the card's ports need (" + need.ports + ")";
    if (!b.path) return {};
    std::string text = "; about " + fmt(*b.path, "%.0f") + " Gb/s";
    if (b.nic)
        text += " of the " + fmt(b.nic.value_or(0), "%.0f") +
                " Gb/s the NIC can use (no port rate captured, so what its ports "
                "need is not known)";
    return text;
}

/// Every link of the path, and the ports' need, as evidence; sources from the capture, else
/// the sysfs files (none for a bundle without one).
void add_evidence(Finding& f, const RuleInput& in, const Device& d, const Need& need, bool bundle) {
    for (const auto& l : d.pcie) {
        const std::string source = !l.source.empty() ? l.source
                                   : bundle          ? std::string{}
                                                     : in.local.sysfs_root + "/" + l.sysfs_path +
                                                  "/{current,max}_link_{speed,width}";
        const std::string who = l.bdf + (l.is_function ? " (NIC function)" : " (" + role(l) + ")");
        f.evidence.push_back({who + " link", describe(l), "", source});
    }
    if (!need.gbps) return;
    std::string src;
    if (need.port) {
        const auto it = need.port->sources.find("rate");
        src = it != need.port->sources.end() ? it->second
              : bundle                       ? std::string{}
                       : in.local.sysfs_root + "/class/infiniband/" + d.name + "/ports/" +
                             std::to_string(need.port->number) + "/rate";
    }
    f.evidence.push_back({"ports' need (" + need.ports + ")", fmt(*need.gbps, "%g"), "Gb/s", src});
}

}  // namespace

void rule_pcie_downtrained(const RuleInput& in, RuleOutput& out) {
    const bool bundle = in.local.sysfs_root.rfind("bundle:", 0) == 0;
    for (const auto& d : in.local.devices) {
        if (d.pcie.empty()) continue;
        std::size_t at = 0;
        const PcieLink* limiting = lowest_link(d, at, out);
        if (!limiting) continue;
        const std::optional<std::size_t> low = downtrained_link(d, at);
        const PcieLink& fn = d.pcie.front();
        const Bandwidth b = bandwidth(in.local, d, *limiting);
        if (!low && !b.short_of_need && !b.no_headroom && !b.below_nic) {
            // Only the function was read: a narrow slot, or a downtrained link above the NIC, or
            // none, cannot be told apart.
            if (!fn.upstream_unread.empty())
                out.unevaluated.push_back(
                    {d.name + " PCIe " + fn.bdf,
                     fn.upstream_unread + ": whether a link above the NIC limits it is unknown"});
            continue;
        }
        if (low) at = *low, limiting = &d.pcie[*low];
        LimitCause c = limit_cause(d, at, *limiting, low.has_value());
        Finding f = check_finding("pcie_downtrained", in.local.host, d.name, 0,
                                  b.short_of_need ? "below_port_rate" : "");
        f.summary =
            d.name + " PCIe is limited by " + c.link_name + ": " + c.why + bandwidth_text(b);
        if (!c.advice.empty())
            c.advice[0] = static_cast<char>(std::toupper(static_cast<unsigned char>(c.advice[0])));
        f.summary += ". " + c.advice + ".";
        add_evidence(f, in, d, b.need, bundle);
        out.findings.push_back(std::move(f));
    }
}

}  // namespace rh
