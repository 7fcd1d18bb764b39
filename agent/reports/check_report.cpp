#include "agent/reports/check_report.h"

#include <algorithm>
#include <cstdio>

#include "agent/reports/note_text.h"
#include "rules/evidence_format.h"  // format_bytes

namespace rh {

namespace {

std::vector<Note> collect_notes(const Snapshot& snap, const RuleOutput& result) {
    std::vector<Note> notes = snap.notes;
    notes.insert(notes.end(), result.notes.begin(), result.notes.end());
    for (const auto& d : snap.devices) {
        for (const auto& n : d.problems) notes.push_back(n);
        for (const auto& p : d.ports)
            if (!p.verbs.active_mtu_bytes && !p.verbs.unavailable.empty())
                notes.push_back({d.name + " port " + std::to_string(p.number),
                                 "active_mtu unavailable: " + p.verbs.unavailable});
    }
    return notes;
}

std::string mtu_text(const std::optional<unsigned>& v) {
    return v ? std::to_string(*v) : std::string("?");
}

std::string bytes_text(const std::optional<unsigned>& v) {
    return v ? format_bytes(*v) : std::string("?");
}

/// CheckReport::checked.
std::vector<std::string> checked_ports(const Snapshot& snap) {
    std::vector<std::string> out;
    for (const auto& d : snap.devices) {
        std::string pcie = "no PCI function";
        if (!d.pcie.empty()) {
            const auto& f = d.pcie.front();
            char speed[32] = "?";
            if (f.current_speed_gts) std::snprintf(speed, sizeof speed, "%g", *f.current_speed_gts);
            pcie = f.bdf + " " + speed + " GT/s x" + mtu_text(f.current_width) + " + " +
                   std::to_string(d.pcie.size() - 1) + " upstream";
        }
        for (const auto& p : d.ports) {
            // The GID a RoCE v2 connection would use: routable (not fe80 link-local) first.
            std::string v2, v2_link_local;
            for (const auto& g : p.gids) {
                if (g.type != "RoCE v2") continue;
                auto& slot = g.gid.rfind("fe80", 0) == 0 ? v2_link_local : v2;
                if (slot.empty()) slot = std::to_string(g.index) + " " + g.gid;
            }
            if (v2.empty() && !v2_link_local.empty()) v2 = v2_link_local + " (link-local only)";
            std::string line = d.name + " port " + std::to_string(p.number) + ": " +
                               (p.state.empty() ? "?" : p.state) + "/" +
                               (p.phys_state.empty() ? "?" : p.phys_state) + ", " +
                               (p.link_layer.empty() ? "?" : p.link_layer);
            if (p.netdev) line += ", " + p.netdev->name + " MTU " + bytes_text(p.netdev->mtu_bytes);
            line += ", active_mtu " + bytes_text(p.verbs.active_mtu_bytes);
            line += ", RoCE v2 GID " + (v2.empty() ? std::string("none") : v2);
            line += "; PCIe " + pcie;
            out.push_back(line);
        }
    }
    return out;
}

}  // namespace

std::string CheckReport::verdict() const {
    return !findings.empty() ? "findings" : !unevaluated.empty() ? "incomplete" : "healthy";
}

CheckReport check_report(const Snapshot& snap, const std::optional<PeerView>& peer,
                         const RuleOutput& result) {
    CheckReport r;
    r.host = snap.host;
    r.sysfs_root = snap.sysfs_root;
    r.collected_at = snap.collected_at;
    for (const auto& d : snap.devices) r.devices.push_back(d.name);
    r.peer = peer;
    r.checked = checked_ports(snap);
    r.rules = result.rules;
    r.findings = result.findings;
    r.unevaluated = result.unevaluated;
    r.notes = collect_notes(snap, result);
    return r;
}

void to_json(nlohmann::json& j, const CheckReport& r) {
    j = nlohmann::json::object();
    j["host"] = r.host;
    j["sysfs_root"] = r.sysfs_root;
    j["collected_at"] = r.collected_at;
    j["verdict"] = r.verdict();
    j["healthy"] = r.healthy();
    j["devices"] = r.devices;
    if (r.peer)
        j["peer"] = {{"peer", r.peer->peer},
                     {"hostname", r.peer->hostname},
                     {"device", r.peer->device},
                     {"port", r.peer->port},
                     {"active_mtu_bytes", r.peer->active_mtu_bytes
                                              ? nlohmann::json(*r.peer->active_mtu_bytes)
                                              : nlohmann::json(nullptr)}};
    else
        j["peer"] = nullptr;
    j["checked"] = r.checked;
    j["rules"] = r.rules;
    j["findings"] = r.findings;
    j["unevaluated"] = r.unevaluated;
    j["notes"] = r.notes;
}

void render_check_text(std::ostream& out, const CheckReport& r) {
    std::string devices;
    for (const auto& d : r.devices) devices += (devices.empty() ? "" : ", ") + d;
    out << "rocehealth check on " << r.host << " (" << devices;
    if (r.peer) out << "; peer " << r.peer->hostname << " at " << r.peer->peer;
    out << "): ";
    const auto& findings = r.findings;
    const auto& unevaluated = r.unevaluated;
    if (!findings.empty())
        out << findings.size() << (findings.size() == 1 ? " finding" : " findings");
    else if (!unevaluated.empty())
        out << "INCOMPLETE, no findings but " << unevaluated.size()
            << (unevaluated.size() == 1 ? " item" : " items") << " could not be evaluated";
    else
        out << "healthy, no findings";
    if (!findings.empty() && !unevaluated.empty())
        out << ", " << unevaluated.size() << " not evaluated";
    out << "\n";
    out << "checked " << r.rules.size() << " rules on:\n";
    for (const auto& c : r.checked) out << "  " << c << "\n";
    for (const Finding& f : findings) {
        out << "\n[" << to_string(f.severity) << "] " << f.rule_id << "\n  " << f.summary
            << "\n  evidence:\n";
        print_evidence(out, f.evidence);
    }
    print_note_list(out, "could not evaluate", unevaluated);
    print_note_list(out, "notes (not findings)", r.notes);
}

void print_check_rules(std::ostream& out, const RuleSet& rules, bool json) {
    auto list = nlohmann::json::array();
    for (const RuleSpec& r : rules.rules) {
        const RuleDef* def = r.check.empty() ? nullptr : find_check(r.check);
        if (!def) continue;
        if (!json) {
            out << r.id << "\t" << def->description << "\n";
            continue;
        }
        auto severities = nlohmann::json::array({to_string(r.severity)});
        for (const Escalation& e : r.escalate)
            if (std::find(severities.begin(), severities.end(), to_string(e.severity)) ==
                severities.end())
                severities.push_back(to_string(e.severity));
        list.push_back({{"id", r.id},
                        {"description", def->description},
                        {"severity", to_string(r.severity)},
                        {"severities", std::move(severities)}});
    }
    if (json) out << list.dump(2) << "\n";
}

}  // namespace rh
