#include <boost/test/unit_test.hpp>

#include "agent/cli/probe_args.h"

BOOST_AUTO_TEST_SUITE(test_probe_args)

using namespace rh;
using namespace rh::cli;

BOOST_AUTO_TEST_CASE(numbers_are_strict_decimal_in_range) {
    std::uint64_t v = 0;
    BOOST_TEST(!parse_number("iterations", "200", 1, 1000000, v));
    BOOST_TEST(v == 200u);
    BOOST_TEST(!parse_number("warmup", "0", 0, 100000, v));
    BOOST_TEST(v == 0u);
    auto e = parse_number("gid-index", "-1", 0, 255, v);
    BOOST_REQUIRE(e);
    BOOST_TEST(*e == "--gid-index: -1 is not allowed: expected a whole number from 0 to 255");
    for (const char* bad : {"", "+5", " 5", "5 ", "0x10", "1e3", "5k", "99999999999999999999999"})
        BOOST_TEST(parse_number("port", bad, 1, 65535, v).has_value(), bad);
    BOOST_TEST(parse_number("port", "0", 1, 65535, v).has_value());
    BOOST_TEST(parse_number("port", "99999", 1, 65535, v).has_value());
    BOOST_TEST(!parse_number("port", "65535", 1, 65535, v));
    BOOST_TEST(parse_number("iterations", "1000001", 1, 1000000, v)->find("from 1 to 1000000") !=
               std::string::npos);
}

BOOST_AUTO_TEST_CASE(sizes_follow_the_slot_rule) {
    std::vector<std::uint64_t> s;
    BOOST_TEST(!parse_sizes("64,4k,64K,1m,16M,24", s));
    BOOST_TEST(s == (std::vector<std::uint64_t>{64, 4096, 65536, 1048576, 16777216, 24}),
               boost::test_tools::per_element());
    BOOST_TEST(!parse_sizes("64KiB,1MiB", s));  // as the help texts write them
    BOOST_TEST((s == std::vector<std::uint64_t>{65536, 1048576}));
    BOOST_TEST(parse_sizes("17", s, "--size")->find("--size: 17 bytes") == 0u);
    auto e = parse_sizes("3", s);
    BOOST_REQUIRE(e);
    BOOST_TEST(*e ==
               "--sizes: 3 bytes: sizes must be multiples of 8 between 24 B and 16 MiB, "
               "because each message slot ends with a 16-byte trailer (checksums and sequence "
               "number)");
    e = parse_sizes("64,18446744073709551615k", s);
    BOOST_REQUIRE(e);
    BOOST_TEST(e->find("--sizes: 18446744073709551615k: sizes must be") == 0u);
    BOOST_TEST(parse_sizes("8", s).has_value());  // below 24
    // 16 fits no slot (8 payload bytes + the 16-byte trailer): the CLI refuses what the probe
    // session and the peer would refuse (one definition, probes/wire/probe_limits.h).
    BOOST_TEST(parse_sizes("16", s).has_value());
    BOOST_TEST(parse_sizes("20", s).has_value());   // not a multiple of 8
    BOOST_TEST(parse_sizes("17m", s).has_value());  // above 16 MiB
    BOOST_TEST(parse_sizes("16777224", s).has_value());
    BOOST_TEST(parse_sizes("-64", s).has_value());
    BOOST_TEST(parse_sizes("64,", s).has_value());
    BOOST_TEST(parse_sizes("", s).has_value());
    BOOST_TEST(parse_sizes("k", s).has_value());
}

BOOST_AUTO_TEST_CASE(ops) {
    std::vector<ProbeOp> o;
    BOOST_TEST(!parse_ops("read", o));
    BOOST_TEST(o.size() == 1u);
    BOOST_TEST(!parse_ops("write,read", o));
    BOOST_TEST(o.size() == 2u);
    BOOST_TEST(parse_ops("write,write", o).has_value());
    BOOST_TEST(parse_ops("", o).has_value());
}

BOOST_AUTO_TEST_CASE(send_op_in_the_order_given) {
    std::vector<ProbeOp> o;
    BOOST_TEST(!parse_ops("send", o));
    BOOST_TEST((o == std::vector<ProbeOp>{ProbeOp::send}));
    BOOST_TEST(!parse_ops("send,write,read", o));
    BOOST_TEST((o == std::vector<ProbeOp>{ProbeOp::send, ProbeOp::write, ProbeOp::read}));
    BOOST_TEST(std::string(to_string(o[0])) == "send");
    auto e = parse_ops("write,send,send", o);
    BOOST_REQUIRE(e);
    BOOST_TEST(*e == "--op: 'send' given twice");
    e = parse_ops("atomic", o);
    BOOST_REQUIRE(e);
    BOOST_TEST(*e ==
               "--op: unknown operation 'atomic' (expected write, read, send or a "
               "comma-separated list)");
    BOOST_TEST(parse_ops("SEND", o).has_value());  // names are lower case
}

BOOST_AUTO_TEST_CASE(rnr_retry_is_three_bits) {
    std::uint64_t v = 99;
    BOOST_TEST(!parse_number("rnr-retry", "0", 0, limits::kMaxRnrRetry, v));
    BOOST_TEST(v == 0u);
    BOOST_TEST(!parse_number("rnr-retry", "7", 0, limits::kMaxRnrRetry, v));
    BOOST_TEST(v == 7u);
    auto e = parse_number("rnr-retry", "8", 0, limits::kMaxRnrRetry, v);
    BOOST_REQUIRE(e);
    BOOST_TEST(*e == "--rnr-retry: 8 is not allowed: expected a whole number from 0 to 7");
}

BOOST_AUTO_TEST_CASE(only_the_live_sysfs) {
    BOOST_TEST(!live_sysfs_error("probe", "/sys"));
    BOOST_TEST(!live_sysfs_error("probe", "/sys/"));
    auto e = live_sysfs_error("responder", RH_FIXTURES_DIR);
    BOOST_REQUIRE(e);
    BOOST_TEST(e->find("responder needs the live /sys: verbs see this host's devices, not a "
                       "fixture tree") == 0u);
}

BOOST_AUTO_TEST_SUITE_END()  // test_probe_args
