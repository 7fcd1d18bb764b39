// pcie_downtrained: a PCIe link that trained below its maximum speed or width caps the NIC,
// whether it is the NIC's own function or any bridge/root port above it. Names the link that
// limits (lowest trained bandwidth among the degraded ones) and compares what the path carries
// with the RDMA port rate: below the port rate is an error, otherwise a warning (the headroom
// for bursts, PCIe protocol overhead and reads is gone).
// Source: `devices/.../<bdf>/{current,max}_link_{speed,width}`, `ports/<p>/rate`.
#include <cstdio>

#include "rules/pcie_math.h"
#include "rules/rule.h"

namespace rh {

namespace {

bool degraded(const PcieLink& l) {
    const bool speed =
        l.current_speed_gts && l.max_speed_gts && *l.current_speed_gts < *l.max_speed_gts;
    const bool width = l.current_width && l.max_width && *l.current_width < *l.max_width;
    return speed || width;
}

std::optional<double> trained_gbps(const PcieLink& l) {
    if (!l.current_speed_gts || !l.current_width) return std::nullopt;
    return pcie_link_gbps(*l.current_speed_gts, *l.current_width);
}

std::string fmt(double v, const char* format) {
    char buf[48];
    std::snprintf(buf, sizeof buf, format, v);
    return buf;
}

std::string describe(const PcieLink& l) {
    auto speed = [](const std::optional<double>& s) {
        return s ? fmt(*s, "%g GT/s") : std::string("?");
    };
    auto width = [](const std::optional<unsigned>& w) {
        // Appended, not "x" + to_string(): GCC 12 -O3 warns (-Wrestrict) on the latter.
        std::string s = "x";
        s += w ? std::to_string(*w) : std::string("?");
        return s;
    };
    return speed(l.current_speed_gts) + " " + width(l.current_width) + " of " +
           speed(l.max_speed_gts) + " " + width(l.max_width);
}

std::optional<double> fastest_port_rate(const Device& d) {
    std::optional<double> best;
    for (const auto& p : d.ports)
        if (auto r = parse_port_rate_gbps(p.rate); r && (!best || *r > *best)) best = r;
    return best;
}

}  // namespace

void rule_pcie_downtrained(const RuleInput& in, RuleOutput& out) {
    for (const auto& d : in.local.devices) {
        const PcieLink* limiting = nullptr;
        for (const auto& l : d.pcie) {
            if (!l.current_speed_gts || !l.max_speed_gts || !l.current_width || !l.max_width)
                out.unevaluated.push_back(
                    {d.name + " PCIe " + l.bdf, "link speed/width unknown (" + describe(l) +
                                                    "): cannot tell whether it "
                                                    "trained below its maximum"});
            if (!degraded(l)) continue;
            auto bw = trained_gbps(l);
            if (!limiting || (bw && (!trained_gbps(*limiting) || *bw < *trained_gbps(*limiting))))
                limiting = &l;
        }
        if (!limiting) continue;

        const std::string role =
            limiting->is_function ? "the NIC's own PCIe function" : "upstream port";
        const auto link_bw = trained_gbps(*limiting);
        const auto port_rate = fastest_port_rate(d);
        const bool below_rate = link_bw && port_rate && *link_bw < *port_rate;

        Finding f = make_finding("pcie_downtrained",
                                 below_rate ? Severity::error : Severity::warning, in.local.host,
                                 d.name, 0);
        f.summary = d.name + " PCIe is limited by " + role + " " + limiting->bdf + ", trained at " +
                    describe(*limiting);
        if (link_bw && port_rate && below_rate)
            f.summary += ": about " + fmt(*link_bw, "%.0f") + " Gb/s, below the " +
                         fmt(*port_rate, "%g") +
                         " Gb/s port rate, so the NIC cannot reach line rate";
        else if (link_bw && port_rate)
            f.summary += ": about " + fmt(*link_bw, "%.0f") +
                         " Gb/s before PCIe protocol overhead "
                         "(~10-20%) for a " +
                         fmt(*port_rate, "%g") +
                         " Gb/s port, so line rate has "
                         "little or no headroom (and none for a second port on the same card)";
        else if (link_bw)
            f.summary += ": about " + fmt(*link_bw, "%.0f") + " Gb/s";
        f.summary +=
            "; reseat the card or move it to a full-width slot, and check BIOS lane "
            "bifurcation and AER errors on that link.";
        for (const auto& l : d.pcie) {
            const std::string base = in.local.sysfs_root + "/" + l.sysfs_path + "/";
            const std::string who = l.bdf + (l.is_function ? " (NIC function)" : " (upstream)");
            f.evidence.push_back(
                {who + " link", describe(l), "", base + "{current,max}_link_{speed,width}"});
        }
        if (port_rate) {
            for (const auto& p : d.ports)
                if (parse_port_rate_gbps(p.rate) == port_rate) {
                    f.evidence.push_back({"port rate", fmt(*port_rate, "%g"), "Gb/s",
                                          in.local.sysfs_root + "/class/infiniband/" + d.name +
                                              "/ports/" + std::to_string(p.number) + "/rate"});
                    break;
                }
        }
        out.findings.push_back(std::move(f));
    }
}

}  // namespace rh
