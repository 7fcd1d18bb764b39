// Evaluates one condition of a rule at one time over the store: finds the series it reads
// (by name, label filter, the finding's group labels and host scope) and measures them over the
// condition's window. Tri-state: a condition whose series are missing is unknown, never false.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "rules/engine/rule_spec.h"
#include "store/series_store.h"

namespace rh {

/// The host and labels one finding is about, e.g. {gpu01, {device: mlx5_0, port: 1, priority: 3}}.
struct Group {
    std::string host;
    Labels labels;
};

/// A measurement: the aggregated value and the series that produced it (for citing sources).
struct Measurement {
    std::optional<double> value;  ///< nullopt = unknown (no series or no data)
    /// Set when the measure is only bounded: the true value lies in [value, high] (possibly
    /// value == high when both ends are clamped at 100%). Used by
    /// pause_fraction from pause frames and per_bit on a port whose rate the data lacks: value at
    /// the fastest plausible rate (kMaxPlausiblePortGbps), high at the slowest
    /// (kMinPlausiblePortGbps). holds() decides only when both ends agree.
    std::optional<double> high;
    /// With `high`: the port rate `value` was bounded at, Gb/s (the NIC model's fastest,
    /// port_max_rate_gbps, else kMaxPlausiblePortGbps).
    double fastest_gbps = 400;
    const Series* strongest = nullptr;  ///< the series contributing most
    std::vector<const Series*> series;  ///< every series read
    /// The series whose values were added up (increase, rate_per_s, lifetime measures): the
    /// value is their sum, so it is named after all of them (evidence), not the strongest.
    std::vector<const Series*> summed;
    /// A `changed_in_data` condition whose gauge has been on the condition's side at every
    /// point up to t (Condition::changed_in_data): the condition is false, whatever the value.
    bool unchanged = false;
};

/// Series `c` reads for `g` (at time t for the pfc_enabled-based priority selection).
std::vector<const Series*> select_series(const SeriesStore& store, const Condition& c,
                                         const Group& g, double t);

/// Whether any series select_series gives ever had a value (without building the list when
/// memoised: "any" rules ask this per child and pass).
bool any_selected_valued(const SeriesStore& store, const Condition& c, const Group& g, double t);

/// While alive, select_series remembers, per condition of `conditions`, which series of
/// `store` it may read for `group` (everything but the pfc_enabled state at t), so evaluating
/// a rule at every pass does not redo the label matching per pass. Keyed by address: only
/// these conditions, this group object and this store are memoised (copies and temporaries
/// take the plain path), and the store must not change while it lives. One per thread.
class SelectionMemo {
  public:
    /// A candidate series and, for a condition on PFC priorities, the pfc_enabled series that
    /// decide at t whether its priority counts (in store order: the first with a value wins).
    struct Candidate {
        const Series* series = nullptr;
        std::vector<const Series*> pfc;
    };
    /// Per condition, its candidates (what the memo remembers; see select()).
    using Selections = std::vector<std::pair<const Condition*, std::vector<Candidate>>>;

    SelectionMemo(const SeriesStore& store, const Group& group,
                  const std::vector<const Condition*>& conditions);
    /// Remembers `kept`, built by select() over this store's layout (the same series, which
    /// only grow: the VerdictCache keeps them between runs until its layout changes); it must
    /// outlive the memo.
    SelectionMemo(const SeriesStore& store, const Group& group, const Selections& kept);
    ~SelectionMemo();
    SelectionMemo(const SelectionMemo&) = delete;
    SelectionMemo& operator=(const SelectionMemo&) = delete;

    /// The memoised candidates of `c` for `g` over `store`, or nullptr when not memoised here.
    static const std::vector<Candidate>* lookup(const SeriesStore& store, const Condition& c,
                                                const Group& g);
    /// The candidates of each of `conditions` for `group` over `store`: O(series of their
    /// names).
    static Selections select(const SeriesStore& store, const Group& group,
                             const std::vector<const Condition*>& conditions);

  private:
    const SeriesStore& store_;
    const Group& group_;
    Selections own_;
    const Selections* entries_;
    SelectionMemo* outer_;
};

/// `c`'s measure at time t. `step_s` is the pass interval ending at t, used when the
/// condition has no window of its own.
Measurement measure(const SeriesStore& store, const Condition& c, const Group& g, double t,
                    double step_s);

/// Compares with the condition's operator and threshold; nullopt when the value is unknown, or
/// bounded (Measurement::high) with the two ends on different sides of the threshold.
std::optional<bool> holds(const Condition& c, const Measurement& m);

/// The time at which series `s` is read when group `g` is judged at `t` over an interval of
/// `step_s` seconds: `t` for `g`'s own host; for another host, that host's own pass nearest to
/// `t` within half the interval (captures of two hosts are taken seconds apart; reading the
/// other host at exactly `t` would find no capture there), else `t`.
double read_time_for(const SeriesStore& store, const Series& s, const Group& g, double t,
                     double step_s);

/// Evaluates a boolean expression; unknown when it depends on unknown conditions. In "any",
/// conditions whose series the host does not have are skipped (all of them: unknown).
std::optional<bool> holds(const SeriesStore& store, const Expr& e, const Group& g, double t,
                          double step_s);

/// Port rates a pause fraction from frames is bounded with when the data has no port rate,
/// Gb/s: RoCE NICs run from 1 Gb/s (E810 at its lowest) to 400 Gb/s. A frame asks for at
/// least 65535 x 512 bit times at 400 Gb/s (83.9 us), at most at 1 Gb/s (33.6 ms).
inline constexpr double kMaxPlausiblePortGbps = 400;
inline constexpr double kMinPlausiblePortGbps = 1;

/// The host's `uptime_s` gauge (seconds since boot, from a captured `uptime` or /proc/uptime)
/// at or before t; nullopt when the data has none.
std::optional<double> uptime_s(const SeriesStore& store, const std::string& host, double t);

/// Pause time one PFC frame asks for at most (65535 quanta x 512 bit times) at
/// `port_gbps`, in seconds: 335.5 us at 100 Gb/s. Used when the driver gives no pause duration;
/// an upper bound, because switches refresh pause before it expires.
double pause_quanta_s(double port_gbps);

/// "12.3/s", "63%", "1532 packets", "1e-05 bits per bit on the line", "98% of the port's
/// bits" — a measured value as printed in sentences.
std::string format_measure(const Condition& c, double v, const std::string& unit);

/// format_measure for a bounded measurement (Measurement::high set): "at least 34% of the time
/// (pause frames at 400 Gb/s, the fastest port rate it can be: the data has no port rate)".
std::string format_bounded_measure(const Condition& c, double low, const std::string& unit,
                                   double fastest_gbps = kMaxPlausiblePortGbps);

}  // namespace rh
