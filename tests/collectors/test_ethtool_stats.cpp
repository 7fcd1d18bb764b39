#include <boost/test/unit_test.hpp>

#include <linux/ethtool.h>

#include <algorithm>
#include <cstring>
#include <functional>
#include <string>
#include <vector>

#include "collectors/sources/ethtool_stats.h"

BOOST_AUTO_TEST_SUITE(test_ethtool_stats)

namespace {

std::vector<std::uint8_t> gstrings(const std::vector<std::string>& names) {
    std::vector<std::uint8_t> b(names.size() * rh::kEthGstringLen, 0);
    for (std::size_t i = 0; i < names.size(); ++i)
        std::memcpy(b.data() + i * rh::kEthGstringLen, names[i].data(),
                    std::min(names[i].size(), rh::kEthGstringLen));
    return b;
}

// Each counter's value derives from its name, so a value paired with the wrong name shows.
std::uint64_t value_of(const std::string& name) {
    std::uint64_t v = 1469598103934665603ull;
    for (char c : name) v = (v ^ static_cast<unsigned char>(c)) * 1099511628211ull;
    return v;
}

// A kernel serving SIOCETHTOOL for one netdev. `before(call, cmd)` runs before each call and may
// change the string set (as mlx5 does when PFC is enabled). `legacy`: the pre-2025 behaviour
// (count overwritten with the current one, that many entries copied); otherwise the fixed one
// (a non-zero count that differs from the current one answers 0 entries).
struct FakeKernel {
    std::vector<std::string> names;
    bool legacy = false;
    std::function<void(FakeKernel&, int call, std::uint32_t cmd)> before;
    int calls = 0;
    bool overflow = false;
    int fail_with = 0;

    template <typename T>
    static T get(std::span<std::uint8_t> b, std::size_t off) {
        T v;
        std::memcpy(&v, b.data() + off, sizeof v);
        return v;
    }
    template <typename T>
    static void put(std::span<std::uint8_t> b, std::size_t off, T v) {
        std::memcpy(b.data() + off, &v, sizeof v);
    }

    // Copies `n` entries of `size` bytes at `off`, or flags the user-buffer overflow.
    bool fits(std::span<std::uint8_t> b, std::size_t off, std::size_t n, std::size_t size) {
        if (off + n * size <= b.size()) return true;
        overflow = true;
        return false;
    }

    int operator()(std::span<std::uint8_t> b) {
        const auto cmd = get<std::uint32_t>(b, 0);
        if (before) before(*this, ++calls, cmd);
        if (fail_with) return fail_with;
        const auto n = static_cast<std::uint32_t>(names.size());
        switch (cmd) {
            case ETHTOOL_GSSET_INFO:
                put<std::uint64_t>(b, offsetof(ethtool_sset_info, sset_mask), 1ull << ETH_SS_STATS);
                put<std::uint32_t>(b, offsetof(ethtool_sset_info, data), n);
                return 0;
            case ETHTOOL_GSTRINGS: {
                const auto want = get<std::uint32_t>(b, offsetof(ethtool_gstrings, len));
                if (!legacy && want && want != n) {
                    put<std::uint32_t>(b, offsetof(ethtool_gstrings, len), 0);
                    return 0;
                }
                put<std::uint32_t>(b, offsetof(ethtool_gstrings, len), n);
                if (!fits(b, offsetof(ethtool_gstrings, data), n, ETH_GSTRING_LEN)) return EFAULT;
                auto g = gstrings(names);
                std::memcpy(b.data() + offsetof(ethtool_gstrings, data), g.data(), g.size());
                return 0;
            }
            case ETHTOOL_GSTATS: {
                const auto want = get<std::uint32_t>(b, offsetof(ethtool_stats, n_stats));
                if (!legacy && want && want != n) {
                    put<std::uint32_t>(b, offsetof(ethtool_stats, n_stats), 0);
                    return 0;
                }
                put<std::uint32_t>(b, offsetof(ethtool_stats, n_stats), n);
                if (!fits(b, offsetof(ethtool_stats, data), n, 8)) return EFAULT;
                for (std::uint32_t i = 0; i < n; ++i)
                    put<std::uint64_t>(b, offsetof(ethtool_stats, data) + 8 * i,
                                       value_of(names[i]));
                return 0;
            }
        }
        return EOPNOTSUPP;
    }
};

const std::vector<std::string> kBase = {"rx_packets",       "tx_packets",      "rx_prio3_packets",
                                        "tx_prio3_packets", "rx_discards_phy", "tx_discards_phy"};

// mlx5 enabling PFC on priority 3: five names appear in the middle of the set.
void enable_pfc3(FakeKernel& k) {
    const std::vector<std::string> pfc = {"rx_prio3_pause", "rx_prio3_pause_duration",
                                          "tx_prio3_pause", "tx_prio3_pause_duration",
                                          "rx_prio3_pause_transition"};
    k.names.insert(k.names.begin() + 4, pfc.begin(), pfc.end());
}

void check_paired(const std::vector<rh::Counter>& cs, const std::vector<std::string>& names) {
    BOOST_TEST_REQUIRE(cs.size() == names.size());
    for (std::size_t i = 0; i < cs.size(); ++i) {
        BOOST_TEST(cs[i].name == names[i]);
        BOOST_TEST_REQUIRE(cs[i].value.has_value());
        BOOST_TEST(*cs[i].value == value_of(cs[i].name), "value of " << cs[i].name);
    }
}

}  // namespace

