// The one catalog of the series rocehealth stores and exports (as osquery declares each table
// once): name, kind, unit, labels, help and what produces it. Everything else reads it:
//   - the driver tables (collectors/drivers/*.cpp) map raw counters to these names, with this
//     unit and these labels (tests/collectors/test_drivers.cpp checks every row);
//   - the store's known series and label names (store/series_names.h), which the rules loader
//     checks rules against;
//   - /metrics HELP text (agent/daemon/metrics.cpp);
//   - the series table of store/README.md (tests/core/test_series_catalog.cpp renders it and
//     fails on any difference).
// A new vendor-neutral counter: its row here and the driver rows that produce it.
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
};

struct SeriesSpec {
    std::string_view name;  ///< as stored and in rules: "pfc_pause_frames"
    SeriesKind kind;
    /// Unit of the stored value (Sample::unit): packets, frames, bytes, bits, blocks, events,
    /// errors, us, s, state, bool, lanes, Gb/s.
    std::string_view unit;
    /// Labels of its own, comma-separated in order ("priority,direction"); every port series
    /// also carries device, port and (when the port has one) netdev.
    std::string_view labels;
    std::string_view help;  ///< one sentence without a final period; /metrics HELP
    SeriesOrigin origin;
    std::string_view source;  ///< where the value comes from (docs)
};

/// Every series, sorted by name.
std::span<const SeriesSpec> series_catalog();

/// The series called `name`; null when the catalog has none.
const SeriesSpec* find_series(std::string_view name);

std::string_view to_string(SeriesKind k);
std::string_view to_string(SeriesOrigin o);

/// The catalog as the markdown table of store/README.md ("Series"): a header and one row per
/// series, each line ending in '\n'.
std::string series_catalog_markdown();

}  // namespace rh
