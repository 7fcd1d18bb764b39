#include "agent/replay/host_groups.h"

#include <filesystem>
#include <set>

#include "collectors/bundle/restart_evidence.h"

namespace rh {

std::string dir_basename(const std::string& dir) {
    std::filesystem::path p(dir);
    while (!p.empty() && p.filename().empty()) p = p.parent_path();
    const std::string base = p.filename().string();
    return base.empty() || base == "." ? std::filesystem::absolute(p).filename().string() : base;
}

namespace {

/// "caseA/t0" for a basename another host already uses.
std::string parent_and_base(const std::string& dir) {
    std::filesystem::path p(dir);
    while (!p.empty() && p.filename().empty()) p = p.parent_path();
    const std::string parent = std::filesystem::absolute(p).parent_path().filename().string();
    return parent.empty() ? dir_basename(dir) : parent + "/" + dir_basename(dir);
}

/// Where capture `c` belongs among `groups` (the hosts so far): the host it is, why, and else
/// the hosts it cannot be told from and those it contradicts.
struct Placement {
    std::optional<std::size_t> same;
    std::string same_why;
    std::vector<std::size_t> unknown;
    std::string conflicts;
};

Placement place_capture(const std::vector<HostGroup>& groups,
                        const std::vector<BundleCapture>& caps, const BundleCapture& c) {
    Placement p;
    auto& [same, same_why, unknown, conflicts] = p;
    for (std::size_t g = 0; g < groups.size() && !same; ++g) {
        const BundleCapture& last = caps[groups[g].captures.back()];
        std::optional<double> dt;
        if (c.timestamp_s && last.timestamp_s) dt = *c.timestamp_s - *last.timestamp_s;
        // After a reboot or a reset (restart_evidence.h) counters neither tie the capture
        // to the host nor contradict it.
        const Restart restart = restart_between(last, c, dt);
        IdentityMatch m = compare_identity(groups[g].identity, c.identity);
        if (restart.kind == Restart::Kind::reboot ||
            (restart.kind == Restart::Kind::reset && !m.weak))
            m = compare_identity(without_counter_values(groups[g].identity),
                                 without_counter_values(c.identity));
        const std::string first = caps[groups[g].captures.front()].dir;
        // Weak or no evidence, and the capture is not later than the host's last one:
        // identical servers captured at the same times, not one host's timeline.
        if (m.weak && m.verdict != IdentityMatch::Verdict::different && c.timestamp_s &&
            last.timestamp_s && *c.timestamp_s <= *last.timestamp_s) {
            m.verdict = IdentityMatch::Verdict::different;
            m.evidence = "its timestamp is not later than " + last.dir +
                         "'s and no hardware identity (node_guid, MAC, GID) ties them" +
                         (m.evidence.empty() ? "" : "; " + m.evidence);
        }
        // Weak evidence (names only): the capture must also be able to follow the host's
        // last one: no counter going down, no byte counter faster than any port.
        if (m.weak && m.verdict == IdentityMatch::Verdict::same) {
            const CaptureIdentity next = restart.kind == Restart::Kind::reboot
                                             ? without_counter_values(c.identity)
                                             : c.identity;
            if (auto why = implausible_successor(last.identity, next, dt)) {
                m.verdict = IdentityMatch::Verdict::different;
                m.evidence = "only weak evidence ties it to " + last.dir + ", and " + *why;
            }
        }
        if (m.verdict == IdentityMatch::Verdict::same) {
            same = g;
            same_why = "same host as " + first + " (" + m.evidence + ")";
            if (restart.kind == Restart::Kind::reboot)
                same_why += ", rebooted since " + last.dir + " (" + restart.evidence + ")";
            if (!m.disagreeing.empty())
                same_why += "; disagreeing weaker evidence: " + m.disagreeing +
                            " (hardware identity outranks a hostname file)";
        } else if (m.verdict == IdentityMatch::Verdict::unknown) {
            unknown.push_back(g);
        } else {
            conflicts += (conflicts.empty() ? "" : "; ") + std::string("not ") + first +
                         "'s host (" + m.evidence + ")";
            if (!m.disagreeing.empty()) conflicts += ", although " + m.disagreeing;
        }
    }
    if (!same && unknown.size() == 1 && groups.size() == 1) {
        same = unknown.front();
        same_why = "treated as the same host as " + caps[groups[*same].captures.front()].dir +
                   ": the two captures hold no identity evidence in common (node_guid, MAC, "
                   "GID, hostname file, PCI slot, device names) and nothing contradicts it; "
                   "add a `hostname` file to each capture to say otherwise";
    }
    return p;
}

/// Names every host: its `hostname` file, else its first capture's folder name, made unique.
void name_groups(std::vector<HostGroup>& groups, const std::vector<BundleCapture>& caps) {
    std::set<std::string> used;
    for (HostGroup& g : groups) {
        const std::string& dir = caps[g.captures.front()].dir;
        std::string name = g.identity.hostname.empty() ? dir_basename(dir) : g.identity.hostname;
        if (used.count(name)) {
            const std::string alt = g.identity.hostname.empty()
                                        ? parent_and_base(dir)
                                        : g.identity.hostname + "/" + dir_basename(dir);
            name = alt;
            for (unsigned n = 2; used.count(name); ++n) name = alt + "#" + std::to_string(n);
            g.decisions.front() +=
                "; named " + name + " (another host is named " +
                (g.identity.hostname.empty() ? dir_basename(dir) : g.identity.hostname) + ")";
        }
        used.insert(name);
        g.name = std::move(name);
    }
}

}  // namespace

std::vector<HostGroup> group_captures(const std::vector<BundleCapture>& caps) {
    std::vector<HostGroup> groups;
    for (std::size_t i = 0; i < caps.size(); ++i) {
        const BundleCapture& c = caps[i];
        const Placement p = place_capture(groups, caps, c);
        if (p.same) {
            HostGroup& g = groups[*p.same];
            g.identity.merge(c.identity);
            g.captures.push_back(i);
            g.decisions.push_back(c.dir + ": " + p.same_why);
            continue;
        }
        HostGroup g;
        g.identity = c.identity;
        g.captures.push_back(i);
        std::string why = c.dir + ": first capture of its host";
        if (!p.conflicts.empty()) why += "; " + p.conflicts;
        if (!p.unknown.empty() && groups.size() > 1)
            why += "; no identity evidence in common with " + std::to_string(p.unknown.size()) +
                   " of the other hosts, so it cannot be placed with one of them";
        g.decisions.push_back(std::move(why));
        groups.push_back(std::move(g));
    }
    name_groups(groups, caps);
    return groups;
}

}  // namespace rh