BOOST_AUTO_TEST_CASE(gstrings_full_32_char_name_and_trailing_spaces) {
    const std::string full32 = "rx_prio3_pause_transition_abcdef";  // exactly 32, no NUL
    BOOST_TEST_REQUIRE(full32.size() == 32u);
    auto names = gstrings({full32, "tx_pause_storm_warning_events ", "rx_packets"});
    const std::vector<std::uint64_t> values = {7, 8, 9};
    auto cs = rh::parse_ethtool_gstats(names, values, "src");
    BOOST_TEST_REQUIRE(cs.size() == 3u);
    BOOST_TEST(cs[0].name == full32);
    BOOST_TEST(cs[1].name == "tx_pause_storm_warning_events");
    BOOST_TEST(cs[2].name == "rx_packets");
    BOOST_TEST(*cs[0].value == 7u);
    BOOST_TEST(*cs[2].value == 9u);
    BOOST_TEST(cs[1].source == "src");
    // More values than names (or the reverse): only complete pairs.
    BOOST_TEST(rh::parse_ethtool_gstats(names, std::vector<std::uint64_t>{1}, "s").size() == 1u);
    BOOST_TEST(rh::parse_ethtool_gstats(std::span(names).first(40), values, "s").size() == 1u);
}

BOOST_AUTO_TEST_CASE(stable_set_reads_names_and_values) {
    FakeKernel k;
    k.names = kBase;
    auto cs = rh::read_ethtool_stats("eth0", std::ref(k));
    BOOST_TEST_REQUIRE(cs.ok());
    check_paired(*cs, kBase);
    BOOST_TEST((*cs)[0].source == "ethtool -S eth0 (SIOCETHTOOL)");
    BOOST_TEST(!k.overflow);
}

BOOST_AUTO_TEST_CASE(set_grows_between_gstrings_and_gstats) {
    for (bool legacy : {false, true}) {
        BOOST_TEST_CONTEXT("legacy kernel " << legacy) {
            FakeKernel k;
            k.names = kBase;
            k.legacy = legacy;
            bool done = false;
            k.before = [&](FakeKernel& self, int, std::uint32_t cmd) {
                if (cmd == ETHTOOL_GSTATS && !done) {
                    enable_pfc3(self);
                    done = true;
                }
            };
            auto cs = rh::read_ethtool_stats("ens1f0np0", std::ref(k));
            BOOST_TEST_REQUIRE(cs.ok(), (cs ? "" : cs.error().message()));
            check_paired(*cs, k.names);  // the grown set, every value under its own name
            BOOST_TEST(cs->size() == kBase.size() + 5);
            BOOST_TEST(!k.overflow, "the kernel wrote past the user buffer");
            BOOST_TEST(k.calls > 4, "names were read again");
        }
    }
}

BOOST_AUTO_TEST_CASE(set_grows_between_count_and_gstrings) {
    FakeKernel k;
    k.names = kBase;
    k.legacy = true;
    k.before = [](FakeKernel& self, int call, std::uint32_t) {
        if (call == 2) enable_pfc3(self);
    };
    auto cs = rh::read_ethtool_stats("ens1f0np0", std::ref(k));
    BOOST_TEST_REQUIRE(cs.ok());
    check_paired(*cs, k.names);
    BOOST_TEST(!k.overflow);
}

BOOST_AUTO_TEST_CASE(same_count_different_names_is_read_again) {
    // PFC moved from priority 3 to 4: same count, other names; values read after the move must
    // not be reported under the priority-3 names.
    FakeKernel k;
    k.names = kBase;
    enable_pfc3(k);
    bool moved = false;
    k.before = [&](FakeKernel& self, int, std::uint32_t cmd) {
        if (cmd == ETHTOOL_GSTATS && !moved) {
            for (auto& n : self.names)
                if (n.find("prio3_pause") != std::string::npos) n.replace(n.find('3'), 1, "4");
            moved = true;
        }
    };
    auto cs = rh::read_ethtool_stats("ens1f0np0", std::ref(k));
    BOOST_TEST_REQUIRE(cs.ok());
    check_paired(*cs, k.names);
    BOOST_TEST(std::any_of(cs->begin(), cs->end(),
                           [](const rh::Counter& c) { return c.name == "rx_prio4_pause"; }));
}

