#include "rules/joblog/log_causes.h"

#include <algorithm>
#include <cstring>

namespace rh::joblog_rules {

namespace {

std::string with_commas(std::uint64_t v) {
    std::string s = std::to_string(v);
    for (int i = static_cast<int>(s.size()) - 3; i > 0; i -= 3) s.insert(i, ",");
    return s;
}

std::string where(const Labels& l) {
    std::string out;
    const auto d = l.find("device"), p = l.find("port"), n = l.find("netdev");
    if (d != l.end()) out = d->second + (p != l.end() ? " port " + p->second : "");
    if (n != l.end()) out += (out.empty() ? "" : " (") + n->second + (out.empty() ? "" : ")");
    return out;
}

bool in_window(double t, const Window& w) {
    return w.whole || (t >= w.from && t <= w.to);
}

}  // namespace

void counter_rises(const SeriesStore& store, const std::string& host,
                   std::initializer_list<const char*> series, const Window& w, const char* kind,
                   std::vector<Cause>& out) {
    for (const char* name : series)
        for (const Series* s : store.find(name)) {
            if (s->key.host != host || s->kind != SampleKind::counter) continue;
            // From the last point at or before the window's start (else the first) to the
            // first point at or after its end (else the last): the captures that bracket it.
            // Captures taken only after the error bracket nothing; their rise over the whole
            // data is cited as "still rising after".
            std::optional<Point> first, last, a, b;
            for (std::size_t i = 0; i < s->points.size(); ++i) {
                const Point p = s->points[i];
                if (!p.count()) continue;
                if (!first) first = p;
                last = p;
                if (!w.whole && p.t <= w.from) a = p;
                if (!w.whole && p.t >= w.to && !b) b = p;
            }
            if (!first) continue;
            if (!a) a = first;
            if (!b) b = last;
            std::string after;
            if (b->t <= a->t || *b->count() <= *a->count()) {
                if (w.whole || last->t <= first->t) continue;
                a = first;
                b = last;
                after = " (captures after the error: still rising)";
            }
            if (s->meta(*a).segment != s->meta(*b).segment) continue;
            if (*b->count() <= *a->count()) continue;
            Cause c;
            c.kind = kind;
            c.host = host;
            c.what = std::string(name) + " +" + with_commas(*b->count() - *a->count()) + " on " +
                     host + " " + where(s->key.labels) + after;
            c.source = s->meta(*b).source;
            out.push_back(std::move(c));
        }
}

void findings_of(const EngineResult& result, const std::string& host,
                 std::initializer_list<const char*> rule_ids, const Window& w, const char* kind,
                 std::vector<Cause>& out) {
    for (const Finding& f : result.findings) {
        if (f.host != host) continue;
        if (std::none_of(rule_ids.begin(), rule_ids.end(),
                         [&](const char* id) { return f.rule_id == id; }))
            continue;
        // Held within the window: opened before its end and not closed before its start.
        if (!w.whole && (f.opened_t > w.to + 1 || (f.closed_t > 0 && f.closed_t < w.from)))
            continue;
        Cause c;
        c.kind = kind;
        c.host = host;
        c.what = f.rule_id + " on " + host + ": " + f.summary;
        c.source = f.evidence.empty() ? std::string{} : f.evidence.front().source;
        out.push_back(std::move(c));
    }
}

void events_of(const std::vector<SeriesStore::PlacedLogEvent>& events, const std::string& host,
               std::initializer_list<const char*> kinds, const Window& w, const char* kind,
               std::vector<Cause>& out) {
    for (const auto& e : events) {
        if (e.host != host) continue;
        if (std::none_of(kinds.begin(), kinds.end(),
                         [&](const char* k) { return e.event.kind == k; }))
            continue;
        if (e.timed && !in_window(e.t, w)) continue;
        Cause c;
        c.kind = kind;
        c.host = host;
        c.what = host + ": " + e.event.text;
        c.source = e.event.source;
        out.push_back(std::move(c));
    }
}

bool restarted(const SeriesStore& store, const std::string& host, std::string& source) {
    for (const Series* s : store.find("uptime_s")) {
        if (s->key.host != host) continue;
        for (std::size_t i = 1; i < s->points.size(); ++i) {
            const auto a = s->points[i - 1].value(), b = s->points[i].value();
            if (a && b && *b < *a) {
                source = s->meta(s->points[i]).source;
                return true;
            }
        }
    }
    return false;
}

}  // namespace rh::joblog_rules
