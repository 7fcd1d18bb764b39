// What a poller reads on every pass, fixed when it is built from the discovered Snapshot: its
// kept files (poll_files.h), the netdevs shared by ports, the shape of the Snapshot it accepts,
// each port's normalizer and the per-pass sources. Internal to collectors/poller/.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "collectors/normalize.h"
#include "collectors/poller/counter_poller.h"
#include "collectors/poller/poll_files.h"
#include "collectors/sources/counter_sources.h"
#include "core/inventory/inventory.h"
#include "core/sysfs.h"

namespace rh::poll {

/// A netdev shared by one or more ports; the first one's Netdev is filled, then copied.
struct NetdevEntry {
    std::string name;
    std::string dir;  ///< SysfsRoot::path("class/net/<if>"): Netdev::source once polled
    std::vector<std::pair<std::uint32_t, std::uint32_t>> ports;  ///< (device, port)
};

/// What discovery found, to refuse a Snapshot of another shape.
struct PortShape {
    std::size_t counters = 0, hw_counters = 0;
    bool netdev = false;
};
struct DeviceShape {
    std::string name;
    std::vector<PortShape> ports;
    std::vector<std::size_t> aer_sizes;    ///< per PcieLink
    std::size_t problems = 0;              ///< Device::problems left by discovery
    std::vector<std::size_t> unavailable;  ///< per port: Netdev::unavailable left by discovery
};

struct Plan {
    /// Lists every file of `s` (discovered on `root`) and opens them to keep them.
    Plan(const SysfsRoot& root, const Snapshot& s, std::optional<CounterSources> src,
         DirWatch watch);

    /// Whether `s` has the shape discovery gave (devices, ports, counter lists, AER links);
    /// when not, says so in `r` (rediscover).
    bool same_shape(const Snapshot& s, PollResult& r) const;
    /// A raw list of `s` changed its names: resolve the port's normalizer again.
    void renormalize(const Snapshot& s, std::uint32_t dev, std::uint32_t port);

    Files files;
    std::vector<NetdevEntry> netdevs;
    std::vector<DeviceShape> shape;
    std::vector<std::vector<PortNormalizer>> normalizers;  ///< [device][port]
    /// [device][port]: a raw value normalization reads changed this pass (all set at first:
    /// the first pass normalizes every port).
    std::vector<std::vector<char>> dirty;
    std::optional<CounterSources> sources;  ///< per-pass sources (live root or injected)

  private:
    void build(const Snapshot& s);
};

}  // namespace rh::poll
