#include "agent/reports/check_report.h"

#include <algorithm>
#include <cstdio>

#include "agent/reports/note_text.h"
#include "rules/evidence_format.h"

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

/// One line per port with the facts the rules looked at, so "healthy" shows what was checked.
nlohmann::json checked_ports(const Snapshot& snap) {
    auto out = nlohmann::json::array();
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

nlohmann::json check_report(const Snapshot& snap, const std::optional<PeerView>& peer,
                            const RuleOutput& result) {
    const auto& findings = result.findings;
    nlohmann::json j;
    j["host"] = snap.host;
    j["sysfs_root"] = snap.sysfs_root;
    j["collected_at"] = snap.collected_at;
    j["verdict"] = !findings.empty()             ? "findings"
                   : !result.unevaluated.empty() ? "incomplete"
                                                 : "healthy";
    j["healthy"] = findings.empty() && result.unevaluated.empty();
    j["devices"] = nlohmann::json::array();
    for (const auto& d : snap.devices) j["devices"].push_back(d.name);
    if (peer)
        j["peer"] = {
            {"peer", peer->peer},
            {"hostname", peer->hostname},
            {"device", peer->device},
            {"port", peer->port},
            {"active_mtu_bytes", peer->active_mtu_bytes ? nlohmann::json(*peer->active_mtu_bytes)
                                                        : nlohmann::json(nullptr)}};
    else
        j["peer"] = nullptr;
    j["checked"] = checked_ports(snap);
    j["rules"] = nlohmann::json::array();
    for (const auto& r : result.rules) j["rules"].push_back(r);
    j["findings"] = findings;
    j["unevaluated"] = result.unevaluated;
    j["notes"] = collect_notes(snap, result);
    return j;
}

void render_check_text(std::ostream& out, const nlohmann::json& r) {
    const auto& findings = r["findings"];
    std::string devices;
    for (const auto& d : r["devices"])
        devices += (devices.empty() ? "" : ", ") + d.get<std::string>();
    out << "rocehealth check on " << r["host"].get<std::string>() << " (" << devices;
    if (!r["peer"].is_null())
        out << "; peer " << r["peer"]["hostname"].get<std::string>() << " at "
            << r["peer"]["peer"].get<std::string>();
    out << "): ";
    const auto& unevaluated = r["unevaluated"];
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
    out << "checked " << r["rules"].size() << " rules on:\n";
    for (const auto& c : r["checked"]) out << "  " << c.get<std::string>() << "\n";
    for (const auto& f : findings) {
        out << "\n[" << f["severity"].get<std::string>() << "] " << f["rule"].get<std::string>()
            << "\n  " << f["summary"].get<std::string>() << "\n  evidence:\n";
        for (const auto& e : f["evidence"]) {
            out << "    " << e["name"].get<std::string>() << " = "
                << evidence_text(e["value"].get<std::string>(), e["unit"].get<std::string>());
            if (!e["source"].get<std::string>().empty())
                out << "  (" << e["source"].get<std::string>() << ")";
            out << "\n";
        }
    }
    print_note_list(out, "could not evaluate", unevaluated);
    print_note_list(out, "notes (not findings)", r["notes"]);
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
