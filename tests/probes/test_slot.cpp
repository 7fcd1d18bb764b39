#define BOOST_TEST_MODULE slot
#include <boost/test/unit_test.hpp>

#include <vector>

#include "probes/slot.h"

using namespace rh;

BOOST_AUTO_TEST_CASE(stamped_slot_verifies) {
    std::vector<std::byte> buf(4096);
    const auto h = slot::fill_payload(buf, 7);
    slot::stamp(buf, h, 42);
    BOOST_TEST(slot::load_seq(buf) == 42u);
    BOOST_TEST((slot::verify(buf, 42) == slot::Check::ok));
    BOOST_TEST(slot::payload_hash(buf) == h);
}

BOOST_AUTO_TEST_CASE(detects_flipped_byte_anywhere) {
    std::vector<std::byte> buf(64);
    slot::stamp(buf, slot::fill_payload(buf, 1), 5);
    for (std::size_t i = 0; i < buf.size() - 4; ++i) {  // payload and checksum bytes
        auto copy = buf;
        copy[i] ^= std::byte{0x01};
        BOOST_TEST((slot::verify(copy, 5) == slot::Check::bad_checksum), "byte " << i);
    }
}

BOOST_AUTO_TEST_CASE(detects_wrong_seq) {
    std::vector<std::byte> buf(64);
    slot::stamp(buf, slot::fill_payload(buf, 1), 5);
    BOOST_TEST((slot::verify(buf, 6) == slot::Check::wrong_seq));
    // A stale checksum under a new seq is caught too.
    auto copy = buf;
    copy[60] = std::byte{6};
    BOOST_TEST((slot::verify(copy, 6) == slot::Check::bad_checksum));
}

BOOST_AUTO_TEST_CASE(payload_depends_on_seed_and_clear_resets_seq) {
    std::vector<std::byte> a(256), b(256);
    slot::fill_payload(a, 1);
    slot::fill_payload(b, 2);
    BOOST_TEST((a != b));
    slot::stamp(a, slot::payload_hash(a), 9);
    slot::clear_trailer(a);
    BOOST_TEST(slot::load_seq(a) == 0u);
    BOOST_TEST(slot::valid_size(64));
    BOOST_TEST(!slot::valid_size(8));
    BOOST_TEST(!slot::valid_size(100));
}
