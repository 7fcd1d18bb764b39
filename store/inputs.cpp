#include "store/inputs.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <set>

#include "collectors/bundle/bundle.h"
#include "store/from_snapshot.h"
#include "store/sample_json.h"

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

Result<std::vector<InputReport>> load_bundles(SeriesStore& store,
                                              const std::vector<std::string>& dirs,
                                              std::optional<double> interval_s) {
    std::vector<BundleCapture> caps;
    for (const std::string& d : dirs) {
        auto c = import_bundle_dir(d);
        if (!c) return c.error();
        caps.push_back(std::move(*c));
    }
    std::map<std::string, std::vector<const BundleCapture*>> by_host;
    for (const auto& c : caps) by_host[c.snapshot.host].push_back(&c);
    bool all_stamped = true;
    for (const auto& c : caps) all_stamped = all_stamped && c.timestamp_s.has_value();

    std::vector<InputReport> out;
    for (const auto& [host, list] : by_host) {
        if (list.size() > 1 && !all_stamped && !interval_s)
            return Error{"diagnose --bundle", list[1]->dir, 0,
                         "host " + host + " has " + std::to_string(list.size()) +
                             " captures but not every capture has a `timestamp` file: give "
                             "--interval SECONDS (the time between captures)"};
        for (std::size_t i = 0; i < list.size(); ++i) {
            const BundleCapture& c = *list[i];
            SampleTime when;
            if (all_stamped) {
                when.t_s = *c.timestamp_s;
                when.wall_ms = static_cast<std::int64_t>(std::llround(*c.timestamp_s * 1000.0));
                if (i > 0 && *c.timestamp_s <= *list[i - 1]->timestamp_s)
                    return Error{"diagnose --bundle", c.dir, 0,
                                 "its timestamp is not later than the previous capture of host " +
                                     host + " (" + list[i - 1]->dir +
                                     "): give the captures in time order"};
            } else {
                when.t_s = static_cast<double>(i) * interval_s.value_or(0);
            }
            const auto samples = samples_from_snapshot(c.snapshot, when, i == 0);
            for (const Sample& s : samples) store.add(s);
            InputReport r{c.dir, samples.size(), {host}, {}};
            for (const auto& f : c.recognized) r.notes.push_back("read " + f);
            for (const auto& f : c.unrecognized)
                r.notes.push_back(f + ": not a format rocehealth reads; ignored");
            for (const Note& n : c.snapshot.notes) r.notes.push_back(n.subject + ": " + n.text);
            out.push_back(std::move(r));
        }
    }
    return out;
}

}  // namespace rh