// The names of the last read stand for the GSTRINGS before GSTATS (3 calls, not 4), and a set
// that changed since (same count, other names) is still never paired with the old names.
BOOST_AUTO_TEST_CASE(known_names_save_a_call_and_are_checked) {
    FakeKernel k;
    k.names = kBase;
    enable_pfc3(k);
    k.before = [](FakeKernel&, int, std::uint32_t) {};  // counts the calls
    std::vector<std::uint8_t> known;
    auto first = rh::read_ethtool_stats("ens1f0np0", std::ref(k), &known);
    BOOST_TEST_REQUIRE(first.ok());
    BOOST_TEST(k.calls == 4);
    BOOST_TEST(known.size() == k.names.size() * rh::kEthGstringLen);

    k.calls = 0;
    auto second = rh::read_ethtool_stats("ens1f0np0", std::ref(k), &known);
    BOOST_TEST_REQUIRE(second.ok());
    check_paired(*second, k.names);
    BOOST_TEST(k.calls == 3);

    for (auto& n : k.names)  // PFC moved to priority 4 since: same count, other names
        if (n.find("prio3_pause") != std::string::npos) n.replace(n.find('3'), 1, "4");
    auto moved = rh::read_ethtool_stats("ens1f0np0", std::ref(k), &known);
    BOOST_TEST_REQUIRE(moved.ok());
    check_paired(*moved, k.names);
    BOOST_TEST(std::any_of(moved->begin(), moved->end(),
                           [](const rh::Counter& c) { return c.name == "rx_prio4_pause"; }));
}

BOOST_AUTO_TEST_CASE(set_that_never_settles_is_an_error_not_a_guess) {
    FakeKernel k;
    k.names = kBase;
    k.before = [](FakeKernel& self, int, std::uint32_t cmd) {
        if (cmd == ETHTOOL_GSTATS)
            self.names.push_back("grow_" + std::to_string(self.names.size()));
    };
    auto cs = rh::read_ethtool_stats("eth0", std::ref(k));
    BOOST_TEST_REQUIRE(!cs.ok());
    BOOST_TEST(cs.error().message().find("changed during each of") != std::string::npos);
    BOOST_TEST(k.calls < 40, "bounded retries");
    BOOST_TEST(!k.overflow);
}

BOOST_AUTO_TEST_CASE(ioctl_errors_and_empty_sets) {
    FakeKernel k;
    k.fail_with = EOPNOTSUPP;
    auto cs = rh::read_ethtool_stats("lo", std::ref(k));
    BOOST_TEST_REQUIRE(!cs.ok());
    BOOST_TEST(cs.error().err_no == EOPNOTSUPP);
    BOOST_TEST(cs.error().op == "SIOCETHTOOL ETHTOOL_GSSET_INFO");

    FakeKernel empty;
    auto none = rh::read_ethtool_stats("dummy0", std::ref(empty));
    BOOST_TEST_REQUIRE(none.ok());
    BOOST_TEST(none->empty());
}

BOOST_AUTO_TEST_CASE(text_replay_splits_at_last_colon_space) {
    const std::string text =
        "NIC statistics:\n"
        "     rx_packets: 12\n"
        "     tx_pause_storm_warning_events : 3\n"
        "     [0]: rx_ucast_packets: 5\n"
        "     weird_value: N/A\n"
        "\n";
    auto cs = rh::parse_ethtool_text(text, "rec");
    BOOST_TEST_REQUIRE(cs.size() == 4u);
    BOOST_TEST(cs[0].name == "rx_packets");
    BOOST_TEST(*cs[0].value == 12u);
    BOOST_TEST(cs[1].name == "tx_pause_storm_warning_events");
    BOOST_TEST(*cs[1].value == 3u);
    BOOST_TEST(cs[2].name == "[0]: rx_ucast_packets");
    BOOST_TEST(*cs[2].value == 5u);
    BOOST_TEST(!cs[3].value.has_value());
    BOOST_TEST(cs[3].error.find("N/A") != std::string::npos);
}

BOOST_AUTO_TEST_CASE(replay_source_reads_recorded_file) {
    auto src = rh::make_ethtool_replay_source(std::string(RH_FIXTURES_DIR) + "/recordings");
    auto cs = src->read("mlx5_ens1f0np0_ethtool_S");
    BOOST_TEST_REQUIRE(cs.ok());
    auto it = std::find_if(cs->begin(), cs->end(),
                           [](const rh::Counter& c) { return c.name == "rx_prio3_pause"; });
    BOOST_TEST_REQUIRE((it != cs->end()));
    BOOST_TEST(*it->value == 56789u);
    BOOST_TEST(it->source.find("recording") != std::string::npos);
    auto missing = src->read("no_such_if");
    BOOST_TEST_REQUIRE(!missing.ok());
    BOOST_TEST(missing.error().err_no == ENOENT);
}

BOOST_AUTO_TEST_SUITE_END()  // test_ethtool_stats
