#include "agent/accept/svg.h"

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "agent/accept/text_format.h"

namespace rh::accept::svg {

namespace {

constexpr double kCharPx = 6.3;  // average advance of an 11 px sans-serif character
constexpr const char* kAlert = "#b42318";
constexpr const char* kAxis = "#555";
constexpr const char* kGrid = "#e6e6e6";

std::string num(double v) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.1f", v);
    return buf;
}

/// Code points of a UTF-8 string.
std::size_t text_length(const std::string& s) {
    std::size_t n = 0;
    for (unsigned char c : s) n += (c & 0xC0) != 0x80;
    return n;
}

/// At most `max_chars` code points, with "…" when cut.
std::string clip(const std::string& s, std::size_t max_chars) {
    if (text_length(s) <= max_chars) return s;
    std::size_t n = 0, i = 0;
    for (; i < s.size(); ++i) {
        if ((static_cast<unsigned char>(s[i]) & 0xC0) != 0x80 && n++ == max_chars - 1) break;
    }
    return s.substr(0, i) + "\xE2\x80\xA6";
}

std::string text(double x, double y, const std::string& s, const std::string& attrs = "") {
    return "<text x=\"" + num(x) + "\" y=\"" + num(y) + "\"" + (attrs.empty() ? "" : " " + attrs) +
           ">" + html_escape(s) + "</text>";
}

std::string line(double x1, double y1, double x2, double y2, const std::string& stroke,
                 const std::string& extra = "") {
    return "<line x1=\"" + num(x1) + "\" y1=\"" + num(y1) + "\" x2=\"" + num(x2) + "\" y2=\"" +
           num(y2) + "\" stroke=\"" + stroke + "\"" + (extra.empty() ? "" : " " + extra) + "/>";
}

std::string rect(double x, double y, double w, double h, const std::string& fill,
                 const std::string& extra = "") {
    return "<rect x=\"" + num(x) + "\" y=\"" + num(y) + "\" width=\"" + num(std::max(0.0, w)) +
           "\" height=\"" + num(std::max(0.0, h)) + "\" fill=\"" + fill + "\"" +
           (extra.empty() ? "" : " " + extra) + "/>";
}

std::string open_svg(int width, double height, const std::string& title) {
    return "<svg xmlns=\"http://www.w3.org/2000/svg\" class=\"chart\" width=\"" +
           std::to_string(width) + "\" height=\"" + num(height) + "\" viewBox=\"0 0 " +
           std::to_string(width) + " " + num(height) + "\" role=\"img\" aria-label=\"" +
           html_escape(title) +
           "\" font-family=\"DejaVu Sans, Helvetica, Arial, sans-serif\" font-size=\"11\">"
           "<title>" +
           html_escape(title) + "</title>" +
           text(4, 15, title, "font-size=\"13\" font-weight=\"600\"");
}

std::string axis_title(const std::string& label, const std::string& unit) {
    return unit.empty() ? label : label + " (" + unit + ")";
}

/// Tick label: round numbers without trailing zeros, "k"/"M" for large ones.
std::string tick_text(double v) {
    const double a = std::fabs(v);
    if (a >= 1e6) return sig3(v / 1e6) + "M";
    if (a >= 1e4) return sig3(v / 1e3) + "k";
    return trim_zeros(sig3(v));
}

/// Maps data to pixels along one axis.
struct Scale {
    double lo = 0, hi = 1, p0 = 0, p1 = 1;
    bool log = false;
    double at(double v) const {
        const double a = log ? std::log10(lo) : lo, b = log ? std::log10(hi) : hi;
        const double x = log ? std::log10(std::max(v, lo * 1e-3)) : v;
        return b == a ? p0 : p0 + (x - a) / (b - a) * (p1 - p0);
    }
};

double nice_step(double range, int target) {
    const double raw = range / std::max(1, target);
    const double mag = std::pow(10.0, std::floor(std::log10(raw)));
    for (double m : {1.0, 2.0, 5.0, 10.0})
        if (raw <= m * mag * 1.0000001) return m * mag;
    return 10 * mag;
}

/// Legend below the plot: colour swatch and name for each series, wrapping at `width`.
/// Returns the SVG and adds its height to `height`.
std::string legend(const std::vector<std::pair<std::string, std::string>>& items, double left,
                   double top, double width, double& height) {
    std::string out;
    double x = left, y = top + 11;
    for (const auto& [name, color] : items) {
        const std::string shown = clip(name, 48);
        const double w = 22 + kCharPx * static_cast<double>(text_length(shown)) + 14;
        if (x + w > left + width && x > left) {
            x = left;
            y += 16;
        }
        out += rect(x, y - 8, 14, 4, color) + text(x + 20, y - 3, shown, "fill=\"#333\"");
        x += w;
    }
    height = items.empty() ? 0 : y - top + 6;
    return out;
}

}  // namespace

