// What the data says happened on a host around a job's error (rules/joblog/log_rules.h): counter
// increases over a window, the time rules' findings, the kernel's lines. Internal to rules/joblog.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "rules/engine/engine.h"

namespace rh::joblog_rules {

/// The time span evidence is looked for in: [from, to] engine seconds; `whole` = the event had
/// no time of its own, so the host's whole data is the window.
struct Window {
    double from = 0, to = 0;
    bool whole = true;
};

/// One piece of evidence for a cause, as the finding cites it.
struct Cause {
    std::string kind;    ///< "peer_gone", "physical", "link", "pause", "transport", "rnr"
    std::string what;    ///< "gpu07: process 4242 (python) killed by the OOM killer"
    std::string source;  ///< file:line or the series' source
    std::string host;
};

/// Increases of counters `series` (store names, core/series_catalog) on `host` within `w`: one
/// Cause of `kind` per series and port that rose ("symbol_errors +1,204 on mlx5_0 port 1").
/// Points of different segments (a reboot between) are not differenced.
void counter_rises(const SeriesStore& store, const std::string& host,
                   std::initializer_list<const char*> series, const Window& w, const char* kind,
                   std::vector<Cause>& out);

/// The time rules' findings on `host` among `rule_ids` that held within `w` (any time when the
/// window is whole): one Cause of `kind` each, citing the finding's summary.
void findings_of(const EngineResult& result, const std::string& host,
                 std::initializer_list<const char*> rule_ids, const Window& w, const char* kind,
                 std::vector<Cause>& out);

/// Log events on `host` of `kinds` within `w` (any time when whole): one Cause of `kind` each.
void events_of(const std::vector<SeriesStore::PlacedLogEvent>& events, const std::string& host,
               std::initializer_list<const char*> kinds, const Window& w, const char* kind,
               std::vector<Cause>& out);

/// True when `host` restarted within the data (a counter segment change: reboot or reset, see
/// Sample::segment), with the first series' source in `source`.
bool restarted(const SeriesStore& store, const std::string& host, std::string& source);

}  // namespace rh::joblog_rules
