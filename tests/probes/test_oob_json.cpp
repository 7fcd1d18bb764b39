// Json frames of the control channel (probes/wire/oob_protocol.h version 3) and their transport
// (probes/wire/tcp.h send_json / recv_any) on loopback.
#include <boost/test/unit_test.hpp>

#include <cstring>
#include <thread>

#include "probes/wire/oob_protocol.h"
#include "probes/wire/tcp.h"
#include "tests/support/loopback_listener.h"

BOOST_AUTO_TEST_SUITE(test_oob_json)

using namespace rh;
using namespace rh::oob;

namespace {
std::string decode_error(const std::vector<std::byte>& f) {
    auto r = decode_json(f);
    BOOST_REQUIRE(!r.ok());
    return r.error().message();
}
void put(std::vector<std::byte>& f, std::size_t off, std::uint64_t v, int n) {
    for (int i = 0; i < n; ++i) f[off + i] = static_cast<std::byte>(v >> (8 * (n - 1 - i)));
}
std::vector<std::byte> raw_json_frame(const std::string& body) {
    std::vector<std::byte> f(kHeaderSize + body.size());
    put(f, 0, kMagic, 4);
    put(f, 4, kJsonVersion, 2);
    put(f, 6, static_cast<std::uint16_t>(Type::json), 2);
    put(f, 8, f.size(), 4);
    std::memcpy(f.data() + kHeaderSize, body.data(), body.size());
    return f;
}
}  // namespace

BOOST_AUTO_TEST_CASE(round_trip_and_header) {
    const nlohmann::json body{{"cmd", "hello"}, {"n", 7}, {"name", "g\xc3\xa9"}};
    auto f = encode_json(body);
    BOOST_REQUIRE(f.ok());
    BOOST_TEST(std::memcmp(f->data(), "RHOB", 4) == 0);
    // Version 6 and type json in the header; the length covers header + body.
    BOOST_TEST(std::to_integer<int>((*f)[5]) ==
               6);  // json frames: protocol 6 (address-bound handshake, frames MAC'd)
    BOOST_TEST(std::to_integer<int>((*f)[7]) == 10);
    BOOST_TEST(is_json_header(*f));
    auto len = frame_length(*f);
    BOOST_REQUIRE(len.ok());
    BOOST_TEST(*len == f->size());
    // The body on the wire is ASCII only (non-ASCII escaped).
    for (std::size_t i = kHeaderSize; i < f->size(); ++i)
        BOOST_TEST(std::to_integer<int>((*f)[i]) < 0x80);
    auto d = decode_json(*f);
    BOOST_REQUIRE_MESSAGE(d.ok(), (d.ok() ? "" : d.error().message()));
    BOOST_TEST((*d == body));
}

BOOST_AUTO_TEST_CASE(fixed_and_json_frames_speak_version_4) {
    // Version 4 (xxh3 slots): both kinds of frame carry it; older ones are refused by name.
    Message m;
    m.type = Type::query;
    const Frame f = encode(m);
    BOOST_TEST(std::to_integer<int>(f[5]) == 4);
    BOOST_TEST(!is_json_header(f));
    BOOST_TEST(*frame_length(f) == kMessageSize);
    auto j = raw_json_frame(R"({"cmd":"x"})");
    put(j, 4, 3, 2);
    BOOST_TEST(decode_error(j).find("peer speaks protocol version 3 in a json frame, this build "
                                    "speaks 6 (upgrade rocehealth on the peer") !=
               std::string::npos);
    // A protocol-4 peer (control commands without the fabric-key handshake) likewise, and a
    // protocol-5 one (frames after the handshake without MACs).
    put(j, 4, 4, 2);
    BOOST_TEST(decode_error(j).find("peer speaks protocol version 4 in a json frame, this build "
                                    "speaks 6") != std::string::npos);
    put(j, 4, 5, 2);
    BOOST_TEST(decode_error(j).find("peer speaks protocol version 5 in a json frame, this build "
                                    "speaks 6") != std::string::npos);
    Frame g = encode(m);
    g[5] = std::byte{2};
    BOOST_TEST(!check_header(g).ok());
    BOOST_TEST(check_header(g).error().message().find(
                   "peer speaks protocol version 2 in a frame, this build speaks 4") !=
               std::string::npos);
    g[5] = std::byte{5};  // a newer peer: this side is the one to upgrade
    BOOST_TEST(check_header(g).error().message().find("upgrade this rocehealth") !=
               std::string::npos);
}