std::string palette(std::size_t i) {
    static const char* colors[] = {"#1f77b4", "#d62728", "#2ca02c", "#9467bd", "#ff7f0e",
                                   "#17becf", "#8c564b", "#e377c2", "#7f7f7f", "#bcbd22"};
    return colors[i % (sizeof colors / sizeof colors[0])];
}

std::vector<double> linear_ticks(double lo, double hi, int target) {
    std::vector<double> out;
    if (!(hi > lo)) return {lo};
    const double step = nice_step(hi - lo, target);
    for (double v = std::ceil(lo / step - 1e-9) * step; v <= hi + step * 1e-9; v += step)
        out.push_back(std::fabs(v) < step * 1e-9 ? 0 : v);
    return out;
}

std::vector<double> log_ticks(double lo, double hi) {
    std::vector<double> out;
    if (!(lo > 0) || !(hi > lo)) return {lo};
    const bool decades_only = std::log10(hi / lo) > 3;
    for (double d = std::pow(10.0, std::floor(std::log10(lo))); d <= hi * 1.0000001; d *= 10)
        for (double m : {1.0, 2.0, 5.0}) {
            if (decades_only && m != 1.0) continue;
            const double v = d * m;
            if (v >= lo * 0.9999999 && v <= hi * 1.0000001) out.push_back(v);
        }
    return out;
}

