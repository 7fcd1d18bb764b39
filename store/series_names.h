// The series names the store can hold: every normalized counter name of the driver tables
// (collectors/normalize.h) plus the series the store adds (store/README.md, "Series"). The rules
// loader rejects any other name, so a misspelt series cannot silently disable a rule.
#pragma once

#include <string>
#include <vector>

namespace rh {

/// Sorted, unique.
const std::vector<std::string>& known_series();

bool is_known_series(const std::string& name);

}  // namespace rh
