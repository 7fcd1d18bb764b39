#include "agent/accept/report_charts.h"

#include <algorithm>
#include <map>
#include <set>

#include "agent/accept/svg.h"
#include "agent/accept/text_format.h"

namespace rh::accept {

namespace {

using Cdf = std::vector<std::pair<double, double>>;

/// The measured CDF, or one through the reported percentiles.
Cdf cdf_of(const LatencyResult& l) {
    if (!l.cdf.empty()) return l.cdf;
    Cdf c;
    const std::pair<std::optional<double>, double> pts[] = {
        {l.min_us, 0.0}, {l.p50_us, 0.5}, {l.p99_us, 0.99}, {l.p999_us, 0.999}, {l.max_us, 1.0}};
    for (const auto& [us, f] : pts)
        if (us && (c.empty() || *us >= c.back().first)) c.emplace_back(*us, f);
    return c;
}

/// F(x) of a piecewise-linear CDF: 0 before its first point, 1 after its last.
double cdf_at(const Cdf& c, double x) {
    if (c.empty() || x < c.front().first) return 0;
    if (x >= c.back().first) return 1;
    const auto it = std::upper_bound(c.begin(), c.end(), x,
                                     [](double v, const auto& p) { return v < p.first; });
    const auto& [x1, f1] = *it;
    const auto& [x0, f0] = *(it - 1);
    return x1 == x0 ? f1 : f0 + (f1 - f0) * (x - x0) / (x1 - x0);
}

svg::Series cdf_series(const Cdf& c) {
    svg::Series s;
    for (const auto& [us, f] : c) s.points.emplace_back(us, f);
    return s;
}

std::vector<std::string> ops_in(const IdleLatencyResults& r) {
    std::vector<std::string> ops;
    for (const char* op : {"write", "read", "send"})
        for (const auto& l : r.latency)
            if (l.op == op) {
                ops.emplace_back(op);
                break;
            }
    return ops;
}

}  // namespace

std::vector<std::string> latency_cdf_charts(const IdleLatencyResults& r) {
    std::set<std::uint64_t> sizes;
    for (const auto& l : r.latency) sizes.insert(l.size_bytes);
    const auto ops = ops_in(r);
    std::vector<std::string> out;
    for (std::uint64_t size : sizes) {
        svg::LineChart c;
        c.width = 520;
        c.title = "Latency CDF, " + size_text(size) + " messages, all pairs";
        c.x_label = "latency";
        c.x_unit = "µs, log scale";
        c.y_label = "fraction of messages";
        c.x_log = true;
        c.y_min = 0;
        c.y_max = 1;
        for (std::size_t oi = 0; oi < ops.size(); ++oi) {
            const std::string color = svg::palette(oi);
            std::vector<std::pair<Cdf, double>> pairs;  // CDF, weight
            std::set<double> xs;
            for (const auto& l : r.latency) {
                if (l.size_bytes != size || l.op != ops[oi] || !l.error.empty()) continue;
                Cdf cdf = cdf_of(l);
                if (cdf.empty()) continue;
                for (const auto& p : cdf) xs.insert(p.first);
                svg::Series thin = cdf_series(cdf);
                thin.name = l.src + " \xE2\x86\x92 " + l.dst + " " + l.op;
                thin.color = color;
                thin.stroke_width = 1;
                thin.opacity = 0.35;
                thin.in_legend = false;
                c.series.push_back(std::move(thin));
                pairs.emplace_back(std::move(cdf), l.iterations > 0 ? double(l.iterations) : 1.0);
            }
            if (pairs.empty()) continue;
            double total = 0;
            for (const auto& p : pairs) total += p.second;
            svg::Series pooled;
            pooled.name = ops[oi] + " (" + std::to_string(pairs.size()) + " pairs pooled)";
            pooled.color = color;
            pooled.stroke_width = 2.5;
            for (double x : xs) {
                double f = 0;
                for (const auto& [cdf, w] : pairs) f += w * cdf_at(cdf, x);
                pooled.points.emplace_back(x, f / total);
            }
            c.series.push_back(std::move(pooled));
        }
        out.push_back(svg::line_chart(c));
    }
    return out;
}

std::vector<std::string> latency_heat_maps(const IdleLatencyResults& r,
                                           const std::vector<std::string>& hosts) {
    std::set<std::uint64_t> sizes;
    for (const auto& l : r.latency) sizes.insert(l.size_bytes);
    std::map<std::string, std::size_t> index;
    for (std::size_t i = 0; i < hosts.size(); ++i) index[hosts[i]] = i;
    std::vector<std::string> out;
    for (const auto& op : ops_in(r))
        for (std::uint64_t size : sizes) {
            svg::HeatMap h;
            h.title = "p99 " + op + " latency, " + size_text(size);
            h.row_label = "source";
            h.col_label = "destination";
            h.unit = "µs";
            h.rows = hosts;
            h.cols = hosts;
            h.values.assign(hosts.size(), std::vector<std::optional<double>>(hosts.size()));
            bool any = false;
            for (const auto& l : r.latency) {
                if (l.op != op || l.size_bytes != size || !index.count(l.src) ||
                    !index.count(l.dst))
                    continue;
                h.values[index[l.src]][index[l.dst]] = l.p99_us;
                any = any || l.p99_us.has_value();
            }
            if (any) out.push_back(svg::heat_map(h));
        }
    return out;
}

std::string flow_bars(const std::vector<FlowResult>& flows, const std::string& title) {
    if (flows.empty()) return "";
    svg::BarChart c;
    c.title = title;
    c.value_label = "throughput";
    c.unit = "Gb/s";
    std::set<double> links;
    for (const auto& f : flows) {
        svg::Bar b;
        b.label = f.src + " \xE2\x86\x92 " + f.dst + " " + f.op;
        b.value = f.gbps;
        b.color = svg::palette(0);
        if (f.fraction) b.note = sig3(*f.fraction * 100) + " % of link";
        if (!f.error.empty()) {
            b.note = f.error;
            b.alert = true;
        }
        if (f.link_gbps) links.insert(*f.link_gbps);
        c.bars.push_back(std::move(b));
    }
    if (links.size() == 1) {
        c.reference = *links.begin();
        c.reference_label = "link rate " + sig3(*links.begin()) + " Gb/s";
    }
    return svg::bar_chart(c);
}

std::string incast_bars(const IncastResults& r) {
    if (r.senders.empty()) return "";
    svg::BarChart c;
    c.title = "Goodput per sender into " + r.receiver + " (" + std::to_string(r.senders.size()) +
              " to 1)";
    c.value_label = "goodput";
    c.unit = "Gb/s";
    for (const auto& s : r.senders) {
        svg::Bar b;
        b.label = s.host;
        b.value = s.goodput_gbps;
        b.color = svg::palette(0);
        std::uint64_t errors = 0;
        std::string worst;
        for (const auto& [status, n] : s.errors_by_status) {
            errors += n;
            worst = status;
        }
        if (errors > 0) {
            b.note = std::to_string(errors) + " error completion" + (errors == 1 ? "" : "s") +
                     (s.errors_by_status.size() == 1 ? " (" + worst + ")" : "");
            b.alert = true;
            b.color = "#d9534f";
        } else {
            b.note = "no error completions";
        }
        c.bars.push_back(std::move(b));
    }
    if (r.aggregate_goodput_gbps) {
        c.reference = *r.aggregate_goodput_gbps / static_cast<double>(r.senders.size());
        c.reference_label = "equal share " + sig3(*c.reference) + " Gb/s";
    }
    return svg::bar_chart(c);
}

std::vector<TimelineChart> timeline_charts(const Stage& s) {
    std::vector<std::pair<std::string, std::string>> keys;  // (series, unit) in first-seen order
    std::map<std::pair<std::string, std::string>, std::vector<std::size_t>> groups;
    for (std::size_t i = 0; i < s.counter_timelines.size(); ++i) {
        const auto key = std::make_pair(s.counter_timelines[i].series, s.counter_timelines[i].unit);
        if (!groups.count(key)) keys.push_back(key);
        groups[key].push_back(i);
    }
    std::vector<TimelineChart> out;
    for (const auto& key : keys) {
        svg::LineChart c;
        c.title = key.first;
        c.width = 520;
        c.plot_height = 180;
        c.x_label = "time since the run started";
        c.x_unit = "s";
        c.y_label = key.first;
        c.y_unit = unit_text(key.second);
        for (const auto& m : s.marks) {
            if (m.end_s)
                c.bands.push_back({m.t_s, *m.end_s, m.label});
            else
                c.marks.push_back({m.t_s, m.label});
        }
        const auto& idx = groups[key];
        // Labels every line shares go to the title; the legend names what tells lines apart.
        Labels common = s.counter_timelines[idx.front()].labels;
        for (std::size_t i : idx)
            std::erase_if(common, [&](const auto& kv) {
                const auto it = s.counter_timelines[i].labels.find(kv.first);
                return it == s.counter_timelines[i].labels.end() || it->second != kv.second;
            });
        std::string shared;
        for (const auto& [k, v] : common) shared += (shared.empty() ? "" : " ") + k + "=" + v;
        if (!shared.empty()) c.title += " (" + shared + ")";
        for (std::size_t k = 0; k < idx.size(); ++k) {
            const auto& t = s.counter_timelines[idx[k]];
            svg::Series ser;
            ser.name = t.host;
            for (const auto& [lk, lv] : t.labels)
                if (!common.count(lk)) ser.name += " " + lk + "=" + lv;
            ser.color = svg::palette(k);
            ser.points = t.points;
            c.series.push_back(std::move(ser));
        }
        out.push_back({svg::line_chart(c), idx});
    }
    return out;
}

}  // namespace rh::accept