namespace {

/// Data range of a line chart: its points, bands and marks, then the chart's fixed limits.
struct Extent {
    double xlo = INFINITY, xhi = -INFINITY, ylo = INFINITY, yhi = -INFINITY;
    bool empty = false;  // no y value at all
};

Extent data_extent(const LineChart& c) {
    Extent e;
    for (const auto& s : c.series)
        for (const auto& [x, y] : s.points) {
            if (c.x_log && x <= 0) continue;
            e.xlo = std::min(e.xlo, x);
            e.xhi = std::max(e.xhi, x);
            if (y) {
                e.ylo = std::min(e.ylo, *y);
                e.yhi = std::max(e.yhi, *y);
            }
        }
    for (const auto& b : c.bands) e.xlo = std::min(e.xlo, b.x0), e.xhi = std::max(e.xhi, b.x1);
    for (const auto& m : c.marks) e.xlo = std::min(e.xlo, m.x), e.xhi = std::max(e.xhi, m.x);
    e.empty = !(e.yhi >= e.ylo);
    if (c.x_min) e.xlo = *c.x_min;
    if (c.x_max) e.xhi = *c.x_max;
    if (!(e.xhi >= e.xlo)) e.xlo = 0, e.xhi = 1;
    if (e.empty) e.ylo = 0, e.yhi = 1;
    if (!c.y_min)
        e.ylo = std::min(0.0, e.ylo);
    else
        e.ylo = *c.y_min;
    if (c.y_max) e.yhi = *c.y_max;
    if (e.yhi <= e.ylo) e.yhi = e.ylo + 1;
    return e;
}

/// The x axis from `x0` to `x1` px and its ticks; without fixed limits the ends are widened to
/// tick values so they carry labels.
Scale x_scale(const LineChart& c, const Extent& e, double x0, double x1,
              std::vector<double>& ticks) {
    Scale sx{e.xlo, e.xhi, x0, x1, c.x_log};
    if (c.x_log) {
        sx.lo = std::max(e.xlo, 1e-9);
        // Widen to the nearest 1-2-5 values so the ends carry labels.
        const auto lower = log_ticks(std::pow(10.0, std::floor(std::log10(sx.lo))), sx.lo);
        if (!lower.empty()) sx.lo = lower.back();
        for (double v : log_ticks(sx.hi, std::pow(10.0, std::ceil(std::log10(sx.hi)) + 1)))
            if (v >= sx.hi) {
                sx.hi = v;
                break;
            }
        if (sx.hi <= sx.lo) sx.hi = sx.lo * 10;
        ticks = log_ticks(sx.lo, sx.hi);
        return sx;
    }
    if (!c.x_min && !c.x_max) {
        const double step = nice_step(e.xhi - e.xlo > 0 ? e.xhi - e.xlo : 1, 8);
        sx.lo = std::floor(e.xlo / step) * step;
        sx.hi = std::ceil(e.xhi / step) * step;
        if (sx.hi <= sx.lo) sx.hi = sx.lo + step;
    }
    ticks = linear_ticks(sx.lo, sx.hi, 8);
    return sx;
}

/// The y axis from `y1` (bottom) up to `y0` px; without a fixed maximum the top is the next tick
/// above the data.
Scale y_scale(const LineChart& c, const Extent& e, double y1, double y0) {
    Scale sy{e.ylo, e.yhi, y1, y0, false};
    if (!c.y_max) {
        const double step = nice_step(e.yhi - e.ylo, 5);
        sy.hi = std::ceil(e.yhi / step - 1e-9) * step;
        if (sy.hi <= e.yhi - 1e-12 || sy.hi == e.ylo) sy.hi += step;
    }
    return sy;
}

std::vector<std::pair<std::string, std::string>> legend_items(const LineChart& c) {
    std::vector<std::pair<std::string, std::string>> items;
    for (const auto& s : c.series)
        if (s.in_legend) items.emplace_back(s.name, s.color);
    for (const auto& b : c.bands)
        if (!b.label.empty()) items.emplace_back(b.label, "#f5c77e");
    return items;
}

/// Plot area corners in px: (x0, y0) top left, (x1, y1) bottom right.
struct Plot {
    double x0, y0, x1, y1;
};

/// Grid lines, ticks, both axes and their titles.
std::string axes_svg(const LineChart& c, const Plot& p, const Scale& sx, const Scale& sy,
                     const std::vector<double>& xt) {
    std::string o;
    for (double v : linear_ticks(sy.lo, sy.hi, 5)) {
        const double y = sy.at(v);
        o += line(p.x0, y, p.x1, y, kGrid) + line(p.x0 - 4, y, p.x0, y, kAxis) +
             text(p.x0 - 7, y + 4, tick_text(v), "text-anchor=\"end\" fill=\"#333\"");
    }
    for (double v : xt) {
        const double x = sx.at(v);
        o += line(x, p.y0, x, p.y1, kGrid) + line(x, p.y1, x, p.y1 + 4, kAxis) +
             text(x, p.y1 + 16, tick_text(v), "text-anchor=\"middle\" fill=\"#333\"");
    }
    o += line(p.x0, p.y1, p.x1, p.y1, kAxis) + line(p.x0, p.y0, p.x0, p.y1, kAxis);
    o += text((p.x0 + p.x1) / 2, p.y1 + 32, axis_title(c.x_label, c.x_unit),
              "text-anchor=\"middle\" fill=\"#333\"");
    o += "<text transform=\"translate(14," + num((p.y0 + p.y1) / 2) +
         ") rotate(-90)\" text-anchor=\"middle\" fill=\"#333\">" +
         html_escape(axis_title(c.y_label, c.y_unit)) + "</text>";
    return o;
}

/// Dashed vertical marks with their labels; marks outside the plot are left out.
std::string marks_svg(const LineChart& c, const Plot& p, const Scale& sx) {
    std::string o;
    for (const auto& m : c.marks) {
        const double x = sx.at(m.x);
        if (x < p.x0 - 0.5 || x > p.x1 + 0.5) continue;
        // A mark in the right half is labelled to its left, so the text stays inside the chart.
        const bool left = x > (p.x0 + p.x1) / 2;
        o += line(x, p.y0, x, p.y1, "#333", "stroke-dasharray=\"4 3\"") +
             text(left ? x - 3 : x + 3, p.y0 + 11, m.label,
                  std::string(left ? "text-anchor=\"end\" " : "") +
                      "fill=\"#333\" font-size=\"10\"");
    }
    return o;
}

/// One series as a path broken at missing values, with a dot for each isolated value; empty when
/// the series has no value to draw.
std::string series_svg(const LineChart& c, const Series& s, const Scale& sx, const Scale& sy) {
    std::string d;
    std::string dots;
    bool pen = false;
    for (std::size_t i = 0; i < s.points.size(); ++i) {
        const auto& [x, y] = s.points[i];
        if (!y || (c.x_log && x <= 0)) {
            pen = false;
            continue;
        }
        const double px = sx.at(x), py = sy.at(std::clamp(*y, sy.lo, sy.hi));
        d += (pen ? "L" : "M") + num(px) + " " + num(py) + " ";
        const bool next_gap = i + 1 >= s.points.size() || !s.points[i + 1].second;
        if (!pen && next_gap)  // an isolated value: a dot, or it would not show
            dots += "<circle cx=\"" + num(px) + "\" cy=\"" + num(py) + "\" r=\"2.5\" fill=\"" +
                    s.color + "\"/>";
        pen = true;
    }
    if (d.empty()) return "";
    return "<path d=\"" + d + "\" fill=\"none\" stroke=\"" + s.color + "\" stroke-width=\"" +
           num(s.stroke_width) + "\" stroke-linejoin=\"round\"" +
           (s.opacity < 1 ? " stroke-opacity=\"" + num(s.opacity) + "\"" : "") +
           (s.dashed ? " stroke-dasharray=\"6 4\"" : "") + "><title>" + html_escape(s.name) +
           "</title></path>" + dots;
}

}  // namespace

