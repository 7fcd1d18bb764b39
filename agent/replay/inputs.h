// Loads what `rocehealth diagnose` analyses into a SeriesStore: recordings (JSON lines written by
// `rocehealth record`, store/README.md) and operators' bundle captures (collectors/bundle). Both
// end as the same samples in the same store, so the rule engine has one code path.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "core/result.h"
#include "rules/engine/engine.h"
#include "store/series_store.h"

namespace rh {

/// What loading said about its input, for the report (not errors: the evidence still counts).
struct InputReport {
    std::string name;                ///< the file or directory
    std::size_t samples = 0;         ///< samples added
    std::vector<std::string> hosts;  ///< hosts seen in it
    /// e.g. truncated last line, unrecognised files. Bundles: the first note says which host
    /// the capture was taken to be and the evidence that decided ("capture-1010: same host as
    /// capture-1000 (node_guid 0c42:a103:0065:4e9a, MAC 0c:42:a1:65:4e:9a)").
    std::vector<std::string> notes;
    /// Notes shown without --verbose (bundles: a binary file not read, two hosts' output in
    /// one file, facts kept by a weak match); each is also in `notes`.
    std::vector<std::string> warnings = {};
    /// Bundles: the capture's host has several captures and no clock (no `timestamp` file, no
    /// in-file clock, no --interval): rules that need the time between captures are not judged
    /// on it (EngineOptions::unspaced_hosts).
    bool spacing_unknown = false;
    /// Bundles: counter files of the capture tied to no RDMA port (BundleCapture::
    /// unused_counters): the diagnosis cannot call the host healthy (judge_inputs).
    std::vector<std::string> unused_counters = {};
};

/// Adds every sample of recording `path` to `store`. Error: unreadable file or a bad line
/// ("FILE:LINE: field ...", core/recording/sample_json.h); nothing is added then.
Result<InputReport> load_recording(SeriesStore& store, const std::string& path);

/// Adds bundle captures `dirs` (in time order per host; several hosts may be mixed) to `store`,
/// one collection pass per directory, the first of each host with its inventory. Hosts are
/// decided by what the captures hold (collectors/bundle/capture_identity.h): captures whose
/// identity agrees (node_guid, sys_image_guid, MAC, GID, `hostname` file, PCI slot, device
/// names with the same counter names — the first kind both hold decides) are one host's
/// timeline in the given order; conflicting ones are separate hosts; a capture with no evidence
/// in common joins the only host so far. The host is named by a `hostname` file of any of its
/// captures, else its first directory's basename. Each InputReport's first note says which
/// evidence decided. Reports are in the order of `dirs`.
/// Capture times (agent/replay/capture_time.h): a capture's `timestamp` file, else its in-file
/// clock in UTC (a `date` line, a `watch` header) stands for one. Every capture has one ->
/// wall clock; else a host whose captures all have one keeps their spacing (from its first
/// capture); a host whose captures have `date` lines in one named zone ("CST") or none keeps
/// their spacing without a wall clock (noted); else its captures are `interval_s` apart
/// (mixed: all by `interval_s`, noted); else (no clock, no `interval_s`) they are judged in
/// the given order without spacing: InputReport::spacing_unknown, and the engine names the
/// rules that need an interval. Captures whose clocks say they were given out of time order
/// are put in order (noted); without clocks, counters falling from one capture to the next
/// give a warning; a capture with no readable file gives a warning naming it. Each report's
/// notes say which file:line gave the capture its time.
/// Error: a directory that cannot be read; timestamps not increasing per host (equal); an
/// impossible spacing (a byte counter faster than its port).
Result<std::vector<InputReport>> load_bundles(SeriesStore& store,
                                              const std::vector<std::string>& dirs,
                                              std::optional<double> interval_s);

/// False when `store` holds no counter series and no inventory with an RDMA device (an empty
/// capture directory, a recording of a host without RDMA devices): "no findings" from such
/// input would read as healthy, so diagnose and rules test refuse it (exit 2). Job or kernel
/// log lines count: their errors can be judged (judge_inputs).
bool holds_rdma_data(const SeriesStore& store);

/// The rules over `store` with what the inputs say about themselves: a host whose captures have
/// no clock is judged on nothing that needs an interval (EngineOptions::unspaced_hosts), and a
/// capture's counter files tied to no port add a NotJudged each (kind "no_verdict", rule
/// "counters"), so the run is could-not-judge rather than healthy; so do inputs of log lines
/// only (kind "no_counters", host ""): their errors are findings, their silence is not health.
/// Every analysis of loaded
/// inputs judges through here, so each gives the same verdict on the same inputs.
EngineResult judge_inputs(const SeriesStore& store, const RuleSet& rules,
                          const std::vector<InputReport>& inputs, EngineOptions opts);

}  // namespace rh
