// collectors/drivers: the one driver registry and its tables, checked against the series catalog
// (core/series_catalog.h): a row naming a series the catalog lacks, with another unit or other
// labels, or a catalog driver series no table produces, fails here.
#include <boost/test/unit_test.hpp>

#include <set>
#include <string>
#include <string_view>

#include "collectors/drivers/registry.h"
#include "core/series_catalog.h"

BOOST_AUTO_TEST_SUITE(test_drivers)

namespace {

/// "priority={p},direction=rx" -> {"direction", "priority"}.
std::set<std::string> label_keys(std::string_view labels) {
    std::set<std::string> keys;
    while (!labels.empty()) {
        const auto comma = labels.find(',');
        const auto item = labels.substr(0, comma);
        keys.emplace(item.substr(0, item.find('=')));
        labels = comma == std::string_view::npos ? std::string_view{} : labels.substr(comma + 1);
    }
    return keys;
}

/// The catalog's labels of a driver series without the port's own (device, port, netdev).
std::set<std::string> own_labels(const rh::SeriesSpec& s) {
    auto keys = label_keys(s.labels);
    for (const char* k : {"device", "port", "netdev"}) keys.erase(k);
    return keys;
}

}  // namespace

BOOST_AUTO_TEST_CASE(every_row_names_a_catalog_counter_with_its_unit_and_labels) {
    std::size_t rows = 0;
    for (const rh::Driver* d : rh::all_drivers()) {
        BOOST_TEST_REQUIRE(!d->table.empty(), d->name);
        for (const rh::MapEntry& e : d->table) {
            ++rows;
            BOOST_TEST_CONTEXT(d->name << " row " << e.name << " <- " << e.raw) {
                const rh::SeriesSpec* s = rh::find_series(e.name);
                BOOST_TEST_REQUIRE(s != nullptr, "not in core/series_catalog.cpp");
                BOOST_TEST((s->origin == rh::SeriesOrigin::drivers));
                BOOST_TEST((s->kind == rh::SeriesKind::counter));
                BOOST_TEST(e.unit == s->unit);
                BOOST_TEST(label_keys(e.labels) == own_labels(*s));
            }
        }
    }
    BOOST_TEST(rows > 100u);
}

BOOST_AUTO_TEST_CASE(every_catalog_driver_series_has_a_row) {
    std::set<std::string_view> produced;
    for (const rh::Driver* d : rh::all_drivers())
        for (const rh::MapEntry& e : d->table) produced.insert(e.name);
    for (const rh::SeriesSpec& s : rh::series_catalog())
        if (s.origin == rh::SeriesOrigin::drivers)
            BOOST_TEST(produced.count(s.name) == 1u, s.name << ": no driver table produces it");
}

BOOST_AUTO_TEST_CASE(one_list_answers_every_lookup) {
    std::set<std::string_view> names;
    for (const rh::Driver* d : rh::all_drivers()) {
        BOOST_TEST(names.insert(d->name).second, d->name << " listed twice");
        BOOST_TEST(rh::driver_named(d->name) == d);
        for (auto p : d->rdma_name_prefixes)
            BOOST_TEST(rh::driver_of_rdma_name(std::string(p) + "0") == d);
    }
    BOOST_TEST(rh::to_string(rh::driver_of_rdma_name("mlx5_3")) == "mlx5");
    BOOST_TEST(rh::to_string(rh::driver_of_rdma_name("bnxt_re1")) == "bnxt");
    BOOST_TEST(rh::to_string(rh::driver_of_rdma_name("irdma0")) == "irdma_ice");
    BOOST_TEST(rh::to_string(rh::driver_of_rdma_name("rxe0")) == "rxe");
    BOOST_TEST(rh::driver_of_rdma_name("rocep59s0f0") == nullptr);  // renamed: by PCI driver
    BOOST_TEST(rh::driver_of_rdma_name("hypothetical0") == nullptr);
    BOOST_TEST(rh::to_string(nullptr) == "unknown");

    // X722: irdma over i40e. A renamed device's PCI driver i40e is irdma (live and captures
    // alike: normalize.cpp and bundle_merge.cpp both ask driver_of_pci_driver); its netdev has
    // no table of its own.
    BOOST_TEST(rh::to_string(rh::driver_of_pci_driver("i40e")) == "irdma_ice");
    BOOST_TEST(rh::to_string(rh::driver_of_pci_driver("ice")) == "irdma_ice");
    BOOST_TEST(rh::driver_of_netdev_driver("i40e") == nullptr);
    BOOST_TEST(rh::to_string(rh::driver_of_netdev_driver("mlx5_core")) == "mlx5");
    BOOST_TEST(rh::to_string(rh::driver_of_netdev_driver("bnxt_en")) == "bnxt");
    BOOST_TEST(rh::driver_of_netdev_driver("") == nullptr);
    BOOST_TEST(rh::driver_of_pci_driver("virtio_net") == nullptr);
    BOOST_TEST(!rh::driver_named("rxe")->own_netdev);

    // Captures without `ethtool -i`: the statistics' names tell the netdev driver.
    BOOST_TEST(rh::netdev_driver_of_ethtool_name("rx_pause_ctrl_phy") == "mlx5_core");
    BOOST_TEST(rh::netdev_driver_of_ethtool_name("rx_vport_rdma_unicast_bytes") == "mlx5_core");
    BOOST_TEST(rh::netdev_driver_of_ethtool_name("pfc_pri3_rx_transitions") == "bnxt_en");
    BOOST_TEST(rh::netdev_driver_of_ethtool_name("link_xoff_rx.nic") == "ice");
    BOOST_TEST(rh::netdev_driver_of_ethtool_name("rx_priority_3_xoff") == "ice");
    BOOST_TEST(rh::netdev_driver_of_ethtool_name("rx_bytes").empty());
}

BOOST_AUTO_TEST_SUITE_END()