BOOST_AUTO_TEST_CASE(limits_and_malformed_bodies) {
    // Length limits: at least 2 body bytes, at most kMaxJsonBytes.
    auto f = raw_json_frame("{}");
    put(f, 8, kHeaderSize + kMaxJsonBytes + 1, 4);
    BOOST_TEST(decode_error(f).find("json frame length") != std::string::npos);
    put(f, 8, kHeaderSize + 1, 4);
    BOOST_TEST(!check_header(f).ok());
    // Encoding refuses what a peer would refuse.
    const std::string big(kMaxJsonBytes, 'x');
    auto e = encode_json({{"cmd", "x"}, {"pad", big}});
    BOOST_REQUIRE(!e.ok());
    BOOST_TEST(e.error().message().find("bytes > limit 1048576") != std::string::npos);
    BOOST_TEST(!encode_json({{"no_cmd", 1}}).ok());
    BOOST_TEST(!encode_json(nlohmann::json::array()).ok());
    BOOST_TEST(!encode_json({{"cmd", 5}}).ok());
    // Decoding names what is wrong with the body.
    BOOST_TEST(decode_error(raw_json_frame("{\"cmd\": ")).find("not JSON") != std::string::npos);
    // Found by tests/fuzz (fuzz_oob_frame): a number no double holds threw out of the decoder
    // and took the responder down; now it is an error naming the place, as is a key given twice.
    BOOST_TEST(
        decode_error(raw_json_frame(R"({"cmd":"x","n":7e400})")).find("not JSON at line 1") !=
        std::string::npos);
    BOOST_TEST(decode_error(raw_json_frame(R"({"cmd":"x","cmd":"y"})")).find("duplicate key cmd") !=
               std::string::npos);
    BOOST_TEST(decode_error(raw_json_frame("[1,2]")).find("not a JSON object") !=
               std::string::npos);
    BOOST_TEST(decode_error(raw_json_frame("{\"c\":1}")).find("no string \"cmd\"") !=
               std::string::npos);
    // A frame cut short or with trailing bytes.
    auto ok = raw_json_frame(R"({"cmd":"x"})");
    auto cut = ok;
    cut.pop_back();
    BOOST_TEST(decode_error(cut).find("truncated") != std::string::npos);
    auto longer = ok;
    longer.push_back(std::byte{' '});
    BOOST_TEST(decode_error(longer).find("oversize") != std::string::npos);
    // The fixed decoder does not take a json frame for a message.
    BOOST_TEST(!decode(ok).ok());
}

BOOST_AUTO_TEST_CASE(both_kinds_over_one_connection) {
    auto [listener, port] = test::listen_on_free_port();
    std::thread client([port] {
        auto s = tcp::connect({"127.0.0.1", port}, tcp::deadline_in(2000));
        if (!s) return;
        Message q;
        q.type = Type::query;
        (void)tcp::send_json(*s, {{"cmd", "hello"}, {"k", "v"}}, tcp::deadline_in(2000));
        (void)tcp::send_msg(*s, q, tcp::deadline_in(2000));
        (void)tcp::send_json(*s, {{"cmd", "bye"}}, tcp::deadline_in(2000));
    });
    std::string peer;
    auto a = tcp::accept(listener, 2000, peer);
    BOOST_REQUIRE(a.ok());
    BOOST_REQUIRE(a->has_value());
    const tcp::Socket& s = **a;
    auto r1 = tcp::recv_any(s, tcp::deadline_in(2000));
    BOOST_REQUIRE(r1.ok());
    BOOST_REQUIRE(r1->json.has_value());
    BOOST_TEST((*r1->json)["k"] == "v");
    auto r2 = tcp::recv_any(s, tcp::deadline_in(2000));
    BOOST_REQUIRE(r2.ok());
    BOOST_REQUIRE(r2->fixed.has_value());
    BOOST_TEST((r2->fixed->type == Type::query));
    // recv_msg (probe sessions) refuses a json frame by name.
    auto r3 = tcp::recv_msg(s, tcp::deadline_in(2000));
    BOOST_REQUIRE(!r3.ok());
    BOOST_TEST(r3.error().message().find("unexpected json frame \"bye\"") != std::string::npos);
    client.join();
    // The stop flag ends a wait at once.
    std::atomic<bool> stop{true};
    auto r4 = tcp::recv_any(s, tcp::deadline_in(5000), stop);
    BOOST_REQUIRE(!r4.ok());
    BOOST_TEST(r4.error().err_no == EINTR);
}

// A link that goes down mid-frame (the accept fault stage) stalls a frame past a poller's short
// deadline. The frame must still be read whole, and the next one too: a timeout that dropped the
// bytes already read made the next read start mid-frame ("bad magic").
BOOST_AUTO_TEST_CASE(frame_stalled_past_a_short_deadline_is_read_whole) {
    auto [listener, port] = test::listen_on_free_port();
    const std::string big(20000, 'x');
    std::jthread client([port, &big] {
        auto s = tcp::connect({"127.0.0.1", port}, tcp::deadline_in(2000));
        if (!s) return;
        auto f = encode_json({{"cmd", "sample_pass"}, {"pad", big}});
        if (!f) return;
        const std::span<const std::byte> all(*f);
        (void)tcp::send_all(*s, all.first(kHeaderSize + 100), tcp::deadline_in(2000));
        std::this_thread::sleep_for(std::chrono::milliseconds(600));
        (void)tcp::send_all(*s, all.subspan(kHeaderSize + 100), tcp::deadline_in(2000));
        (void)tcp::send_json(*s, {{"cmd", "sample_end"}}, tcp::deadline_in(2000));
    });
    std::string peer;
    auto a = tcp::accept(listener, 2000, peer);
    BOOST_REQUIRE(a.ok());
    BOOST_REQUIRE(a->has_value());
    const tcp::Socket& s = **a;
    std::vector<std::string> got;
    const auto give_up = tcp::deadline_in(5000);
    while (got.size() < 2 && tcp::Clock::now() < give_up) {
        auto r = tcp::recv_any(s, tcp::deadline_in(100));  // the sampler's short poll
        if (!r && r.error().err_no == ETIMEDOUT) continue;
        BOOST_REQUIRE_MESSAGE(r.ok(), (r.ok() ? "" : r.error().message()));
        BOOST_REQUIRE(r->json.has_value());
        got.push_back((*r->json)["cmd"].get<std::string>());
        if (got.size() == 1) BOOST_TEST((*r->json)["pad"].get<std::string>().size() == big.size());
    }
    client.join();
    BOOST_TEST(got == (std::vector<std::string>{"sample_pass", "sample_end"}));
}

BOOST_AUTO_TEST_SUITE_END()  // test_oob_json
