// The one catalog of the series rocehealth stores and exports (as osquery declares each table
// once): name, kind, unit, labels, help and what produces it. Everything else reads it:
//   - the driver tables (collectors/drivers/*.cpp) map raw counters to these names, with this
//     unit and these labels (tests/collectors/test_drivers.cpp checks every row);
//   - the store's known series and label names (store/series_names.h), which the rules loader
//     checks rules against;
//   - /metrics: each series' family name, unit, conversion and HELP text (agent/daemon/metrics.cpp
//     takes them from here; tests/agent/test_exported_names.cpp checks that every series name the
//     Prometheus rules, dashboard and `rocehealth fabric` queries use is one exported);
//   - the series table of store/README.md (tests/core/test_series_catalog.cpp renders it and
//     fails on any difference).
// A new vendor-neutral counter: its row here and the driver rows that produce it.
// A new series the agent exports from its inventory (origin agent): its row here and the line of
// agent/daemon/metrics.cpp that writes it.
#pragma once

#include <span>
#include <string>
#include <string_view>

namespace rh {

enum class SeriesKind { counter, gauge };

/// What produces a series' samples.
enum class SeriesOrigin {
    drivers,   ///< a driver table row (collectors/drivers/), per device/port[/netdev]
    snapshot,  ///< store/from_snapshot.cpp, from the inventory's raw fields
    probes,    ///< the probe mesh and `rocehealth probe` (probes/latency/probe_samples.h)
    bundle,    ///< an operator's capture (collectors/bundle/)
    agent,     ///< not stored: the agent's /metrics only, from its config and latest inventory
               ///< (agent/daemon/host_info.h); rules cannot name it
};

struct SeriesSpec {
    std::string_view name;  ///< as stored and in rules: "pfc_pause_frames"
    SeriesKind kind;
    /// Unit of the stored value (Sample::unit): packets, frames, bytes, bits, blocks, events,
    /// errors, us, s, state, bool, lanes, Gb/s; info for a series whose value is always 1 (its
    /// labels say it).
    std::string_view unit;
    /// Labels of its own, comma-separated in order ("priority,direction"); every port series
    /// also carries device, port and (when the port has one) netdev.
    std::string_view labels;
    std::string_view help;  ///< one sentence without a final period; /metrics HELP
    SeriesOrigin origin;
    std::string_view source;  ///< where the value comes from (docs)
    /// Metric family on /metrics (Prometheus conventions: base units, counters end in _total):
    /// "rocehealth_pfc_pause_duration_seconds_total".
    std::string_view exported;
    /// Unit of the exported value: the stored unit, or its base unit ("seconds" for us,
    /// "bytes per second" for Gb/s); export_scale converts.
    std::string_view exported_unit;
};

/// The conversion of a stored value to its exported unit: value * mul / div (two factors, so
/// 12.5 us is exactly 1.25e-05 s: the division by 10^6 rounds once).
struct ExportScale {
    double mul = 1, div = 1;
    bool identity() const { return mul == 1 && div == 1; }
    double apply(double v) const { return v * mul / div; }
};
ExportScale export_scale(const SeriesSpec& s);

/// True for the series the store holds (every origin but agent): the rules' series.
constexpr bool is_stored(const SeriesSpec& s) {
    return s.origin != SeriesOrigin::agent;
}

/// Every series, sorted by name.
std::span<const SeriesSpec> series_catalog();

/// The series called `name`; null when the catalog has none.
const SeriesSpec* find_series(std::string_view name);

std::string_view to_string(SeriesKind k);
std::string_view to_string(SeriesOrigin o);

/// The stored series (is_stored) as the markdown table of store/README.md ("Series"): a header
/// and one row per series, each line ending in '\n'.
std::string series_catalog_markdown();

}  // namespace rh
