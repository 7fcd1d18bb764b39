#include "store/series_store.h"

#include <algorithm>
#include <limits>

#include "core/inventory/inventory.h"
#include "store/counter_delta.h"

namespace rh {

double engine_time(const Sample& s) {
    return s.wall_ms != 0 ? static_cast<double>(s.wall_ms) / 1000.0 : s.t_s;
}

namespace {

/// Keeps `times` sorted and unique, and drops times older than newest - retention. Counts in
/// `inserted` a time added before the newest.
void note_pass_time(std::vector<double>& times, double t, double retention_s,
                    std::size_t& inserted) {
    const auto it = std::lower_bound(times.begin(), times.end(), t);
    if (it == times.end() || *it != t) {
        if (it != times.end()) ++inserted;
        times.insert(it, t);
    }
    const double oldest = times.back() - retention_s;
    const auto keep = std::lower_bound(times.begin(), times.end(), oldest);
    times.erase(times.begin(), keep);
}

}  // namespace

void SeriesStore::add(const Sample& s) {
    if (s.kind == SampleKind::inventory) {
        add_inventory(s);
        return;
    }
    auto it = series_.find(SeriesKeyRef{s.host, s.series, s.labels});
    if (it == series_.end()) {  // the key is copied for a new series only
        SeriesKey key{s.host, s.series, s.labels};
        it = series_.emplace(key, Series{}).first;
        Series& ser = it->second;
        ser.key = std::move(key);
        if (limits_.packed) ser.points = PointSeq(&times_[s.host]);
        ser.kind = s.kind;
        by_name_[s.series].push_back(&ser);
        auto& v = by_name_[s.series];
        std::sort(v.begin(), v.end(),
                  [](const Series* a, const Series* b) { return a->key < b->key; });
    }
    Series& ser = it->second;
    const double t = engine_time(s);
    if (!ser.points.empty() && t < ser.points.back().t) {
        ++dropped_;
        return;
    }
    if (s.wall_ms != 0) has_wall_clock_ = true;
    // Compared in place: a PointMeta (four strings) is built only for metadata not seen yet.
    auto m = std::find_if(ser.metas.begin(), ser.metas.end(), [&](const PointMeta& pm) {
        return pm.raw == s.raw && pm.source == s.source && pm.unit == s.unit &&
               pm.width_bits == s.width_bits && pm.saturates == s.saturates &&
               pm.error == s.error && pm.segment == s.segment;
    });
    if (m == ser.metas.end())
        m = ser.metas.insert(ser.metas.end(), PointMeta{s.raw, s.source, s.unit, s.width_bits,
                                                        s.saturates, s.error, s.segment});
    if (s.count || s.value) ser.ever_valued = true;
    const auto meta_index = static_cast<std::uint32_t>(m - ser.metas.begin());
    const Point p{t, s.t_s, s.count, s.value, meta_index};
    ser.points.push_back(p);
    ser.note_added(p);
    if (s.kind == SampleKind::counter && s.count) {
        bool glitch = false;  // below the last reading: keep counting from the last good one
        if (!ser.total) {
            ser.total = *s.count;
        } else if (ser.last_counted && ser.metas[ser.last_counted->second].raw == m->raw &&
                   ser.metas[ser.last_counted->second].segment == m->segment) {
            const auto d = delta_over(ser.last_counted->first, *s.count, m->width_bits,
                                      m->saturates, s.t_s - ser.last_counted_t_s);
            if (d.value) *ser.total += *d.value;  // unsigned: wraps mod 2^64 by definition
            glitch = d.kind == DeltaKind::backwards;
        }
        if (!glitch) ser.last_counted = {{*s.count, meta_index}}, ser.last_counted_t_s = s.t_s;
    }
    while (!ser.points.empty() &&
           (ser.points.size() > limits_.max_points || ser.points.t_at(0) < t - limits_.retention_s))
        ser.drop_front();
    note_pass_time(pass_times_[s.host], t, limits_.retention_s, passes_inserted_);
    // The series' own table: no lookup by host name per sample.
    if (TimeTable* table = ser.points.table(); table && table->size() > table->trim_at)
        trim_times(s.host, *table);
}

void SeriesStore::trim_times(const std::string& host, TimeTable& table) {
    const auto& passes = pass_times_[host];
    const double oldest = passes.empty() ? -std::numeric_limits<double>::infinity()
                                         : passes.back() - limits_.retention_s;
    std::uint64_t keep = table.end();
    static const std::string kFirstName;  // keys order by host first: the host's range
    static const Labels kFirstLabels;
    for (auto it = series_.lower_bound(SeriesKeyRef{host, kFirstName, kFirstLabels});
         it != series_.end() && it->first.host == host; ++it) {
        Series& ser = it->second;
        while (!ser.points.empty() && ser.points.t_at(0) < oldest) ser.drop_front();
        if (!ser.points.empty()) keep = std::min(keep, ser.points.front_time());
    }
    table.drop_before(keep);
    table.trim_at = std::max<std::size_t>(1024, 2 * table.size());
}

std::size_t SeriesStore::point_bytes() const {
    std::size_t n = 0;
    for (const auto& [_, ser] : series_) n += ser.points.bytes();
    for (const auto& [_, table] : times_) n += table.bytes();
    return n;
}

void Series::drop_front() {
    note_dropped();
    points.pop_front();
}

void Series::note_added(const Point& p) {
    const auto v = p.value();
    if (!v || !change_known_ || change_) return;
    const std::uint64_t index = dropped_ + points.size() - 1;
    if (!first_valued_) {
        first_valued_ = index;
        first_value_ = *v;
    } else if (*v != first_value_) {
        change_ = index;
    }
}

void Series::note_dropped() {
    if (first_valued_ && *first_valued_ == dropped_) change_known_ = false;  // search again
    ++dropped_;
}

PointSeq::const_iterator Series::first_value_change() const {
    if (!change_known_) {
        first_valued_.reset();
        change_.reset();
        for (std::size_t i = 0; i < points.size() && !change_; ++i) {
            const auto v = points[i].value();
            if (!v) continue;
            if (!first_valued_) {
                first_valued_ = dropped_ + i;
                first_value_ = *v;
            } else if (*v != first_value_) {
                change_ = dropped_ + i;
            }
        }
        change_known_ = true;
    }
    return change_ ? points.begin() + static_cast<std::ptrdiff_t>(*change_ - dropped_)
                   : points.end();
}

void SeriesStore::add_log_event(PlacedLogEvent e) {
    const auto at = std::upper_bound(log_events_.begin(), log_events_.end(), e.t,
                                     [](double t, const PlacedLogEvent& x) { return t < x.t; });
    log_events_.insert(at, std::move(e));
}

void SeriesStore::add_inventory(const Sample& s) {
    const double t = engine_time(s);
    auto& inv = inventories_[s.host];
    if (inv.generation == 0 || t >= inv.t) {
        inv =
            Inventory{t, s.inventory, s.inventory ? std::string() : s.error, ++inventories_added_};
        if (inv.snapshot && inv.snapshot->host.empty()) {  // facts that do not name their host
            auto named = std::make_shared<Snapshot>(*inv.snapshot);
            named->host = s.host;
            inv.snapshot = std::move(named);
        }
        if (!inv.snapshot && inv.error.empty()) inv.error = "inventory sample without facts";
    }
    if (s.wall_ms != 0) has_wall_clock_ = true;
    note_pass_time(pass_times_[s.host], t, limits_.retention_s, passes_inserted_);
}

const std::vector<const Series*>& SeriesStore::find(const std::string& series) const {
    static const std::vector<const Series*> kNone;
    const auto it = by_name_.find(series);
    return it == by_name_.end() ? kNone : it->second;
}

const Series* SeriesStore::get(const SeriesKey& key) const {
    const auto it = series_.find(key);
    return it == series_.end() ? nullptr : &it->second;
}

std::vector<std::string> SeriesStore::hosts() const {
    std::vector<std::string> out;
    for (const auto& [h, _] : pass_times_) out.push_back(h);
    return out;
}

const std::vector<double>& SeriesStore::pass_times(const std::string& host) const {
    static const std::vector<double> kNone;
    const auto it = pass_times_.find(host);
    return it == pass_times_.end() ? kNone : it->second;
}

}  // namespace rh
