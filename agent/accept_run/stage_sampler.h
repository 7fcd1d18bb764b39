// Counters of every host around a stage that has no traffic run of its own (idle_latency): a
// "sample" session on each host's responder (probes/incast/incast_links.h SampleLink, as the incast
// coordinator uses) from start() to finish(), then the rule engine over the samples (the incast
// analysis, agent/reports/incast_analysis.h) — findings, counter timelines, and the samples added
// to cx.samples.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "agent/accept_run/run_context.h"
#include "probes/incast/incast_run.h"

namespace rh::incast {
class SampleLink;
}

namespace rh::accept {

class StageSampler {
  public:
    /// Starts sampling every spec host every second, for at most `max_s` seconds.
    StageSampler(RunContext& cx, double max_s);
    ~StageSampler();
    StageSampler(const StageSampler&) = delete;
    StageSampler& operator=(const StageSampler&) = delete;

    /// Stops sampling, runs the rules, and adds the findings (hosts by spec name), the counter
    /// timelines and notes (hosts that could not be sampled) to `st`. Each series named in
    /// `gauges` (e.g. "port_state_code") is plotted first, as sampled, per host and labels.
    void finish(Stage& st, const std::vector<std::string>& gauges = {});

  private:
    RunContext& cx_;
    incast::Options opts_;
    incast::Run run_;
    std::vector<std::unique_ptr<incast::SampleLink>> links_;
};

}  // namespace rh::accept
