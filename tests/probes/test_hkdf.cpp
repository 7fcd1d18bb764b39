// probes/auth/hkdf: HKDF-SHA256 against RFC 5869's test vectors (Appendix A, cases 1 and 3: with
// a salt and info, and with neither), so both of its users (the frame keys and the fabric key's
// fingerprint) derive what the RFC says.
#include <boost/test/unit_test.hpp>

#include <string>
#include <vector>

#include "probes/auth/hkdf.h"

BOOST_AUTO_TEST_SUITE(test_hkdf)

namespace {

std::vector<std::uint8_t> bytes(const std::string& hex) {
    std::vector<std::uint8_t> out;
    for (std::size_t i = 0; i + 1 < hex.size(); i += 2)
        out.push_back(static_cast<std::uint8_t>(std::stoi(hex.substr(i, 2), nullptr, 16)));
    return out;
}

std::vector<std::uint8_t> derive(const std::vector<std::uint8_t>& ikm,
                                 const std::vector<std::uint8_t>& salt,
                                 const std::vector<std::uint8_t>& info, std::size_t n) {
    std::vector<std::uint8_t> out(n);
    BOOST_TEST_REQUIRE(rh::auth::hkdf_sha256(ikm, salt, info, out));
    return out;
}

const std::vector<std::uint8_t> kIkm(22, 0x0b);

}  // namespace

BOOST_AUTO_TEST_CASE(rfc5869_case_1_with_salt_and_info) {
    const auto okm =
        derive(kIkm, bytes("000102030405060708090a0b0c"), bytes("f0f1f2f3f4f5f6f7f8f9"), 42);
    BOOST_TEST(okm == bytes("3cb25f25faacd57a90434f64d0362f2a2d2d0a90cf1a5a4c5db02d56ecc4c5bf"
                            "34007208d5b887185865"),
               boost::test_tools::per_element());
}

BOOST_AUTO_TEST_CASE(rfc5869_case_3_without_salt_or_info) {
    const auto okm = derive(kIkm, {}, {}, 42);
    BOOST_TEST(okm == bytes("8da4e775a563c18f715f802a063c5a31b8a11f5c5ee1879ec3454e5f3c738d2d"
                            "9d201395faa4b61a96c8"),
               boost::test_tools::per_element());
}

BOOST_AUTO_TEST_CASE(nothing_to_fill_is_refused) {
    std::vector<std::uint8_t> none;
    BOOST_TEST(!rh::auth::hkdf_sha256(kIkm, {}, {}, none));
}

BOOST_AUTO_TEST_SUITE_END()
