// The series names the store can hold: the stored ones of the series catalog
// (core/series_catalog.h; store/README.md, "Series"). The rules loader rejects any other name, so a
// misspelt series cannot silently disable a rule.
#pragma once

#include <string>
#include <vector>

namespace rh {

/// Sorted, unique.
const std::vector<std::string>& known_series();

bool is_known_series(const std::string& name);

/// The label names samples carry: every label of the catalog's series (device, port, netdev;
/// priority, direction, level, lane; peer, op, size_bytes, quantile, status). Sorted, unique.
/// The rules loader rejects a `match` or `group_by` naming another.
const std::vector<std::string>& known_labels();

bool is_known_label(const std::string& name);

}  // namespace rh
