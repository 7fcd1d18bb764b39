// The `timestamp` file of a bundle capture: when the capture was taken, as people write it.
#pragma once

#include <string>
#include <string_view>

#include "core/result.h"

namespace rh::bundle {

/// UTC seconds since the epoch from the text of a `timestamp` file: `date +%s` output
/// ("1718900000", "1718900000.25"), `date -u` / `date` output in the C locale ("Thu Dec  3
/// 07:42:39 UTC 2026", zone UTC/GMT/Z or a numeric offset "+0100"), or ISO 8601 (`date -Is`:
/// "2026-12-03T07:42:39+00:00", "2026-12-03 07:42:39Z"), the en_US / en_GB locales' `date -u`
/// ("Fri Dec  4 10:15:16 PM UTC 2026", "Fri  4 Dec 22:15:16 UTC 2026") and `date -R` ("Fri,
/// 04 Dec 2026 22:15:16 +0000"), see parse_clock.h. A shell prompt line or `$ date` above
/// the value is skipped. Errors (Error::detail) name what was not understood: a named zone
/// other than UTC/GMT is ambiguous ("CST" is three zones), so it is refused with the fix; a
/// time outside 1970..2200 is refused (a nanosecond clock overflows in 2262).
Result<double> parse_timestamp_text(std::string_view text);

}  // namespace rh::bundle
