#include <boost/test/unit_test.hpp>

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "core/inventory/parse.h"

BOOST_AUTO_TEST_SUITE(test_collectors_parse)

BOOST_AUTO_TEST_CASE(port_state_accepts_only_decimal_colon_name) {
    struct Case {
        std::string text;
        std::optional<unsigned> code;  // nullopt = rejected
        std::string name;
    };
    const std::vector<Case> cases = {
        {"4: ACTIVE\n", 4u, "ACTIVE"},
        {"1: DOWN", 1u, "DOWN"},
        {"5: LinkUp", 5u, "LinkUp"},
        {"3: Disabled", 3u, "Disabled"},
        {"7: Phy Test", 7u, "Phy Test"},  // names may contain spaces
        {"4:ACTIVE", 4u, "ACTIVE"},
        {"ACTIVE", std::nullopt, ""},
        {"x: FOO", std::nullopt, ""},
        {"-1: FOO", std::nullopt, ""},
        {"4: ", std::nullopt, ""},
        {": ACTIVE", std::nullopt, ""},
        {std::string("4: AC\x01TIVE", 10), std::nullopt, ""},
        {std::string("\xff\xfe junk", 7), std::nullopt, ""},
        {"", std::nullopt, ""},
    };
    for (const auto& c : cases) {
        BOOST_TEST_CONTEXT("text '" << c.text << "'") {
            const auto st = rh::parse_port_state(c.text);
            BOOST_TEST(st.has_value() == c.code.has_value());
            if (st && c.code) {
                BOOST_TEST(st->code == *c.code);
                BOOST_TEST(st->name == c.name);
            }
        }
    }
}

BOOST_AUTO_TEST_CASE(mtu_accepts_68_to_65536_only) {
    BOOST_TEST((rh::parse_mtu("1500\n").mtu == 1500u));
    BOOST_TEST((rh::parse_mtu("68").mtu == 68u));
    BOOST_TEST((rh::parse_mtu("65536").mtu == 65536u));
    for (const char* bad :
         {"-1", "0", "67", "65537", "4294967296", "", "abc", "99999999999999999999999"}) {
        BOOST_TEST_CONTEXT("mtu '" << bad << "'") {
            const auto m = rh::parse_mtu(bad);
            BOOST_TEST(!m.mtu.has_value());
            BOOST_TEST(m.error.find("is not a valid MTU (68..65536)") != std::string::npos);
        }
    }
    BOOST_TEST(rh::parse_mtu("4294967296").error == "4294967296 is not a valid MTU (68..65536)");
    BOOST_TEST(rh::check_mtu(0).error == "0 is not a valid MTU (68..65536)");
    BOOST_TEST((rh::check_mtu(9000).mtu == 9000u));
}

BOOST_AUTO_TEST_CASE(pcie_speed_parses_leading_float_of_new_and_old_formats) {
    struct Case {
        std::string text;
        std::optional<double> gts;
    };
    const std::vector<Case> cases = {
        {"16.0 GT/s PCIe\n", 16.0},
        {"8.0 GT/s PCIe", 8.0},
        {"2.5 GT/s PCIe", 2.5},
        {"32.0 GT/s PCIe", 32.0},
        {"64.0 GT/s PCIe", 64.0},
        {"5 GT/s", 5.0},
        {"8 GT/s", 8.0},
        {"2.5 GT/s", 2.5},
        {"Unknown", std::nullopt},
        {"Unknown speed", std::nullopt},
        {"", std::nullopt},
        {"GT/s", std::nullopt},
        {"0 GT/s", std::nullopt},
        {"inf GT/s", std::nullopt},
        {"nan GT/s", std::nullopt},
        {"1e400 GT/s", std::nullopt},
        {"512.0 GT/s PCIe", std::nullopt},
    };
    for (const auto& c : cases) {
        BOOST_TEST_CONTEXT("text '" << c.text << "'") {
            BOOST_TEST((rh::parse_pcie_speed_gts(c.text) == c.gts));
        }
    }
}

BOOST_AUTO_TEST_CASE(pcie_width_is_plain_decimal_and_zero_is_unknown) {
    struct Case {
        std::string text;
        std::optional<unsigned> lanes;
    };
    const std::vector<Case> cases = {
        {"16\n", 16u},
        {"8", 8u},
        {"1", 1u},
        {"x16", 16u},
        {"0", std::nullopt},
        {"", std::nullopt},
        {"sixteen", std::nullopt},
        {"16 lanes", std::nullopt},
    };
    for (const auto& c : cases) {
        BOOST_TEST_CONTEXT("text '" << c.text << "'") {
            BOOST_TEST((rh::parse_pcie_width(c.text) == c.lanes));
        }
    }
}

BOOST_AUTO_TEST_CASE(numa_node_is_signed) {
    BOOST_TEST((rh::parse_numa_node("-1\n") == -1));
    BOOST_TEST((rh::parse_numa_node("1") == 1));
    BOOST_TEST(!rh::parse_numa_node("").has_value());
    BOOST_TEST(!rh::parse_numa_node("n/a").has_value());
}

BOOST_AUTO_TEST_CASE(pci_bdf_names) {
    struct Case {
        std::string name;
        bool bdf;
    };
    const std::vector<Case> cases = {
        {"0000:3b:00.0", true},
        {"0000:00:01.0", true},
        {"10000:e1:00.7", true},
        {"0000:3B:1f.3", true},
        {"pci0000:00", false},
        {"infiniband", false},
        {"virtual", false},
        {"0000:3b:00", false},
        {"0000:3b:00.8", false},
        {"0000:3b:0.0", false},
        {"", false},
        {"virtio0", false},
    };
    for (const auto& c : cases) {
        BOOST_TEST_CONTEXT("name '" << c.name << "'") {
            BOOST_TEST(rh::is_pci_bdf(c.name) == c.bdf);
        }
    }
}

BOOST_AUTO_TEST_CASE(zero_gid_and_mtu_enum) {
    BOOST_TEST(rh::is_zero_gid("0000:0000:0000:0000:0000:0000:0000:0000"));
    BOOST_TEST(rh::is_zero_gid("::"));
    BOOST_TEST(!rh::is_zero_gid("fe80:0000:0000:0000:0c42:a1ff:fe65:4e9a"));
    BOOST_TEST(!rh::is_zero_gid(""));
    BOOST_TEST((rh::ibv_mtu_to_bytes(1) == 256u));
    BOOST_TEST((rh::ibv_mtu_to_bytes(3) == 1024u));
    BOOST_TEST((rh::ibv_mtu_to_bytes(5) == 4096u));
    BOOST_TEST(!rh::ibv_mtu_to_bytes(0).has_value());
    BOOST_TEST(!rh::ibv_mtu_to_bytes(6).has_value());
}

BOOST_AUTO_TEST_CASE(utc_timestamp_is_iso8601_z) {
    const auto t = std::chrono::system_clock::time_point(std::chrono::seconds(1780317296));
    BOOST_TEST(rh::utc_iso8601(t) == "2026-06-01T12:34:56Z");
}

BOOST_AUTO_TEST_SUITE_END()  // test_collectors_parse
