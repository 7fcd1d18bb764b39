#include "collectors/drivers/registry.h"

#include <array>

namespace rh {

// Defined in collectors/drivers/<name>.cpp. A new driver: its file, and one line here.
extern const Driver mlx5_driver;
extern const Driver bnxt_driver;
extern const Driver irdma_ice_driver;
extern const Driver rxe_driver;

namespace {

constexpr std::array<const Driver*, 4> kDrivers = {&mlx5_driver, &bnxt_driver, &irdma_ice_driver,
                                                   &rxe_driver};

template <class Pred>
const Driver* first(Pred pred) {
    for (const Driver* d : kDrivers)
        if (pred(*d)) return d;
    return nullptr;
}

bool listed(std::span<const std::string_view> list, std::string_view s) {
    for (auto x : list)
        if (x == s) return true;
    return false;
}

}  // namespace

std::span<const Driver* const> all_drivers() {
    return kDrivers;
}

std::string_view to_string(const Driver* d) {
    return d ? d->name : "unknown";
}

const Driver* driver_named(std::string_view name) {
    return first([&](const Driver& d) { return d.name == name; });
}

const Driver* driver_of_rdma_name(std::string_view dev) {
    return first([&](const Driver& d) {
        for (auto p : d.rdma_name_prefixes)
            if (dev.substr(0, p.size()) == p) return true;
        return false;
    });
}

const Driver* driver_of_pci_driver(std::string_view driver) {
    if (driver.empty()) return nullptr;
    return first([&](const Driver& d) { return listed(d.pci_drivers, driver); });
}

const Driver* driver_of_netdev_driver(std::string_view driver) {
    if (driver.empty()) return nullptr;
    return first([&](const Driver& d) { return listed(d.netdev_drivers, driver); });
}

std::string_view netdev_driver_of_ethtool_name(std::string_view stat) {
    const Driver* d = first([&](const Driver& d) {
        return d.ethtool_name_is_ours && !d.netdev_drivers.empty() && d.ethtool_name_is_ours(stat);
    });
    return d ? d->netdev_drivers.front() : std::string_view{};
}

bool netdev_only_stat(std::string_view stat) {
    return first([&](const Driver& d) { return d.netdev_only_stat && d.netdev_only_stat(stat); });
}

bool wrapping_hw_counter(const Driver* driver, std::string_view raw) {
    const auto wraps = [&](const Driver& d) {
        if (listed(d.wrapping_32bit_hw_counters, raw)) return true;
        for (const MapEntry& e : d.table)
            if (e.from == RawList::hw_counters && e.width_bits < 64 && !e.saturates && e.raw == raw)
                return true;
        return false;
    };
    if (driver) return wraps(*driver);
    return first(wraps) != nullptr;
}

}  // namespace rh
