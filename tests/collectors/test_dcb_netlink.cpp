#include <boost/test/unit_test.hpp>

#include <algorithm>
#include <fstream>
#include <random>
#include <sstream>
#include <string>

#include "collectors/sources/dcb_netlink.h"
#include "collectors/sources/qos_sysfs.h"

BOOST_AUTO_TEST_SUITE(test_dcb_netlink)

namespace {

rh::nl::Bytes recording(const std::string& name) {
    auto b = rh::nl::read_hex_file(std::string(RH_FIXTURES_DIR) + "/recordings/" + name);
    BOOST_TEST_REQUIRE(b.ok(), "recording " << name << ": " << (b.ok() ? "" : b.error().message()));
    return *b;
}

}  // namespace

BOOST_AUTO_TEST_CASE(mlx5_pfc_on_priority_3_with_dscp_trust) {
    auto d = rh::parse_dcb_ieee_reply(recording("mlx5_pfc3_dscp.hex"), "rec");
    BOOST_TEST_REQUIRE(d.ok(), (d ? "" : d.error().message()));
    BOOST_TEST(d->source == "rec");
    BOOST_TEST(*d->pfc_cap == 8u);
    BOOST_TEST(*d->pfc_enabled == 0x08);
    for (unsigned p = 0; p < 8; ++p) {
        BOOST_TEST_REQUIRE(d->pfc_requests[p].has_value());
        BOOST_TEST(*d->pfc_requests[p] == (p == 3 ? 1234u : 0u));
        BOOST_TEST(*d->pfc_indications[p] == (p == 3 ? 56789u : 0u));
    }
    const std::array<std::uint8_t, 8> prio_tc{0, 1, 2, 3, 4, 5, 6, 7}, ets{2, 2, 2, 2, 2, 2, 2, 2},
        bw{12, 12, 12, 16, 12, 12, 12, 12};
    BOOST_TEST((*d->prio_tc == prio_tc));
    BOOST_TEST((*d->tc_tsa == ets));
    BOOST_TEST((*d->tc_tx_bw_percent == bw));
    BOOST_TEST(d->apps.size() == 64u);
    BOOST_TEST(std::all_of(d->apps.begin(), d->apps.end(), [](const rh::DcbApp& a) {
        return a.selector == 5 && a.priority == a.protocol >> 3;
    }));
    BOOST_TEST(*d->dcbx_mode == 0x0d);

    rh::QosConfig q;
    rh::trust_from_dcb(*d, q);
    BOOST_TEST(q.trust == "dscp");
    BOOST_TEST(q.trust_source == "DCB APP table (selector 5 entries)");
}

BOOST_AUTO_TEST_CASE(mlx5_without_dscp_entries_is_pcp) {
    auto d = rh::parse_dcb_ieee_reply(recording("mlx5_pfc3_pcp.hex"), "rec");
    BOOST_TEST_REQUIRE(d.ok());
    BOOST_TEST(d->apps.empty());
    BOOST_TEST(*d->pfc_enabled == 0x08);
    rh::QosConfig q;
    rh::trust_from_dcb(*d, q);
    BOOST_TEST(q.trust == "pcp");
    rh::QosConfig none;
    rh::trust_from_dcb(std::nullopt, none);
    BOOST_TEST(none.trust.empty());
}

BOOST_AUTO_TEST_CASE(replay_source_and_missing_recording) {
    auto src = rh::make_dcb_replay_source(std::string(RH_FIXTURES_DIR) + "/recordings");
    auto d = rh::read_dcb(*src, "mlx5_pfc3_dscp");
    BOOST_TEST_REQUIRE(d.ok());
    BOOST_TEST(d->source.find("recorded DCB_CMD_IEEE_GET reply") != std::string::npos);
    auto missing = rh::read_dcb(*src, "eth9");
    BOOST_TEST_REQUIRE(!missing.ok());
    BOOST_TEST(missing.error().err_no == ENOENT);
}

BOOST_AUTO_TEST_CASE(not_an_ieee_reply) {
    BOOST_TEST(!rh::parse_dcb_ieee_reply(rh::nl::Bytes{}, "r").ok());
    BOOST_TEST(!rh::parse_dcb_ieee_reply(rh::nl::Bytes{0, 22, 0, 0}, "r").ok());  // DCB_CMD_GDCBX
    BOOST_TEST(!rh::parse_dcb_ieee_reply(rh::nl::Bytes{0, 21, 0, 0}, "r").ok());  // no IEEE nest
}

BOOST_AUTO_TEST_CASE(truncated_and_garbage_replies_never_crash) {
    const auto full = recording("mlx5_pfc3_dscp.hex");
    for (std::size_t n = 0; n < full.size(); ++n) {
        rh::nl::Bytes cut(full.begin(),
                          full.begin() + static_cast<long>(n));  // exact-size heap buffer
        auto d = rh::parse_dcb_ieee_reply(cut, "cut");
        if (d) BOOST_TEST(d->apps.size() <= 64u);
    }
    std::mt19937 rng(42);
    for (int i = 0; i < 2000; ++i) {
        auto b = full;
        for (int k = 0; k < 8; ++k) b[rng() % b.size()] = static_cast<std::uint8_t>(rng());
        (void)rh::parse_dcb_ieee_reply(b, "fuzz");
        rh::nl::Bytes noise(rng() % 300);
        for (auto& x : noise) x = static_cast<std::uint8_t>(rng());
        (void)rh::parse_dcb_ieee_reply(noise, "noise");
    }
}

BOOST_AUTO_TEST_CASE(hex_format) {
    auto b = rh::nl::from_hex("# comment\n00 ff\n1a # tail comment\n");
    BOOST_TEST_REQUIRE(b.ok());
    BOOST_TEST((*b == rh::nl::Bytes{0x00, 0xff, 0x1a}));
    BOOST_TEST(!rh::nl::from_hex("0 1").ok());
    BOOST_TEST(!rh::nl::from_hex("zz").ok());
    auto round = rh::nl::from_hex(rh::nl::to_hex(*b));
    BOOST_TEST((round.ok() && *round == *b));
}

BOOST_AUTO_TEST_SUITE_END()  // test_dcb_netlink
