// The time-series store: every sample kept per series (host + name + labels) in a bounded ring
// buffer, queried by the rule engine by time window. Counters are kept as they were read; the
// engine works in deltas (store/window.h), never in totals.
#pragma once

#include <cstddef>
#include <cstdint>
#include <deque>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "core/sample.h"

namespace rh {

/// A series' identity. Ordered so the store iterates hosts and series deterministically.
struct SeriesKey {
    std::string host;
    std::string series;
    Labels labels;
    auto operator<=>(const SeriesKey&) const = default;
};

/// One stored point. `t` is the engine's time axis: wall seconds when the sample had wall_ms,
/// else its t_s (one recording without wall clock is still one consistent timeline).
struct Point {
    double t = 0;    ///< engine time, seconds
    double t_s = 0;  ///< monotonic seconds of the host (interval lengths)
    std::optional<std::uint64_t> count;
    std::optional<double> value;
    std::uint32_t meta = 0;  ///< index into Series::metas (raw name / source / width of the read)
};

/// Where a counter point was read from; a change of raw name between two points (an alias
/// switch, e.g. a driver update) makes their delta "missing", not a rate.
struct PointMeta {
    std::string raw;
    std::string source;
    std::string unit;
    unsigned width_bits = 64;
    bool saturates = false;
    std::string error;
    auto operator<=>(const PointMeta&) const = default;
};

struct Series {
    SeriesKey key;
    SampleKind kind = SampleKind::counter;
    std::deque<Point> points;      ///< oldest first; bounded by the store's retention
    std::vector<PointMeta> metas;  ///< distinct metadata seen (small: usually one)
    /// Some point ever had a value (a series never readable is treated like an absent one).
    bool ever_valued = false;
    /// Counters: the wrap-corrected cumulative count, i.e. the first readable raw value plus every
    /// later width-aware delta (store/counter_delta.h) from the last readable point: a
    /// 32-bit wrap adds the wrapped change, a reset adds the count since the reset, a saturated
    /// read or a change of raw counter adds nothing. It only grows (mod 2^64), so exporting it
    /// as a Prometheus counter never shows a wrap as a reset. nullopt until a readable point.
    std::optional<std::uint64_t> total;
    /// The last readable point's count and meta index, which `total` continues from.
    std::optional<std::pair<std::uint64_t, std::uint32_t>> last_counted;

    const PointMeta& meta(const Point& p) const { return metas[p.meta]; }
    const std::string& unit() const { return metas.empty() ? kEmpty : metas.back().unit; }

  private:
    static inline const std::string kEmpty;
};

/// Retention: points older than `retention_s` behind the newest point of their series are
/// dropped, and no series keeps more than `max_points` (a fast sampler cannot grow it without
/// bound). Replays use an unbounded retention so a whole recording is analysed.
struct StoreLimits {
    double retention_s = 3600;
    std::size_t max_points = 7200;
};

class SeriesStore {
  public:
    explicit SeriesStore(StoreLimits limits = {}) : limits_(limits) {}

    /// Adds a counter or gauge sample (inventory samples go to add_inventory). Out-of-order
    /// points (t before the series' newest) are dropped and counted in dropped_out_of_order().
    void add(const Sample& s);

    /// All series named `series`, every host and label set, in key order.
    /// A reference (no copy per query: the rule engine asks per condition and pass); valid
    /// until the next add().
    const std::vector<const Series*>& find(const std::string& series) const;
    /// The series with exactly this key, or nullptr.
    const Series* get(const SeriesKey& key) const;

    /// Hosts seen, sorted.
    std::vector<std::string> hosts() const;
    /// Engine times at which `host` produced samples (one per collection pass), sorted, unique.
    const std::vector<double>& pass_times(const std::string& host) const;
    /// Pass times added before their host's newest (a late sample of a new series): passes
    /// then no longer only grow at their end, so what was judged per pass may shift (the rule
    /// engine's VerdictCache starts again). 0 while every pass time comes in order.
    std::size_t passes_inserted() const { return passes_inserted_; }

    /// Latest inventory (snapshot JSON) of each host, with its engine time.
    struct Inventory {
        double t = 0;
        nlohmann::json snapshot;
        /// Changes each time the host's inventory is replaced (a store-wide count), so a parse
        /// of it can be kept until then (the rule engine's VerdictCache).
        std::uint64_t generation = 0;
    };
    void add_inventory(const Sample& s);
    const std::map<std::string, Inventory>& inventories() const { return inventories_; }

    /// wall_ms of engine time t for printing; 0 when the recording had no wall clock.
    bool has_wall_clock() const { return has_wall_clock_; }

    std::size_t series_count() const { return series_.size(); }
    std::size_t dropped_out_of_order() const { return dropped_; }

  private:
    StoreLimits limits_;
    std::map<SeriesKey, Series> series_;
    std::map<std::string, std::vector<const Series*>> by_name_;
    std::map<std::string, std::vector<double>> pass_times_;
    std::map<std::string, Inventory> inventories_;
    bool has_wall_clock_ = false;
    std::size_t dropped_ = 0;
    std::size_t passes_inserted_ = 0;
    std::uint64_t inventories_added_ = 0;
};

/// Engine time of a sample: wall_ms / 1000 when known, else t_s.
double engine_time(const Sample& s);

}  // namespace rh
