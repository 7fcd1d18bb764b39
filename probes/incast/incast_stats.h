// The incast figures (pure): goodput per sender and in aggregate, Jain's fairness index, the
// completion-time spread, and the aggregate rate per second of the test. Units are in the names:
// Gb/s = 10^9 bit/s, MiB/s = 2^20 byte/s, ms = milliseconds.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace rh::incast {

/// Gb/s (10^9 bit/s) of `bytes` in `seconds`; 0 when seconds <= 0.
double gbps(std::uint64_t bytes, double seconds);
/// MiB/s (2^20 byte/s) of `bytes` in `seconds`; 0 when seconds <= 0.
double mib_per_s(std::uint64_t bytes, double seconds);

/// Jain's fairness index (sum x)^2 / (n * sum x^2) of the shares x (all >= 0): 1 when all are
/// equal, 1/n when one takes everything. nullopt for no shares or when all are 0.
std::optional<double> jain_index(const std::vector<double>& x);

/// What one sender delivered, in its own clock (so no clock offset enters the figures).
struct SenderShare {
    std::string name;
    std::uint64_t intact_bytes = 0;  ///< bytes of slots the receiver verified intact
    double active_s = 0;  ///< from its scheduled start to its last completion (> 0 if it ran)
};

struct Figures {
    std::vector<double> gbps;       ///< per sender, in input order (0 if it did not run)
    std::vector<double> mib_per_s;  ///< per sender
    double aggregate_gbps = 0;      ///< all intact bytes / the longest active time
    double aggregate_mib_per_s = 0;
    std::optional<double> share_of_link;   ///< aggregate / receiver link rate, 0..1+
    std::optional<double> jain;            ///< over the senders that ran
    std::optional<double> spread_ms;       ///< longest - shortest active time of those
    std::optional<double> first_finish_s;  ///< shortest active time
    std::optional<double> last_finish_s;   ///< longest active time
};

/// Figures over `shares`; a sender with active_s <= 0 did not run and is left out of the
/// aggregate, Jain and spread. `link_gbps`: the receiver's port rate, when known.
Figures compute_figures(const std::vector<SenderShare>& shares, std::optional<double> link_gbps);

/// One sender's progress reports: (seconds since its start, bytes completed so far).
using ProgressSeries = std::vector<std::pair<double, std::uint64_t>>;

/// Aggregate Gb/s in each whole second [k, k+1) of the test, k = 0 .. seconds-1, from the
/// senders' cumulative progress (linear between reports, flat after the last).
std::vector<double> per_second_gbps(const std::vector<ProgressSeries>& senders, unsigned seconds);

}  // namespace rh::incast
