// The scalable mesh's peer planner (issue 15 §2): which peers this host probes in a given round,
// from the fleet list alone (no sockets, no clock), so every host computes its own share with no
// coordinator and the same inputs always give the same plan. Each round a host probes
//  - the hosts of its own ToR (all of them, or a window of at most intra_tor_cap that rotates by
//    intra_tor_cap hosts a round when the ToR is bigger), and
//  - inter_tor_peers (K) hosts of other ToRs: the ToRs, sorted by name, form a ring; round r
//    covers the ToRs at ring offsets 1 + (r*K + j) mod (T-1), j = 0..K-1, from its own.
// So any ceil((T-1)/K) consecutive rounds cover every (own ToR, other ToR) pair, and a host sends
// at most intra_tor_cap + K probes a round whatever the fleet's size. Within a target ToR, the
// i-th host of a ToR (by name) picks host (i + h) mod |target ToR| with h a hash of the round
// and the target ToR: hosts of one ToR hit different targets (no incast onto one host) and the
// pairs change from round to round.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "core/result.h"

namespace rh {

/// One host of the fleet: its name (as its agent's `host`), how its responder is reached
/// (HOST[:PORT], probes/mesh/mesh.h) and its ToR (the `tor` topology label).
struct FleetHost {
    std::string host;
    std::string address;
    std::string tor;
    bool operator==(const FleetHost&) const = default;
};

/// The ToR of a fleet host whose source gives none (a DNS fleet, a Prometheus target without a
/// `tor` label): such hosts form one group under this name, so intra_tor_cap and its rotation
/// still bound the probes a round.
inline constexpr const char* kUnknownTor = "unknown";

struct MeshPlanParams {
    unsigned inter_tor_peers = 4;  ///< K: hosts of other ToRs probed per round, >= 1
    unsigned intra_tor_cap = 64;   ///< own-ToR peers probed per round at most, >= 1
};

class MeshPlan {
  public:
    /// Plans for `self` in `fleet`. Errors (op "mesh plan"): K or the cap 0, an empty host
    /// name, address or tor (naming the host, or its position when the name is empty), a host
    /// listed twice, `self` not in the fleet list.
    static Result<MeshPlan> make(std::vector<FleetHost> fleet, const std::string& self,
                                 MeshPlanParams params);

    /// The plan of another host of the same fleet, sharing its sorted lists (planning every host
    /// of a simulated fleet costs no copy of it). Error as make: `self` not in the fleet list.
    Result<MeshPlan> for_host(const std::string& self) const;

    /// Indices into fleet() of the peers to probe in round `round` (0, 1, ...): own-ToR peers
    /// first (ring order from the rotation's start), then the K inter-ToR ones. Never `self`,
    /// never a host twice; at most intra_tor_cap + K entries.
    std::vector<std::size_t> peers(std::uint64_t round) const;

    /// Rounds after which every (own ToR, other ToR) pair has been probed from this host's ToR:
    /// ceil((T-1)/K), 0 with one ToR. Any that many consecutive rounds do it.
    std::uint64_t cover_rounds() const;

    /// Indices of every peer probed in rounds 0 .. max(cover_rounds, own-ToR rotation) - 1:
    /// the union a full cycle reaches, sorted.
    std::vector<std::size_t> cycle_union() const;

    /// The fleet sorted by host name (what the indices point into).
    const std::vector<FleetHost>& fleet() const { return f_->hosts; }
    const FleetHost& self() const { return f_->hosts[self_]; }
    const std::string& own_tor() const { return f_->hosts[self_].tor; }
    std::size_t tor_count() const { return f_->tors.size(); }
    const MeshPlanParams& params() const { return params_; }

  private:
    struct Fleet {
        std::vector<FleetHost> hosts;                ///< sorted by host name
        std::vector<std::vector<std::size_t>> tors;  ///< per ToR (sorted by name): hosts by name
        std::vector<std::string> tor_names;
        std::vector<std::size_t> tor_of;  ///< host index -> ToR index
        std::vector<std::size_t> rank;    ///< host index -> position within its ToR
    };
    MeshPlan() = default;
    std::shared_ptr<const Fleet> f_;
    std::size_t self_ = 0;
    std::size_t own_ = 0;       ///< own ToR's index in the fleet's tors
    std::size_t own_rank_ = 0;  ///< self's position within its ToR
    MeshPlanParams params_;
};

}  // namespace rh
