// The report's pictures, built from its results with the SVG primitives (svg.h): latency CDFs
// per message size, pairwise latency heat maps, throughput and incast bars, counter timelines.
// Each function returns finished <svg> elements (empty when there is nothing to draw).
#pragma once

#include <string>
#include <vector>

#include "agent/accept/report_model.h"

namespace rh::accept {

/// One chart per message size, x = latency (µs, log), y = fraction of messages: a thick line per
/// op pooling all pairs (each pair weighted by its iterations) and a thin line per pair. A pair
/// without a CDF is drawn through min/p50/p99/p99.9/max. Failed phases are left out.
std::vector<std::string> latency_cdf_charts(const IdleLatencyResults& r);

/// p99 latency from source (row) to destination (column), one map per (op, size), in
/// `hosts` order.
std::vector<std::string> latency_heat_maps(const IdleLatencyResults& r,
                                           const std::vector<std::string>& hosts);

/// Throughput per flow (Gb/s), with the link rate as reference when all flows share one.
std::string flow_bars(const std::vector<FlowResult>& flows, const std::string& title);

/// Goodput per incast sender (Gb/s) with the equal share (aggregate / senders) as reference;
/// error completions by status beside each bar.
std::string incast_bars(const IncastResults& r);

/// The stage's counter timelines, one chart per (series, unit) with a line per host and labels;
/// marks with an end shaded, the others drawn as lines. Labels shared by every line of a chart
/// go to its title. `indices` lists the timelines in each chart.
struct TimelineChart {
    std::string svg;
    std::vector<std::size_t> indices;
};
std::vector<TimelineChart> timeline_charts(const Stage& s);

}  // namespace rh::accept
