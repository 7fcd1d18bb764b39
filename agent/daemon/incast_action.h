// POST /api/v1/incast: an incast with this host as the receiver, coordinated from here through
// the existing coordinator (probes/incast/incast_coordinator.h, as `rocehealth incast` does) and
// analysed with the agent's rules (agent/reports/incast_analysis.h). One at a time: a request while
// one runs gets 409. The HTTP thread that asked waits for the result (at most the request's
// duration_s, bounded by incast.max_duration_s, plus the coordinator's set-up, pre/post
// windows and grace: about 15 s more).
#pragma once

#include <atomic>
#include <filesystem>
#include <memory>
#include <mutex>
#include <optional>
#include <string>

#include <nlohmann/json.hpp>

#include "agent/daemon/incast_senders.h"
#include "rules/engine/rule_spec.h"

namespace rh::agent {

/// What an action answers: HTTP status and JSON body.
struct ActionReply {
    int status = 200;
    nlohmann::json body;
};

class IncastAction {
  public:
    struct Setup {
        std::string receiver;  ///< HOST[:PORT] the senders reach this host's responder at
        double max_duration_s = 30;
        bool responder_enabled = false;  ///< this host's responder must serve as receiver
        std::string device;              ///< for the victim probe
        std::optional<unsigned> gid_index;
        std::filesystem::path sysfs_root = "/sys";
        std::shared_ptr<const RuleSet> rules;
        std::string rules_path;
        /// Who may be named as a sender (incast_senders.h); empty: nobody.
        SenderFleet fleet;
    };

    /// Replaces the setup (the run loop, at start and on reload); a running incast keeps its own.
    void configure(Setup s);

    /// Handles a request body: 200 with the `rocehealth incast --json` document (its "exit"
    /// field as that command's exit code), 400 naming the bad field, 403 naming a sender
    /// outside the fleet (sender_refusal) and incast.allowed_senders, 409 while another
    /// incast runs, 503 when this host's responder is not enabled or the receiver cannot be
    /// reached.
    ActionReply handle(const std::string& body);

  private:
    std::mutex m_;
    Setup setup_;
    std::atomic<bool> busy_{false};
};

}  // namespace rh::agent
