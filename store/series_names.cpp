#include "store/series_names.h"

#include <algorithm>
#include <set>

#include "core/series_catalog.h"

namespace rh {

const std::vector<std::string>& known_series() {
    static const std::vector<std::string> names = [] {
        std::vector<std::string> v;
        for (const SeriesSpec& s : series_catalog())
            if (is_stored(s)) v.emplace_back(s.name);
        return v;  // the catalog is sorted and unique
    }();
    return names;
}

const std::vector<std::string>& known_labels() {
    static const std::vector<std::string> names = [] {
        std::set<std::string> s;
        for (const SeriesSpec& spec : series_catalog()) {
            if (!is_stored(spec)) continue;
            std::string_view l = spec.labels;  // "device,port,netdev,priority"
            while (!l.empty()) {
                const auto comma = l.find(',');
                s.emplace(l.substr(0, comma));
                l = comma == std::string_view::npos ? std::string_view{} : l.substr(comma + 1);
            }
        }
        return std::vector<std::string>(s.begin(), s.end());
    }();
    return names;
}

bool is_known_label(const std::string& name) {
    const auto& n = known_labels();
    return std::binary_search(n.begin(), n.end(), name);
}

bool is_known_series(const std::string& name) {
    const auto& n = known_series();
    return std::binary_search(n.begin(), n.end(), name);
}

}  // namespace rh
