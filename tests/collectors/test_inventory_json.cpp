#include <boost/test/unit_test.hpp>

#include <filesystem>

#include "collectors/collect.h"
#include "core/inventory/inventory_from_json.h"

BOOST_AUTO_TEST_SUITE(test_collectors_inventory_json)

using nlohmann::json;

BOOST_AUTO_TEST_CASE(absent_values_are_null_never_zero) {
    rh::Counter c{"port_xmit_wait", std::nullopt, "/sys/x",
                  "not an unsigned decimal: 'N/A (no PMA)'"};
    const json jc = c;
    BOOST_TEST(jc.at("value").is_null());
    BOOST_TEST(jc.at("error").get<std::string>().find("N/A (no PMA)") != std::string::npos);

    rh::Counter zero{"symbol_error", 0u, "/sys/y", ""};
    BOOST_TEST(json(zero).at("value") == 0);
    BOOST_TEST(json(zero).at("error").is_null());

    const json jl = rh::PcieLink{};
    for (const char* k : {"current_speed_gts", "max_speed_gts", "current_width_lanes",
                          "max_width_lanes", "numa_node"})
        BOOST_TEST(jl.at(k).is_null(), k);

    const json jn = rh::Netdev{};
    BOOST_TEST(jn.at("mtu_bytes").is_null());
    BOOST_TEST(jn.at("rx_dropped").is_null());

    const json jv = rh::VerbsPort{};
    BOOST_TEST(jv.at("active_mtu_bytes").is_null());
    BOOST_TEST(jv.at("max_mtu_bytes").is_null());

    const json jp = rh::Port{};
    BOOST_TEST(jp.at("netdev").is_null());
    BOOST_TEST(jp.at("state_code").is_null());
}

BOOST_AUTO_TEST_CASE(snapshot_of_fixture_round_trips_to_json) {
    rh::CollectOptions o{rh::SysfsRoot(std::string(RH_FIXTURES_DIR) + "/mlx5_x8/sys"), {}};
    const json j = rh::collect_snapshot(o);
    const auto& port = j.at("devices").at(0).at("ports").at(0);
    BOOST_TEST(port.at("netdev").at("mtu_bytes") == 9000);
    BOOST_TEST(port.at("verbs").at("active_mtu_bytes").is_null());
    BOOST_TEST(!port.at("verbs").at("unavailable").is_null());
    const auto& pcie = j.at("devices").at(0).at("pcie");
    BOOST_TEST(pcie.at(0).at("current_width_lanes") == 8);
    BOOST_TEST(pcie.at(0).at("max_width_lanes") == 16);
    BOOST_TEST(pcie.at(0).at("current_speed_gts") == 16.0);
    bool saw_missing = false;
    for (const auto& c : port.at("counters"))
        if (c.at("name") == "port_xmit_wait") saw_missing = c.at("value").is_null();
    BOOST_TEST(saw_missing);
}

BOOST_AUTO_TEST_CASE(a_peers_inventory_reads_back_and_out_of_range_numbers_are_refused) {
    // accept's inventory stage reads other hosts' snapshots: what it got must read back, and a
    // number no field can hold is an error naming the field, never truncated.
    rh::CollectOptions o{rh::SysfsRoot(std::string(RH_FIXTURES_DIR) + "/mlx5_x8/sys"), {}};
    json j = rh::collect_snapshot(o);
    auto back = rh::snapshot_from_json(j);
    BOOST_REQUIRE_MESSAGE(back.ok(), (back.ok() ? "" : back.error().message()));
    BOOST_TEST(back->devices.size() == j.at("devices").size());
    BOOST_TEST(back->devices.at(0).pcie.at(0).current_width.value_or(0) == 8u);
    // 2^32 + 1 truncated to unsigned is priority 1, which would pass 0..7.
    j["devices"][0]["ports"][0]["netdev"]["dcb"] = {{"source", "netlink"},
                                                    {"pfc_enabled_priorities", {4294967297ull}}};
    auto wrapped = rh::snapshot_from_json(j);
    BOOST_REQUIRE(!wrapped.ok());
    BOOST_TEST(wrapped.error().message().find(
                   "devices[0].ports[0].netdev.dcb.pfc_enabled_priorities[0]: expected a whole "
                   "number from 0 to 7, got 4294967297") != std::string::npos,
               wrapped.error().message());
    // Every bad field is named at once, each by its path (not only the first).
    j["devices"][0]["fw_ver"] = 7;
    j["devices"][0]["ports"][0]["gids"] = "none";
    const auto several = rh::snapshot_from_json(j);
    BOOST_REQUIRE(!several.ok());
    const std::string m = several.error().message();
    BOOST_TEST(
        m.find("devices[0].fw_ver: expected a string, got a number (7)") != std::string::npos, m);
    BOOST_TEST(
        m.find("devices[0].ports[0].gids: expected an array, got a string") != std::string::npos,
        m);
    BOOST_TEST(m.find("pfc_enabled_priorities[0]") != std::string::npos, m);
}

BOOST_AUTO_TEST_CASE(written_json_is_what_a_tree_dump_prints_on_every_fixture) {
    // snapshot --json is written directly (JsonWriter); it must be the text nlohmann's dump of
    // the same values prints (key order, layout, numbers), and the inventory form must be the
    // full form without its counter lists.
    std::size_t trees = 0;
    for (const auto& e : std::filesystem::directory_iterator(RH_FIXTURES_DIR)) {
        if (!std::filesystem::is_directory(e.path() / "sys" / "class" / "infiniband")) continue;
        ++trees;
        rh::CollectOptions o{rh::SysfsRoot((e.path() / "sys").string()), {}};
        const rh::Snapshot snap = rh::collect_snapshot(o);
        const std::string text = rh::snapshot_json_text(snap, 2);
        json full = json::parse(text);
        BOOST_TEST(text == full.dump(2), e.path());
        BOOST_TEST(rh::snapshot_json_text(snap, -1) == full.dump(), e.path());
        for (auto& d : full["devices"]) {
            for (auto& p : d["ports"]) {
                for (const char* k : {"counters", "hw_counters", "nl_hw_counters", "normalized"})
                    BOOST_TEST(p.erase(k) == 1u);
                if (p["netdev"].is_object()) p["netdev"].erase("ethtool_stats");
            }
            for (auto& l : d["pcie"]) l.erase("aer");
        }
        BOOST_TEST(
            rh::snapshot_json_text(snap, 2, rh::InventoryJson::without_counters) == full.dump(2),
            e.path());
    }
    BOOST_TEST(trees >= 10u);
}

BOOST_AUTO_TEST_SUITE_END()  // test_collectors_inventory_json
