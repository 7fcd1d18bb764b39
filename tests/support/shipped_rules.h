// The shipped rules file (rules/rocehealth-rules.json of the source tree), loaded once, for the
// rule tests. Needs RH_SOURCE_DIR (the test's compile definition) and Boost.Test.
#pragma once

#include <boost/test/unit_test.hpp>

#include <string>

#include "rules/engine/rule_spec.h"

namespace rh::test {

/// The shipped rules; a file that does not load fails the test naming the error.
inline const RuleSet& shipped_rules() {
    static const RuleSet rules = [] {
        auto r = load_rules_file(std::string(RH_SOURCE_DIR) + "/rules/rocehealth-rules.json");
        BOOST_REQUIRE_MESSAGE(r.ok(), (r.ok() ? "" : r.error().message()));
        return *r;
    }();
    return rules;
}

}  // namespace rh::test
