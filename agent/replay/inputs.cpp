#include "agent/replay/inputs.h"

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <map>
#include <set>

#include "agent/replay/capture_time.h"
#include "agent/replay/host_groups.h"
#include "agent/replay/latest_facts.h"
#include "agent/replay/log_placement.h"
#include "collectors/bundle/bundle.h"
#include "collectors/bundle/restart_evidence.h"
#include "core/recording/sample_json.h"
#include "store/counter_delta.h"
#include "store/from_snapshot.h"

namespace rh {

Result<InputReport> load_recording(SeriesStore& store, const std::string& path) {
    auto rec = read_samples_file(path);
    if (!rec) return rec.error();
    InputReport r{path, rec->samples.size(), {}, rec->notes};
    // A recording is read whole, so its order does not matter: sort by engine time (stable: ties
    // keep file order). A file written out of order (reversed, concatenated captures) is then
    // analysed like the ordered one instead of losing every sample older than its predecessor.
    const auto earlier = [](const Sample& a, const Sample& b) {
        return engine_time(a) < engine_time(b);
    };
    if (!std::is_sorted(rec->samples.begin(), rec->samples.end(), earlier)) {
        std::stable_sort(rec->samples.begin(), rec->samples.end(), earlier);
        r.notes.push_back(path + ": samples were not in time order; sorted by time");
    }
    std::set<std::string> hosts;
    for (const Sample& s : rec->samples) {
        hosts.insert(s.host);
        store.add(s);
    }
    r.hosts.assign(hosts.begin(), hosts.end());
    return r;
}

namespace {

/// The fastest rate `s`'s device/port had on its host from engine time t0 to t1, Gb/s (the
/// port_rate_gbps gauge; a port that went down in between reads a low rate at the end), or
/// nullopt.
std::optional<double> port_gbps_of(const SeriesStore& store, const Series& s, double t0,
                                   double t1) {
    std::optional<double> best;
    for (const Series* r : store.find("port_rate_gbps")) {
        if (r->key.host != s.key.host) continue;
        const auto agree = [&](const char* k) {
            const auto a = r->key.labels.find(k), b = s.key.labels.find(k);
            return a == r->key.labels.end() || b == s.key.labels.end() || a->second == b->second;
        };
        if (!agree("device") || !agree("port")) continue;
        for (const Point& p : r->points)
            if (const auto v = p.value(); p.t >= t0 - 0.25 && p.t <= t1 + 0.25 && v && *v > 0)
                best = std::max(best.value_or(0), *v);
    }
    return best;
}

/// Whether the captures' spacing can be true: between two captures of a host no byte counter
/// may grow faster than its port (or than 400 Gb/s, the fastest RoCE port, when the port rate
/// is unknown) and no pause duration by more than the time that passed. A wrong --interval or
/// timestamp would otherwise scale every rate it makes (a pause "100% of the time", a healthy
/// port at 240 Gb/s) without a word. Returns what is impossible, naming the host, the two
/// captures, the counter and the spacing it needs; nullopt when everything fits. A 10 %
/// margin allows for counters read a moment apart within one capture.
std::optional<std::string> impossible_spacing(const SeriesStore& store,
                                              const std::set<std::string>& series_names,
                                              const std::vector<HostGroup>& groups,
                                              const std::vector<BundleCapture>& caps,
                                              bool from_interval) {
    constexpr double kMargin = 1.10;
    for (const std::string& name : series_names) {
        const bool duration = name.size() > 12 && name.ends_with("_duration_us");
        for (const Series* s : store.find(name)) {
            if (s->kind != SampleKind::counter) continue;
            const HostGroup* g = nullptr;
            for (const HostGroup& h : groups)
                if (h.name == s->key.host) g = &h;
            if (!g) continue;
            // Which capture a point came from: its place among the host's pass times.
            const auto& passes = store.pass_times(s->key.host);
            // The nearest pass time: captures may be closer together than any fixed slack
            // (a wrong --interval 0.001 is what this check is for).
            const auto capture_at = [&](double t) -> const std::string& {
                if (passes.empty()) return caps[g->captures.front()].dir;
                auto i = static_cast<std::size_t>(
                    std::lower_bound(passes.begin(), passes.end(), t) - passes.begin());
                if (i == passes.size() || (i > 0 && t - passes[i - 1] < passes[i] - t)) --i;
                return caps[g->captures[std::min(i, g->captures.size() - 1)]].dir;
            };
            for (std::size_t k = 1; k < s->points.size(); ++k) {
                const Point& a = s->points[k - 1];
                const Point& b = s->points[k];
                const double dt = b.t_s - a.t_s;
                const PointMeta& m = s->meta(b);
                if (dt <= 0 || s->meta(a).raw != m.raw || s->meta(a).segment != m.segment) continue;
                // As the rules count it (a reset, a wrap or an implausible step is no growth
                // to refuse the spacing for).
                const CounterDelta d = delta(a.count(), b.count(), m.width_bits, m.saturates);
                if (d.kind != DeltaKind::normal || !d.value) continue;
                const double grew = static_cast<double>(*d.value);
                double most = 0;
                char what[200];
                if (duration) {
                    most = dt * 1e6 * kMargin;
                    if (grew <= most) continue;
                    std::snprintf(what, sizeof what, "grew by %.3g s of pause in %.3g s",
                                  grew / 1e6, dt);
                } else {
                    const auto gbps = port_gbps_of(store, *s, a.t, b.t);
                    const double limit_gbps = gbps.value_or(400);
                    most = dt * limit_gbps * 1e9 / 8 * kMargin;
                    if (grew <= most) continue;
                    std::snprintf(what, sizeof what,
                                  "grew by %.3g bytes in %.3g s, i.e. %.3g Gb/s, more than %s "
                                  "%.4g Gb/s",
                                  grew, dt, grew * 8 / dt / 1e9,
                                  gbps ? "its port's" : "any RoCE port's (no port rate captured)",
                                  limit_gbps);
                }
                char need[96];
                std::snprintf(need, sizeof need, "; they must be at least %.3g s apart",
                              dt * grew / most * kMargin);
                std::string labels;
                for (const auto& [lk, lv] : s->key.labels)
                    labels += (labels.empty() ? "" : ",") + lk + "=" + lv;
                return "host " + s->key.host + ", captures " + capture_at(a.t) + " -> " +
                       capture_at(b.t) + ": " + name + (labels.empty() ? "" : "{" + labels + "}") +
                       " " + what + need + " (" +
                       (from_interval ? "--interval is too short for them"
                                      : "their `timestamp` files cannot both be right") +
                       "); rates from this spacing would be wrong";
            }
        }
    }
    return std::nullopt;
}

/// The note for a restart of host `host` between captures `prev` and `next`.
std::string restart_note_text(const std::string& host, const std::string& prev,
                              const std::string& next, const Restart& r) {
    const bool reboot = r.kind == Restart::Kind::reboot;
    return "host " + host +
           (reboot ? " rebooted"
                   : ": counters were reset (a driver reload or a counter clear; no sign of a "
                     "reboot)") +
           " between " + prev + " and " + next + " (" + r.evidence +
           "): its timeline is split there, no rate or increase is computed across it (" + next +
           " starts anew; counters kept by firmware may not have restarted)";
}

/// Whether capture directories `a` and `b` are the same capture: one directory (given twice),
/// or the same files with the same bytes (a copy). Their deltas would all be 0 and every rate
/// "healthy", so such a pair is refused. Files are compared by name and content; sub-directories
/// (a sysfs listing tree) are compared the same way.
bool same_capture(const std::string& a, const std::string& b) {
    namespace fs = std::filesystem;
    std::error_code ec;
    if (fs::equivalent(a, b, ec)) return true;
    const auto listing = [&](const std::string& root) {
        std::map<std::string, std::string> files;  // relative path -> bytes
        for (auto it = fs::recursive_directory_iterator(root, ec);
             !ec && it != fs::recursive_directory_iterator(); it.increment(ec)) {
            if (!it->is_regular_file(ec)) continue;
            std::ifstream in(it->path(), std::ios::binary);
            std::string bytes((std::istreambuf_iterator<char>(in)),
                              std::istreambuf_iterator<char>());
            files[fs::relative(it->path(), root, ec).string()] = std::move(bytes);
        }
        return files;
    };
    const auto fa = listing(a);
    return !fa.empty() && fa == listing(b);
}

/// The run's inputs read: host captures and folders of logs only, each with its index in the
/// `dirs` given.
struct ReadInputs {
    std::vector<BundleCapture> caps;
    std::vector<BundleCapture> log_caps;   ///< folders of logs only: no host's capture
    std::vector<std::size_t> input_index;  ///< caps' index in `dirs`
    std::vector<std::size_t> log_index;    ///< log_caps' index in `dirs`
    /// Folders with no file rocehealth reads (empty, or only other formats), beside host
    /// captures: they join no host. As a host's capture such a folder had no clock, so the
    /// whole host lost its spacing and every rate rule (a new user's find).
    std::vector<BundleCapture> empty_caps;
    std::vector<std::size_t> empty_index;  ///< empty_caps' index in `dirs`
};

Result<ReadInputs> read_inputs(const std::vector<std::string>& dirs) {
    ReadInputs in;
    for (std::size_t i = 0; i < dirs.size(); ++i) {
        auto c = import_bundle_dir(dirs[i]);
        if (!c) return c.error();
        if (logs_only(*c)) {
            in.log_caps.push_back(std::move(*c));
            in.log_index.push_back(i);
        } else if (c->recognized.empty()) {
            in.empty_caps.push_back(std::move(*c));
            in.empty_index.push_back(i);
        } else {
            in.caps.push_back(std::move(*c));
            in.input_index.push_back(i);
        }
    }
    // Only such folders: they stay captures, so the run says what each holds and that nothing
    // was read, as before.
    if (in.caps.empty()) {
        for (std::size_t k = 0; k < in.empty_caps.size(); ++k) {
            in.caps.push_back(std::move(in.empty_caps[k]));
            in.input_index.push_back(in.empty_index[k]);
        }
        in.empty_caps.clear();
        in.empty_index.clear();
    }
    return in;
}

/// Adds capture `c` of host `host` at `when` to the store: its samples, its inventory as the
/// host shows it so far (`last_facts`, latest_facts.h, updated), its uptime; `segment` numbers
/// the timeline since the last restart. Names the byte and pause-duration counters in `spaced`
/// (impossible_spacing reads them). Returns the sample count.
std::size_t store_capture(SeriesStore& store, const BundleCapture& c, const std::string& host,
                          SampleTime when, std::uint32_t segment, bool first, Snapshot& last_facts,
                          std::set<std::string>& spaced) {
    Snapshot snap = c.snapshot;
    snap.host = host;
    // Inventory checks judge the host as its last capture shows it (latest_facts.h).
    Snapshot facts = snap;
    if (!first) fill_from_earlier(last_facts, facts);
    auto samples = samples_from_snapshot(snap, when, false);
    samples.insert(samples.begin(), inventory_sample(facts, when));
    last_facts = std::move(facts);
    if (c.uptime_s) {  // the host's uptime_s gauge (lifetime_pause_share)
        Sample up;
        up.t_s = when.t_s;
        up.wall_ms = when.wall_ms;
        up.host = host;
        up.series = "uptime_s";
        up.kind = SampleKind::gauge;
        up.unit = "s";
        up.value = *c.uptime_s;
        up.source = c.uptime_source;
        samples.push_back(std::move(up));
    }
    for (Sample& s : samples) {
        s.segment = segment;
        if (s.kind == SampleKind::counter &&
            (s.unit == "bytes" || s.series.ends_with("_duration_us")))
            spaced.insert(s.series);
        store.add(s);
    }
    return samples.size();
}

/// What the report of a host capture says besides its placement: what was read and ignored,
/// the bundle's notes and warnings, and a warning for a capture nothing was read from.
void add_capture_notes(const BundleCapture& c, InputReport& r) {
    for (const auto& f : c.recognized) r.notes.push_back("read " + f);
    for (const auto& f : c.unrecognized)
        r.notes.push_back(f + ": not a format rocehealth reads; ignored");
    for (const Note& n : c.snapshot.notes) r.notes.push_back(n.subject + ": " + n.text);
    r.warnings.insert(r.warnings.begin(), c.warnings.begin(), c.warnings.end());
    if (c.recognized.empty())
        r.warnings.push_back(c.dir + ": no file in it that rocehealth reads" +
                             std::string(c.unrecognized.empty() ? " (empty folder)" : "") +
                             "; this capture adds nothing to the diagnosis");
}

/// The report of a folder with no file rocehealth reads, beside host captures: no host.
InputReport empty_input_report(const BundleCapture& c) {
    InputReport r{c.dir, 0, {}, {}};
    add_capture_notes(c, r);
    r.warnings.back() +=
        " (left out of the host captures: it would have cost its host the "
        "time between captures)";
    r.notes.push_back(r.warnings.back());
    return r;
}

/// The report of a folder of log lines only: the hosts its lines were placed on.
InputReport log_input_report(const SeriesStore& store, const BundleCapture& c) {
    InputReport r{c.dir, 0, {}, {}};
    std::set<std::string> hosts;
    for (const auto& e : store.log_events())
        if (e.event.file.rfind(dir_basename(c.dir) + "/", 0) == 0 && !e.host.empty())
            hosts.insert(e.host);
    r.hosts.assign(hosts.begin(), hosts.end());
    r.notes.push_back(c.dir + ": log lines only (" + std::to_string(c.log_events.size()) +
                      " events), placed on hosts by what each line names");
    for (const auto& f : c.recognized) r.notes.push_back("read " + f);
    for (const Note& n : c.snapshot.notes) r.notes.push_back(n.subject + ": " + n.text);
    r.warnings = c.warnings;
    return r;
}

/// Two captures of one host with every file identical: an error naming both.
std::optional<Error> repeated_capture(const HostGroup& g, const std::vector<BundleCapture>& caps) {
    for (std::size_t k = 1; k < g.captures.size(); ++k) {
        const std::string& prev = caps[g.captures[k - 1]].dir;
        const std::string& dir = caps[g.captures[k]].dir;
        if (same_capture(prev, dir))
            return Error{"diagnose --bundle", dir, 0,
                         "the same capture as " + prev + " (host " + g.name +
                             "; every file identical): two captures of one host taken "
                             "apart in time are needed, and identical ones would show no "
                             "counter change at all"};
    }
    return std::nullopt;
}

/// The host captures being stored, and what storing them gives: a report and a place per
/// capture, the counters impossible_spacing checks.
struct HostLoad {
    SeriesStore& store;
    const std::vector<BundleCapture>& caps;
    const std::vector<std::vector<std::string>>& time_notes;  ///< per capture: in-file clocks
    std::optional<double> interval_s;
    bool all_stamped;
    std::vector<std::optional<InputReport>> reports;
    std::vector<CapturePlace> places;
    std::set<std::string> spaced_series;  // byte and pause-duration counters (impossible_spacing)
    bool from_interval = false;           ///< some capture's time is from --interval
};

/// The note on a restart between capture k-1 and k of host `g` ("" without one); a restart
/// starts a new `segment`.
std::string restart_before(const HostLoad& ld, const HostGroup& g, const HostSpacing& sp,
                           std::size_t k, std::uint32_t& segment) {
    if (k == 0) return "";
    const BundleCapture& c = ld.caps[g.captures[k]];
    const BundleCapture& prev = ld.caps[g.captures[k - 1]];
    std::optional<double> dt = ld.interval_s;
    if (sp.use_stamps) dt = *c.timestamp_s - *prev.timestamp_s;
    const Restart r = restart_between(prev, c, dt);
    if (r.kind == Restart::Kind::none) return "";
    ++segment;
    return restart_note_text(g.name, prev.dir, c.dir, r);
}

/// The report of capture k of host `g`, which stored `n` samples.
InputReport capture_report(const HostLoad& ld, const HostGroup& g, const HostSpacing& sp,
                           std::size_t k, std::size_t n, const std::string& restart_note) {
    const BundleCapture& c = ld.caps[g.captures[k]];
    InputReport r{c.dir, n, {g.name}, {}};
    r.notes.push_back(g.decisions[k]);
    if (k == 0 && !sp.time_note.empty()) r.notes.push_back(sp.time_note);
    if (!restart_note.empty()) r.notes.push_back(restart_note);
    for (const auto& t : ld.time_notes[g.captures[k]]) r.notes.push_back(c.dir + ": " + t);
    r.spacing_unknown = sp.unspaced;
    r.unused_counters = c.unused_counters;
    // No clock to say the order is right; a reboot or reset explains a fall already.
    if (k > 0 && !sp.use_stamps && !sp.use_zone && restart_note.empty())
        if (auto fall = counters_fall(ld.caps[g.captures[k - 1]], c)) r.warnings.push_back(*fall);
    add_capture_notes(c, r);
    return r;
}

/// Stores every capture of host `g` in time order, with its place and report.
std::optional<Error> load_host(HostLoad& ld, const HostGroup& g, const HostSpacing& sp) {
    std::uint32_t segment = 0;  // Sample::segment: a restart starts a new one
    Snapshot last_facts;        // the inventory so far (latest_facts.h)
    for (std::size_t k = 0; k < g.captures.size(); ++k) {
        const BundleCapture& c = ld.caps[g.captures[k]];
        const std::string restart_note = restart_before(ld, g, sp, k, segment);
        const auto when = capture_sample_time(g, k, ld.caps, sp, ld.all_stamped, ld.interval_s);
        if (!when) return when.error();
        ld.from_interval =
            ld.from_interval || (k > 0 && !sp.use_stamps && !sp.use_zone && !sp.unspaced);
        ld.places[g.captures[k]] = {g.name, when->wall_ms ? when->wall_ms / 1000.0 : when->t_s};
        const std::size_t n = store_capture(ld.store, c, g.name, *when, segment, k == 0, last_facts,
                                            ld.spaced_series);
        ld.reports[g.captures[k]] = capture_report(ld, g, sp, k, n, restart_note);
    }
    return std::nullopt;
}

}  // namespace

Result<std::vector<InputReport>> load_bundles(SeriesStore& store,
                                              const std::vector<std::string>& dirs,
                                              std::optional<double> interval_s) {
    auto read = read_inputs(dirs);
    if (!read) return read.error();
    auto& [caps, log_caps, input_index, log_index, empty_caps, empty_index] = *read;
    // In-file clocks (a `date` line in UTC) stand in for a missing `timestamp` file.
    std::vector<std::vector<std::string>> time_notes(caps.size());
    apply_in_file_clocks(caps, time_notes);
    std::vector<HostGroup> groups = group_captures(caps);
    bool all_stamped = true;
    for (const auto& c : caps) all_stamped = all_stamped && c.timestamp_s.has_value();

    // Capture times per host (capture_time.h, HostSpacing): wall clock when every capture of
    // the run has a timestamp; else a host whose captures all have one keeps their spacing
    // (relative to its first capture, so hosts on different clocks do not mix), and a host
    // with none is spaced --interval apart, or judged in order only without it.
    HostLoad ld{store, caps, time_notes, interval_s, all_stamped, {}, {}, {}, false};
    ld.reports.resize(caps.size());
    ld.places.resize(caps.size());
    std::set<std::string> unspaced_hosts;  // no clock and no --interval: no rates
    for (HostGroup& g : groups) {
        const HostSpacing sp = host_spacing(g, caps, interval_s);
        if (sp.unspaced) unspaced_hosts.insert(g.name);
        if (auto e = repeated_capture(g, caps)) return *e;
        if (auto e = load_host(ld, g, sp)) return *e;
    }
    for (const std::string& h : unspaced_hosts)  // no spacing to check
        for (auto it = groups.begin(); it != groups.end();)
            it = it->name == h ? groups.erase(it) : std::next(it);
    if (const auto bad =
            impossible_spacing(store, ld.spaced_series, groups, caps, ld.from_interval))
        return Error{"diagnose --bundle", "", 0, *bad};
    // The job's and the kernel's log lines, placed on hosts and in time (log_placement.h).
    std::vector<CapturePlace>& places = ld.places;
    const std::size_t host_caps = caps.size();
    for (auto& c : log_caps) {
        caps.push_back(std::move(c));
        places.push_back(
            {{}, caps.back().timestamp_s && all_stamped ? caps.back().timestamp_s : std::nullopt});
    }
    const auto log_notes = place_log_events(store, caps, places, all_stamped && host_caps > 0);
    std::vector<std::optional<InputReport>> by_input(dirs.size());
    for (std::size_t i = 0; i < host_caps; ++i) by_input[input_index[i]] = std::move(ld.reports[i]);
    for (std::size_t k = 0; k < log_index.size(); ++k)
        by_input[log_index[k]] = log_input_report(store, caps[host_caps + k]);
    for (std::size_t k = 0; k < empty_index.size(); ++k)
        by_input[empty_index[k]] = empty_input_report(empty_caps[k]);
    std::vector<InputReport> out;
    for (auto& r : by_input) out.push_back(std::move(*r));
    if (!out.empty())
        for (const auto& n : log_notes) out.front().notes.push_back(n);
    return out;
}

bool holds_rdma_data(const SeriesStore& store) {
    if (store.series_count() > 0 || !store.log_events().empty()) return true;
    for (const auto& [host, inv] : store.inventories())
        if (inv.snapshot && !inv.snapshot->devices.empty()) return true;
    return false;
}

EngineResult judge_inputs(const SeriesStore& store, const RuleSet& rules,
                          const std::vector<InputReport>& inputs, EngineOptions opts) {
    for (const InputReport& in : inputs)
        if (in.spacing_unknown) opts.unspaced_hosts.insert(in.hosts.begin(), in.hosts.end());
    EngineResult result = run_rules(store, rules, opts);
    for (const InputReport& in : inputs)
        for (const std::string& why : in.unused_counters)
            result.not_judged.push_back(NotJudged{in.hosts.empty() ? "" : in.hosts.front(),
                                                  "counters", "no_verdict", 0, 0, 0, 0, 0,
                                                  why + ": its counters were not judged (give "
                                                        "`ip -d link` or `rdma link` output "
                                                        "to tie it)"});
    // Log lines alone (a pasted job log, no capture): an error in them is a finding, but no
    // counter or port was seen, so "no findings" would not mean healthy.
    if (store.series_count() == 0 && store.inventories().empty() && !store.log_events().empty())
        result.not_judged.push_back(NotJudged{
            "", "counters", "no_counters", 0, 0, 0, 0, 0,
            "the inputs hold only job or kernel log lines (" +
                std::to_string(store.log_events().size()) +
                "): no counters or inventory of any host, so no port, rate or configuration "
                "rule judged anything; give captures of the hosts beside the log (README: "
                "\"diagnose on a job's own errors\")"});
    return result;
}

}  // namespace rh