std::string line_chart(const LineChart& c) {
    const double ml = 62, mr = 18, mt = 30, axis_below = 40;
    const Plot p{ml, mt, c.width - mr, mt + c.plot_height};

    const Extent e = data_extent(c);
    std::vector<double> xt;
    const Scale sx = x_scale(c, e, p.x0, p.x1, xt);
    const Scale sy = y_scale(c, e, p.y1, p.y0);

    double legend_h = 0;
    const std::string legend_svg =
        legend(legend_items(c), p.x0, p.y1 + axis_below, p.x1 - p.x0, legend_h);
    const double height = p.y1 + axis_below + legend_h + 4;

    std::string o = open_svg(c.width, height, c.title);
    for (const auto& b : c.bands) {
        const double a = std::clamp(sx.at(b.x0), p.x0, p.x1);
        const double z = std::clamp(sx.at(b.x1), p.x0, p.x1);
        o += rect(a, p.y0, z - a, p.y1 - p.y0, "#f5c77e", "opacity=\"0.35\"");
    }
    o += axes_svg(c, p, sx, sy, xt) + marks_svg(c, p, sx);
    if (e.empty)
        o += text((p.x0 + p.x1) / 2, (p.y0 + p.y1) / 2, "no data",
                  "text-anchor=\"middle\" fill=\"#888\"");
    for (const auto& s : c.series) o += series_svg(c, s, sx, sy);
    o += legend_svg + "</svg>";
    return o;
}

