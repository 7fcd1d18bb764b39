#include <boost/test/unit_test.hpp>

#include <vector>

#include "probes/wire/slot.h"
#include "probes/wire/stream_slots.h"

BOOST_AUTO_TEST_SUITE(test_slot)

using namespace rh;

namespace {
std::vector<std::byte> stamped(std::size_t size, std::uint32_t seed, std::uint32_t seq) {
    std::vector<std::byte> buf(size);
    slot::stamp(buf, slot::fill_payload(buf, seed), seq);
    return buf;
}
}  // namespace

BOOST_AUTO_TEST_CASE(stamped_slot_verifies) {
    std::vector<std::byte> buf(4096);
    const auto h = slot::fill_payload(buf, 7);
    slot::stamp(buf, h, 42);
    BOOST_TEST(slot::load_seq(buf) == 42u);
    BOOST_TEST((slot::verify(buf, 42) == slot::Check::ok));
    BOOST_TEST((slot::verify_trailer(buf, 42) == slot::Check::ok));
    BOOST_TEST(slot::payload_hash(buf) == h);
    BOOST_TEST(slot::load_checksum(buf) == slot::checksum(h, 42));
}

BOOST_AUTO_TEST_CASE(flipped_payload_byte_is_caught_by_full_verification) {
    // Every byte of a slot larger than the prefix, every single-bit flip of some: past the
    // prefix only the full pass sees it (the trailer check must not pretend to).
    const auto buf = stamped(512, 1, 5);
    for (std::size_t i = 0; i < buf.size() - slot::kTrailerBytes; ++i)
        for (int bit : {0, 7}) {
            auto copy = buf;
            copy[i] ^= std::byte(1u << bit);
            const auto c = slot::verify(copy, 5);
            if (i < slot::kPrefixBytes)
                BOOST_TEST((c == slot::Check::bad_trailer), "byte " << i);
            else
                BOOST_TEST((c == slot::Check::bad_checksum), "byte " << i);
        }
}

BOOST_AUTO_TEST_CASE(flipped_prefix_or_trailer_byte_is_always_caught_by_the_trailer_check) {
    for (std::size_t size : {std::size_t(24), std::size_t(64), std::size_t(65536)}) {
        const auto buf = stamped(size, 3, 77);
        const std::size_t body = size - slot::kTrailerBytes;
        std::vector<std::size_t> where;
        for (std::size_t i = 0; i < std::min(body, slot::kPrefixBytes); ++i) where.push_back(i);
        for (std::size_t i = body; i < size - 4; ++i) where.push_back(i);  // checksum + check
        for (std::size_t i : where)
            for (int bit = 0; bit < 8; ++bit) {
                auto copy = buf;
                copy[i] ^= std::byte(1u << bit);
                BOOST_TEST((slot::verify_trailer(copy, 77) == slot::Check::bad_trailer),
                           "size " << size << " byte " << i << " bit " << bit);
            }
    }
}

BOOST_AUTO_TEST_CASE(wrong_seq_is_caught) {
    auto buf = stamped(64, 1, 5);
    BOOST_TEST((slot::verify(buf, 6) == slot::Check::wrong_seq));
    BOOST_TEST((slot::verify_trailer(buf, 6) == slot::Check::wrong_seq));
    // A stale trailer under a new seq (seq written, checksum not) is caught without the full pass.
    buf[60] = std::byte{6};
    BOOST_TEST((slot::verify_trailer(buf, 6) == slot::Check::bad_trailer));
    BOOST_TEST((slot::verify(buf, 6) == slot::Check::bad_trailer));
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
    BOOST_TEST(slot::valid_size(24));
    BOOST_TEST(!slot::valid_size(16));  // layout 2: the trailer alone is 16 bytes
    BOOST_TEST(!slot::valid_size(8));
    BOOST_TEST(!slot::valid_size(100));
}

BOOST_AUTO_TEST_CASE(sampler_picks_the_configured_share) {
    slot::Sampler all(1.0, 1), none(0.0, 1), quarter(0.25, 42);
    std::uint64_t a = 0, z = 0, q = 0;
    const int n = 100000;
    for (int i = 0; i < n; ++i) a += all.next(), z += none.next(), q += quarter.next();
    BOOST_TEST(a == std::uint64_t(n));
    BOOST_TEST(z == 0u);
    BOOST_TEST(q > 0.24 * n);  // binomial sd ~137: 1% is > 7 sd
    BOOST_TEST(q < 0.26 * n);
    BOOST_TEST(slot::Sampler(7.0).fraction() == 1.0);  // clamped
    BOOST_TEST(slot::default_verify_fraction(4096) == 1.0);
    BOOST_TEST(slot::default_verify_fraction(65536) == 0.25);
}

BOOST_AUTO_TEST_CASE(stream_check_trailer_always_payload_when_sampled) {
    const std::size_t size = 4096;
    stream::Patterns pat(size, 4, 9);
    std::vector<std::byte> s(size);
    pat.fill(s, 2);
    pat.stamp(s, 6);  // message 6 uses transmit slot 6 % 4 = 2
    BOOST_TEST((pat.check(s, 6, size, true) == stream::Bad::none));
    BOOST_TEST((pat.check(s, 7, size, true) == stream::Bad::wrong_seq));
    BOOST_TEST((pat.check(s, 6, size - 8, true) == stream::Bad::wrong_length));
    auto deep = s;
    deep[1000] ^= std::byte{0x10};
    BOOST_TEST((pat.check(deep, 6, size, true) == stream::Bad::payload_mismatch));
    BOOST_TEST((pat.check(deep, 6, size, false) == stream::Bad::none));  // not sampled: unseen
    auto front = s;
    front[3] ^= std::byte{0x10};
    BOOST_TEST((pat.check(front, 6, size, false) == stream::Bad::bad_trailer));
    // Another transmit slot's intact message under this message's seq: the checksum is wrong.
    std::vector<std::byte> other(size);
    pat.fill(other, 1);
    slot::stamp(other, slot::payload_hash(other), stream::seq_of(6));
    BOOST_TEST((pat.check(other, 6, size, false) == stream::Bad::bad_checksum));
}

BOOST_AUTO_TEST_SUITE_END()  // test_slot
