// Small inline-SVG chart primitives for the HTML report: a line chart (linear or log x, gaps for
// missing values, shaded windows, vertical marks), horizontal bars, and a heat map. Each returns
// one self-contained <svg> element (no scripts, no external references) with axes, ticks, unit
// labels and a legend; every text from the data is escaped. Hovering shows exact values through
// SVG <title> elements (no JavaScript).
#pragma once

#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace rh::accept::svg {

/// A colour of the categorical palette (cycles): i-th series.
std::string palette(std::size_t i);

/// About `target` round tick values covering [lo, hi] (steps 1, 2, 5 x 10^k).
std::vector<double> linear_ticks(double lo, double hi, int target);
/// 1, 2, 5 x 10^k values within [lo, hi] (lo > 0); only decades when there are many.
std::vector<double> log_ticks(double lo, double hi);

struct Series {
    std::string name;                                              ///< legend text
    std::string color;                                             ///< CSS colour
    std::vector<std::pair<double, std::optional<double>>> points;  ///< nullopt: a gap
    double stroke_width = 2;
    double opacity = 1;
    bool dashed = false;
    bool in_legend = true;
};

/// A shaded x range ("incast": 10..40 s).
struct Band {
    double x0 = 0, x1 = 0;
    std::string label;
};

/// A vertical line with a label ("link down").
struct VMark {
    double x = 0;
    std::string label;
};

struct LineChart {
    std::string title;
    int width = 540, plot_height = 220;
    std::string x_label, x_unit, y_label, y_unit;  ///< axis labels read "label (unit)"
    bool x_log = false;
    std::optional<double> x_min, x_max, y_min, y_max;  ///< default: from the data
    std::vector<Series> series;
    std::vector<Band> bands;
    std::vector<VMark> marks;
};
std::string line_chart(const LineChart& c);

struct Bar {
    std::string label;
    std::optional<double> value;  ///< nullopt: drawn as "not measured"
    std::string color;
    std::string note;    ///< text right of the bar ("2 IBV_WC_RETRY_EXC_ERR")
    bool alert = false;  ///< note drawn in the alert colour
};

struct BarChart {
    std::string title;
    int width = 760;
    std::string value_label, unit;
    std::vector<Bar> bars;
    std::optional<double> reference;  ///< dashed vertical line (fair share, link rate)
    std::string reference_label;
    std::optional<double> max;  ///< axis end; default from the data and reference
};
std::string bar_chart(const BarChart& c);

/// Colours run from the lowest value (pale) to the highest or 1.5 x the lowest, whichever is
/// larger (dark red): pairs within a few percent of each other stay pale, an outlier stands out.
struct HeatMap {
    std::string title;
    std::string row_label, col_label, unit;  ///< "source", "destination", "µs"
    std::vector<std::string> rows, cols;
    std::vector<std::vector<std::optional<double>>> values;  ///< [row][col]; nullopt: no data
};
std::string heat_map(const HeatMap& h);

}  // namespace rh::accept::svg