std::string bar_chart(const BarChart& c) {
    std::size_t longest = 4, longest_note = 0;
    double vmax = c.reference.value_or(0);
    for (const auto& b : c.bars) {
        longest = std::max(longest, text_length(clip(b.label, 28)));
        longest_note = std::max(longest_note, text_length(clip(b.note, 44)));
        if (b.value) vmax = std::max(vmax, *b.value);
    }
    vmax *= 1.08;  // room for the value printed after the longest bar
    if (c.max) vmax = *c.max;
    if (vmax <= 0) vmax = 1;
    const double step = nice_step(vmax, 6);
    const double hi = std::ceil(vmax / step - 1e-9) * step;
    const double ml = 16 + kCharPx * static_cast<double>(longest);
    const double mr = 60 + kCharPx * static_cast<double>(longest_note);
    const double mt = c.reference ? 44 : 30, bar_h = 18, gap = 9;
    const double x0 = ml, x1 = c.width - mr;
    const double y1 = mt + static_cast<double>(c.bars.size()) * (bar_h + gap);
    const double height = y1 + 40;
    const Scale sx{0, hi, x0, x1, false};

    std::string o = open_svg(c.width, height, c.title);
    for (double v : linear_ticks(0, hi, 6)) {
        const double x = sx.at(v);
        o += line(x, mt - 4, x, y1, kGrid) + line(x, y1, x, y1 + 4, kAxis) +
             text(x, y1 + 16, tick_text(v), "text-anchor=\"middle\" fill=\"#333\"");
    }
    o += line(x0, y1, x1, y1, kAxis) + line(x0, mt - 4, x0, y1, kAxis);
    o += text((x0 + x1) / 2, y1 + 32, axis_title(c.value_label, c.unit),
              "text-anchor=\"middle\" fill=\"#333\"");
    if (c.reference) {
        const double x = sx.at(*c.reference);
        o += line(x, mt - 10, x, y1, "#333", "stroke-dasharray=\"5 3\" stroke-width=\"1.5\"") +
             text(x, mt - 14, c.reference_label, "text-anchor=\"middle\" fill=\"#333\"");
    }
    double y = mt;
    for (const auto& b : c.bars) {
        o += "<g><title>" +
             html_escape(b.label + ": " +
                         (b.value ? sig3(*b.value) + " " + c.unit : std::string("not measured")) +
                         (b.note.empty() ? "" : "; " + b.note)) +
             "</title>";
        o += text(x0 - 6, y + 13, clip(b.label, 28), "text-anchor=\"end\" fill=\"#222\"");
        if (b.value) {
            const double w = sx.at(std::min(*b.value, hi)) - x0;
            o += rect(x0, y, w, bar_h, b.color.empty() ? palette(0) : b.color);
            o += text(x0 + w + 4, y + 13, sig3(*b.value),
                      "fill=\"#222\" stroke=\"#fff\" stroke-width=\"3\" paint-order=\"stroke\"");
        } else {
            o += text(x0 + 4, y + 13, "not measured", "fill=\"#888\" font-style=\"italic\"");
        }
        if (!b.note.empty())
            o += text(x1 + 48, y + 13, clip(b.note, 44),
                      std::string("fill=\"") + (b.alert ? kAlert : "#333") + "\"");
        o += "</g>";
        y += bar_h + gap;
    }
    o += "</svg>";
    return o;
}

