// One run of the incast machinery (probes/incast/incast_coordinator.h) for the acceptance stages
// `bandwidth` (one sender) and `incast` (N senders): the coordinator's run, its analysis
// (agent/reports/incast_analysis.h: rule engine over every participant's counters) and its typed
// result (agent/reports/incast_report.h), with the participants' samples added to cx.samples,
// the `rocehealth incast --json` document saved under DIR/raw/, and the pieces the report takes
// from the result.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "agent/accept_run/run_context.h"
#include "agent/reports/incast_report.h"

namespace rh::accept {

struct TrafficOutcome {
    bool ran = false;  ///< false: the coordinator could not run (see error)
    std::string error;
    std::optional<IncastReport> report;  ///< when ran
    std::string raw_href;                ///< DIR-relative file holding its JSON ("" when not saved)
    std::vector<Finding> findings;
    std::vector<CounterTimeline> timelines;  ///< activity per host, t_s on the report's clock
    std::optional<Mark> traffic;             ///< the traffic window
    std::vector<std::string> notes;
};

/// Which participants' counter samples go into cx.samples: all, or only the receiver's (when
/// parallel runs sample the same hosts, each host is kept once).
enum class SamplesFrom { all, receiver };

/// Runs `senders` -> `receiver` with `t` (victim probe from this host when `victim`). `label`
/// names the run in the progress line and the raw file (DIR/raw/<label>.json); `show_progress`
/// false keeps it off the progress line. Safe to call from several threads at once.
TrafficOutcome run_traffic(RunContext& cx, const SpecHost& receiver,
                           const std::vector<SpecHost>& senders, const TrafficSpec& t, bool victim,
                           const std::string& stage, const std::string& label,
                           SamplesFrom from = SamplesFrom::all, bool show_progress = true);

/// The incast analysis's activity as one timeline per host and series, hosts by spec name, t_s
/// on the report's clock, unit packets/s or events/s.
std::vector<CounterTimeline> counter_timelines_of(const IncastActivity& activity,
                                                  const RunContext& cx);

/// The findings of an incast's diagnosis (none without one), hosts by spec name, each as the
/// run's raw `incast --json` file carries it (agent/accept/finding_json.h reads back no more), so
/// the report and the file it links say the same.
std::vector<Finding> findings_of(const std::optional<DiagnoseReport>& diagnosis,
                                 const RunContext& cx);

/// Adds a run's findings (a finding already there — same rule, host, device, port — is not
/// repeated), timelines, traffic mark, raw link ("<what> (incast --json)") and notes to `st`.
void attach_traffic(Stage& st, TrafficOutcome& t, const std::string& what);

/// A flow of the report from a single-sender run `t` (src -> dst, RDMA WRITE): goodput, the
/// slower end's link rate (the receiver's from the run, the sender's from the inventory).
FlowResult flow_of(const RunContext& cx, const TrafficOutcome& t, const SpecHost& src,
                   const SpecHost& dst, double duration_s);

/// "<name>" >= `min` over the lowest fraction of `flows` (evidence: that flow, at
/// "<array_ptr>/N"); not measured (null, fails) when any flow has no fraction, then named
/// "<name> (not every pair measured)" with the first such flow as evidence.
Criterion worst_flow_criterion(const std::vector<FlowResult>& flows, const std::string& array_ptr,
                               double min, const std::string& name);

}  // namespace rh::accept
