// Helpers shared by the bundle tests that import small inline captures through the pure entry
// point import_bundle_files (no file system): the import itself (failing the test with the
// error), and lookups of a device and its first port. Header-only, Boost.Test assertions.
#pragma once

#include <string>
#include <utility>
#include <vector>

#include <boost/test/unit_test.hpp>

#include "collectors/bundle/bundle.h"

namespace rh::test {

using Files = std::vector<std::pair<std::string, std::string>>;

/// import_bundle_files(dir, files); a failed import fails the test with its message.
inline BundleCapture import(const Files& files, const std::string& dir = "cases/x/t0") {
    auto r = import_bundle_files(dir, files);
    BOOST_TEST_REQUIRE(r.ok(), (r.ok() ? "" : r.error().message()));
    return std::move(*r);
}

/// The device named `name` in the capture's snapshot, or nullptr.
inline const Device* device(const BundleCapture& c, const std::string& name) {
    for (const auto& d : c.snapshot.devices)
        if (d.name == name) return &d;
    return nullptr;
}

/// Every note of the capture's snapshot, "subject: text" a line (for failure messages).
inline std::string all_notes(const BundleCapture& c) {
    std::string s;
    for (const auto& n : c.snapshot.notes) s += n.subject + ": " + n.text + "\n";
    return s;
}

/// The `ethtool -S` counter `name` of the port's netdev, or nullptr.
inline const Counter* ethtool_stat(const Port& p, const std::string& name) {
    if (!p.netdev) return nullptr;
    for (const auto& c : p.netdev->ethtool_stats)
        if (c.name == name) return &c;
    return nullptr;
}

/// The first port of device `dev`; fails the test when there is no such device or port.
inline const Port& port1(const BundleCapture& c, const std::string& dev) {
    const auto* d = device(c, dev);
    BOOST_TEST_REQUIRE(d, "device " << dev);
    BOOST_TEST_REQUIRE(!d->ports.empty());
    return d->ports[0];
}

}  // namespace rh::test
