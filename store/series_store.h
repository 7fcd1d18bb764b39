// The time-series store: every sample kept per series (host + name + labels) in a bounded ring
// buffer, queried by the rule engine by time window. Counters are kept as they were read; the
// engine works in deltas (store/window.h), never in totals.
#pragma once

#include <cstddef>
#include <cstdint>
#include <deque>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <tuple>
#include <vector>

#include "core/log_event.h"
#include "core/sample.h"
#include "store/point_seq.h"

namespace rh {

/// A series' identity. Ordered so the store iterates hosts and series deterministically.
struct SeriesKey {
    std::string host;
    std::string series;
    Labels labels;
    auto operator<=>(const SeriesKey&) const = default;
};

/// A series' identity by reference (a sample's fields): finds a series without copying them.
struct SeriesKeyRef {
    const std::string& host;
    const std::string& series;
    const Labels& labels;
};

/// SeriesKey's order, also between a SeriesKey and a SeriesKeyRef.
struct SeriesKeyLess {
    using is_transparent = void;
    template <typename A, typename B>
    bool operator()(const A& a, const B& b) const {
        return std::tie(a.host, a.series, a.labels) < std::tie(b.host, b.series, b.labels);
    }
};

/// Where a counter point was read from; a change of raw name between two points (an alias
/// switch, e.g. a driver update) or of timeline segment (a reboot) makes their delta
/// "missing", not a rate.
struct PointMeta {
    std::string raw;
    std::string source;
    std::string unit;
    unsigned width_bits = 64;
    bool saturates = false;
    std::string error;
    /// Sample::segment: points of different segments (a reboot or a counter reset between
    /// them) are not differenced; their delta is "missing".
    std::uint32_t segment = 0;
    auto operator<=>(const PointMeta&) const = default;
};

struct Series {
    SeriesKey key;
    SampleKind kind = SampleKind::counter;
    PointSeq points;               ///< oldest first; bounded by the store's retention; may be empty
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
    double last_counted_t_s = 0;  ///< its monotonic time (a wrap must fit the interval)

    const PointMeta& meta(const Point& p) const { return metas[p.meta]; }
    const std::string& unit() const { return metas.empty() ? kEmpty : metas.back().unit; }

    /// Gauges: the oldest kept point whose value differs from the oldest kept valued point's
    /// (where the level first changed within the kept data); points.end() when it never did.
    /// Every valued point before it has the oldest's value. O(1) while points are only added; the
    /// points are searched again (once) after the oldest valued point was dropped. Not
    /// thread-safe: one thread queries (the rule engine's).
    PointSeq::const_iterator first_value_change() const;

  private:
    friend class SeriesStore;
    void note_added(const Point& p);  ///< by SeriesStore::add, after the push_back
    void drop_front();                ///< by SeriesStore: note_dropped, then pop_front
    void note_dropped();              ///< by SeriesStore::add, before a pop_front
    static inline const std::string kEmpty;
    // Indexes count every point ever added (minus dropped_ for the deque's index).
    std::uint64_t dropped_ = 0;
    mutable bool change_known_ = true;  ///< first_/change_ below describe the kept points
    mutable std::optional<std::uint64_t> first_valued_;  ///< index of the oldest valued point
    mutable double first_value_ = 0;                     ///< its value
    mutable std::optional<std::uint64_t> change_;        ///< index of the first other value
};

/// Retention: points older than `retention_s` behind the newest point of their series are
/// dropped, and no series keeps more than `max_points` (a fast sampler cannot grow it without
/// bound). In a packed store, when a host's time table is trimmed (once it holds more than
/// max(1,024, twice what it kept at the last trim) entries), the host's points older than
/// `retention_s` behind its newest pass are dropped too: a series that stopped (a port gone)
/// does not pin old times, and may be left with no points (readers check `empty()`). Such a
/// point lies before any window the rules read at the newest pass.
/// Replays use an unbounded retention so a whole recording is analysed.
struct StoreLimits {
    double retention_s = 3600;
    std::size_t max_points = 7200;
    /// Points packed (store/point_seq.h: ~1-5 bytes each, reads a little dearer) or plain (32
    /// bytes each): packed for the agent's bounded store, plain for replays.
    bool packed = true;
};

class SeriesStore {
  public:
    explicit SeriesStore(StoreLimits limits = {}) : limits_(limits) {}
    // Series refer to their host's TimeTable: a copy would read the original's.
    SeriesStore(const SeriesStore&) = delete;
    SeriesStore& operator=(const SeriesStore&) = delete;
    SeriesStore(SeriesStore&&) = default;  // map nodes, hence the tables, keep their addresses
    SeriesStore& operator=(SeriesStore&&) = default;

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

    /// Latest inventory of each host (its static facts, typed: no counter lists), with its
    /// engine time. The facts' host is the sample's when they name none.
    struct Inventory {
        double t = 0;
        /// nullptr when the sample carried no facts (a recording's inventory that did not
        /// decode): `error` says why, and the inventory checks report it for the host.
        std::shared_ptr<const Snapshot> snapshot;
        std::string error;
        /// Changes each time the host's inventory is replaced (a store-wide count), so what is
        /// derived from it can be kept until then (the rule engine's VerdictCache).
        std::uint64_t generation = 0;
    };
    void add_inventory(const Sample& s);
    const std::map<std::string, Inventory>& inventories() const { return inventories_; }

    /// A job or kernel log line placed on a host and in time (agent/replay places them; the log
    /// rules, rules/joblog, join them with the series). `t` is engine time: the line's own
    /// time when it has one the data's clock can hold (`timed`), else the time of the capture
    /// that held it (`timed` false: order only). `host` is "" when nothing in the line or its
    /// capture names one of the data's hosts; `placement` says what placed it.
    struct PlacedLogEvent {
        LogEvent event;
        std::string host;
        std::string peer_host;  ///< the data's host the line's peer IP/GID names, else ""
        double t = 0;
        bool timed = false;
        std::string placement;
    };
    /// Keeps `e` (any order; log_events() returns them by time, then as added).
    void add_log_event(PlacedLogEvent e);
    /// Every log event kept, ordered by engine time, then as added.
    const std::vector<PlacedLogEvent>& log_events() const { return log_events_; }

    /// wall_ms of engine time t for printing; 0 when the recording had no wall clock.
    bool has_wall_clock() const { return has_wall_clock_; }

    std::size_t series_count() const { return series_.size(); }
    /// Heap bytes the points hold (encoded points and time tables), for the benchmarks.
    std::size_t point_bytes() const;
    std::size_t dropped_out_of_order() const { return dropped_; }

  private:
    void trim_times(const std::string& host, TimeTable& table);

    StoreLimits limits_;
    std::map<std::string, TimeTable> times_;  ///< packed stores: each host's point times
    std::map<SeriesKey, Series, SeriesKeyLess> series_;
    std::map<std::string, std::vector<const Series*>> by_name_;
    std::map<std::string, std::vector<double>> pass_times_;
    std::map<std::string, Inventory> inventories_;
    std::vector<PlacedLogEvent> log_events_;
    bool has_wall_clock_ = false;
    std::size_t dropped_ = 0;
    std::size_t passes_inserted_ = 0;
    std::uint64_t inventories_added_ = 0;
};

/// Engine time of a sample: wall_ms / 1000 when known, else t_s.
double engine_time(const Sample& s);

}  // namespace rh