namespace {

/// Colour of `v` on a light yellow -> orange -> dark red ramp from `lo` to `hi`.
std::string heat_colour(double v, double lo, double hi) {
    const double t = hi > lo ? (v - lo) / (hi - lo) : 0.0;
    const double stops[3][3] = {{255, 247, 214}, {253, 141, 60}, {165, 15, 21}};
    const int k = t < 0.5 ? 0 : 1;
    const double u = t < 0.5 ? t * 2 : (t - 0.5) * 2;
    char buf[16];
    std::snprintf(buf, sizeof buf, "#%02x%02x%02x",
                  static_cast<int>(stops[k][0] + (stops[k + 1][0] - stops[k][0]) * u),
                  static_cast<int>(stops[k][1] + (stops[k + 1][1] - stops[k][1]) * u),
                  static_cast<int>(stops[k][2] + (stops[k + 1][2] - stops[k][2]) * u));
    return buf;
}

/// Layout of a heat map in px: the grid's top left corner and its cell size.
struct HeatGrid {
    double x0, y0, cell;
    double lo, hi;  // colour range
};

/// Column labels (slanted, above the grid) and both axis titles.
std::string heat_labels(const HeatMap& h, const HeatGrid& g, double y1) {
    std::string o = text(g.x0, 30, h.col_label + " \xE2\x86\x92", "fill=\"#555\" font-size=\"10\"");
    for (std::size_t c = 0; c < h.cols.size(); ++c) {
        const double x = g.x0 + g.cell * (static_cast<double>(c) + 0.5);
        o += "<text transform=\"translate(" + num(x + 3) + "," + num(g.y0 - 6) +
             ") rotate(-35)\" fill=\"#222\">" + html_escape(clip(h.cols[c], 20)) + "<title>" +
             html_escape(h.cols[c]) + "</title></text>";
    }
    o += "<text transform=\"translate(12," + num((g.y0 + y1) / 2) +
         ") rotate(-90)\" text-anchor=\"middle\" fill=\"#555\" font-size=\"10\">" +
         html_escape(h.row_label + " \xE2\x86\x92") + "</text>";
    return o;
}

/// One cell with its tooltip; its value is printed when the cell is large enough.
std::string heat_cell(const HeatMap& h, const HeatGrid& g, std::size_t r, std::size_t c) {
    const double x = g.x0 + g.cell * static_cast<double>(c);
    const double y = g.y0 + g.cell * static_cast<double>(r);
    const double cell = g.cell;
    const std::optional<double>* cellv =
        r < h.values.size() && c < h.values[r].size() ? &h.values[r][c] : nullptr;
    const double* v = cellv && cellv->has_value() ? &**cellv : nullptr;
    const std::string tip = h.rows[r] + " \xE2\x86\x92 " + h.cols[c] + ": " +
                            (v ? sig3(*v) + " " + h.unit : std::string("no data"));
    std::string o = "<g><title>" + html_escape(tip) + "</title>";
    o += rect(x, y, cell - 1, cell - 1, v ? heat_colour(*v, g.lo, g.hi) : "#f1f1f1");
    if (v && cell >= 30) {
        const double t = g.hi > g.lo ? (*v - g.lo) / (g.hi - g.lo) : 0.0;
        std::string attrs = "text-anchor=\"middle\" font-size=\"10\" fill=\"";
        attrs += t > 0.6 ? "#fff\"" : "#222\"";
        o += text(x + cell / 2, y + cell / 2 + 4, sig3(*v), attrs);
    } else if (!v && cell >= 20) {
        o += text(x + cell / 2, y + cell / 2 + 4, "\xE2\x80\x93",
                  "text-anchor=\"middle\" fill=\"#aaa\"");
    }
    return o + "</g>";
}

/// Scale below the grid at `y` px: three swatches, lowest to top of the colour range.
std::string heat_scale(const HeatMap& h, const HeatGrid& g, double y) {
    std::string o;
    double x = 12;
    for (int i = 0; i < 3; ++i) {
        const double v = g.lo + (g.hi - g.lo) * i / 2.0;
        o += rect(x, y, 14, 10, heat_colour(v, g.lo, g.hi)) +
             text(x + 17, y + 9, sig3(v), "fill=\"#333\" font-size=\"10\"");
        x += 22 + kCharPx * static_cast<double>(sig3(v).size());
    }
    return o + text(x + 2, y + 9, h.unit, "fill=\"#555\" font-size=\"10\"");
}

}  // namespace

std::string heat_map(const HeatMap& h) {
    double lo = INFINITY, hi = -INFINITY;
    for (const auto& row : h.values)
        for (const auto& v : row)
            if (v) lo = std::min(lo, *v), hi = std::max(hi, *v);
    const bool any = hi >= lo;
    if (any) hi = std::max(hi, lo > 0 ? lo * 1.5 : hi);
    std::size_t longest_row = 3, longest_col = 3;
    for (const auto& r : h.rows) longest_row = std::max(longest_row, text_length(clip(r, 20)));
    for (const auto& c : h.cols) longest_col = std::max(longest_col, text_length(clip(c, 20)));
    const std::size_t n = std::max<std::size_t>({h.rows.size(), h.cols.size(), 1});
    const double cell = std::clamp(300.0 / static_cast<double>(n), 12.0, 52.0);
    const double ml = 30 + kCharPx * static_cast<double>(longest_row);
    const double mt = 40 + kCharPx * static_cast<double>(longest_col) * 0.6;
    const HeatGrid g{ml, mt, cell, lo, hi};
    const double x1 = g.x0 + cell * static_cast<double>(h.cols.size());
    const double y1 = g.y0 + cell * static_cast<double>(h.rows.size());
    const double width = std::max(x1 + 20, 250.0);
    const double height = y1 + 44;

    std::string o = open_svg(static_cast<int>(width), height, h.title) + heat_labels(h, g, y1);
    for (std::size_t r = 0; r < h.rows.size(); ++r) {
        o += text(g.x0 - 6, g.y0 + cell * static_cast<double>(r) + cell / 2 + 4,
                  clip(h.rows[r], 20), "text-anchor=\"end\" fill=\"#222\"");
        for (std::size_t c = 0; c < h.cols.size(); ++c) o += heat_cell(h, g, r, c);
    }
    if (any) o += heat_scale(h, g, y1 + 14);
    o += "</svg>";
    return o;
}

}  // namespace rh::accept::svg
