#include "probes/mesh/mesh_plan.h"

#include <algorithm>
#include <map>
#include <set>
#include <utility>

namespace rh {

namespace {

Error plan_error(const std::string& subject, std::string detail) {
    return Error{"mesh plan", subject, 0, std::move(detail)};
}

/// FNV-1a 64 over the round and the ToR name: a fixed function (not std::hash, whose values
/// may differ between builds) so every host of a fleet computes the same targets.
std::uint64_t mix(std::uint64_t round, const std::string& tor) {
    std::uint64_t h = 1469598103934665603ull;
    auto step = [&h](unsigned char c) {
        h ^= c;
        h *= 1099511628211ull;
    };
    for (int i = 0; i < 8; ++i) step(static_cast<unsigned char>(round >> (8 * i)));
    for (char c : tor) step(static_cast<unsigned char>(c));
    return h;
}

}  // namespace

Result<MeshPlan> MeshPlan::make(std::vector<FleetHost> fleet, const std::string& self,
                                MeshPlanParams params) {
    if (params.inter_tor_peers == 0) return plan_error("inter_tor_peers", "must be >= 1");
    if (params.intra_tor_cap == 0) return plan_error("intra_tor_cap", "must be >= 1");
    std::set<std::string> seen;
    for (std::size_t i = 0; i < fleet.size(); ++i) {
        const auto& h = fleet[i];
        const std::string who =
            h.host.empty() ? "fleet entry " + std::to_string(i) : "host " + h.host;
        if (h.host.empty()) return plan_error(who, "empty host name");
        if (h.address.empty()) return plan_error(who, "empty address");
        if (h.tor.empty()) return plan_error(who, "empty tor");
        if (!seen.insert(h.host).second) return plan_error(who, "listed twice");
    }
    // Sorted by host name: a host's rank in its ToR does not depend on the list's order.
    std::sort(fleet.begin(), fleet.end(),
              [](const FleetHost& a, const FleetHost& b) { return a.host < b.host; });
    auto f = std::make_shared<Fleet>();
    std::map<std::string, std::vector<std::size_t>> by_tor;
    for (std::size_t i = 0; i < fleet.size(); ++i) by_tor[fleet[i].tor].push_back(i);
    f->tor_of.resize(fleet.size());
    f->rank.resize(fleet.size());
    for (auto& [name, hosts] : by_tor) {
        for (std::size_t j = 0; j < hosts.size(); ++j) {
            f->tor_of[hosts[j]] = f->tors.size();
            f->rank[hosts[j]] = j;
        }
        f->tor_names.push_back(name);
        f->tors.push_back(std::move(hosts));
    }
    f->hosts = std::move(fleet);
    MeshPlan p;
    p.params_ = params;
    p.f_ = std::move(f);
    return p.for_host(self);
}

Result<MeshPlan> MeshPlan::for_host(const std::string& self) const {
    const auto& hosts = f_->hosts;
    const auto me =
        std::lower_bound(hosts.begin(), hosts.end(), self,
                         [](const FleetHost& h, const std::string& name) { return h.host < name; });
    if (me == hosts.end() || me->host != self)
        return plan_error("host " + self,
                          "not in the fleet list (" + std::to_string(hosts.size()) + " hosts)");
    MeshPlan p = *this;
    p.self_ = static_cast<std::size_t>(me - hosts.begin());
    p.own_ = f_->tor_of[p.self_];
    p.own_rank_ = f_->rank[p.self_];
    return p;
}

std::vector<std::size_t> MeshPlan::peers(std::uint64_t round) const {
    std::vector<std::size_t> out;
    // Own ToR: the others in ring order after self, a window of at most the cap that moves
    // by the cap each round (all of them when they fit).
    const auto& own = f_->tors[own_];
    const std::size_t n_others = own.size() - 1;
    const std::size_t cap = params_.intra_tor_cap;
    const std::size_t take = std::min(n_others, cap);
    const std::size_t start = n_others <= cap ? 0 : (round * cap) % n_others;
    for (std::size_t j = 0; j < take; ++j)
        out.push_back(own[(own_rank_ + 1 + (start + j) % n_others) % own.size()]);
    // Other ToRs: K ring offsets a round, continuing where the last round stopped.
    const std::size_t t_others = f_->tors.size() - 1;
    const std::size_t k = std::min<std::size_t>(params_.inter_tor_peers, t_others);
    for (std::size_t j = 0; j < k; ++j) {
        const std::size_t offset = 1 + (round * params_.inter_tor_peers + j) % t_others;
        const std::size_t t = (own_ + offset) % f_->tors.size();
        const auto& target = f_->tors[t];
        out.push_back(target[(own_rank_ + mix(round, f_->tor_names[t])) % target.size()]);
    }
    return out;
}

std::uint64_t MeshPlan::cover_rounds() const {
    const std::uint64_t t_others = f_->tors.size() - 1;
    return (t_others + params_.inter_tor_peers - 1) / params_.inter_tor_peers;
}

std::vector<std::size_t> MeshPlan::cycle_union() const {
    const std::size_t n_others = f_->tors[own_].size() - 1;
    const std::uint64_t own_rounds = (n_others + params_.intra_tor_cap - 1) / params_.intra_tor_cap;
    const std::uint64_t rounds = std::max<std::uint64_t>({cover_rounds(), own_rounds, 1});
    std::set<std::size_t> all;
    for (std::uint64_t r = 0; r < rounds; ++r)
        for (std::size_t i : peers(r)) all.insert(i);
    return {all.begin(), all.end()};
}

}  // namespace rh
