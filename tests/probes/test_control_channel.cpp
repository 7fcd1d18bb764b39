// The control channel after the fabric-key handshake (issue 27, items 1 and 4), on loopback TCP
// with the code's own functions: a relayed handshake fails, and every frame after it is MAC'd
// with a sequence number, so an injected, replayed, dropped, reordered or altered frame is refused
// by name and ends the connection.
#include <sys/socket.h>

#include <boost/test/unit_test.hpp>
#include <optional>
#include <thread>

#include "probes/auth/handshake.h"
#include "probes/wire/frame_mac.h"
#include "probes/wire/tcp.h"
#include "tests/support/loopback_listener.h"

BOOST_AUTO_TEST_SUITE(test_control_channel)

using namespace rh;
using test::listen_on_free_port;

namespace {

constexpr const char* kMacRefusal = "MAC does not verify: injected, replayed or altered";

tcp::Deadline soon() {
    return tcp::deadline_in(5000);
}

auth::FabricKey key_of(char fill) {
    return {std::vector<std::uint8_t>(32, static_cast<std::uint8_t>(fill)), "test.key"};
}

std::string port_text(std::uint16_t port) {
    return "127.0.0.1:" + std::to_string(port);
}

/// Client and responder after a real handshake on loopback: both protected.
std::pair<tcp::Socket, tcp::Socket> keyed_pair(const auth::FabricKey& k) {
    auto [c, s] = test::loopback_pair();
    Status server = Error{"test", "", 0, "no first frame"};
    std::thread t([&, &s = s] {
        auto first = tcp::recv_any(s, soon());
        if (first && first->json) server = auth::verify_client(s, *first->json, &k, soon());
    });
    const Status client = auth::prove_to_responder(c, k, soon());
    t.join();
    BOOST_REQUIRE_MESSAGE(client.ok(), (client ? "" : client.error().message()));
    BOOST_REQUIRE_MESSAGE(server.ok(), (server ? "" : server.error().message()));
    BOOST_REQUIRE(c.frame_auth() && s.frame_auth());
    return {std::move(c), std::move(s)};
}

/// A json frame as `a`'s side would put it on the wire (counted by `a`), without sending it:
/// what an on-path attacker records, holds back or reorders.
std::vector<std::byte> sealed(tcp::FrameAuth& a, std::vector<std::byte> frame) {
    const auto t = a.seal(frame);
    frame.insert(frame.end(), t.begin(), t.end());
    return frame;
}
std::vector<std::byte> json_frame(const nlohmann::json& j) {
    auto f = oob::encode_json(j);
    BOOST_REQUIRE(f.ok());
    return *f;
}

/// Bytes written into the TCP stream behind the socket's back (an on-path host's injection).
void inject(const tcp::Socket& s, std::span<const std::byte> bytes) {
    BOOST_REQUIRE(tcp::send_all(s, bytes, soon()).ok());
}

/// The receiver's error for the next frame; fails the test when a frame is accepted.
std::string refusal(const tcp::Socket& s) {
    auto r = tcp::recv_any(s, soon());
    BOOST_REQUIRE_MESSAGE(!r.ok(), "a frame was accepted");
    BOOST_TEST_MESSAGE("refused: " << r.error().message());
    return r.error().message();
}

/// The receiver refuses its next frame as frame `n` failing its MAC, naming the peer.
void refused_as_forged(const tcp::Socket& s, int n) {
    const std::string e = refusal(s);
    BOOST_TEST(e.find("frame " + std::to_string(n) + " from peer 127.0.0.1:") != std::string::npos,
               e);
    BOOST_TEST(e.find(kMacRefusal) != std::string::npos, e);
}

/// After a refused frame the connection is over at both ends.
void connection_closed(const tcp::Socket& receiver, const tcp::Socket& sender) {
    BOOST_TEST(!tcp::recv_any(receiver, tcp::deadline_in(1000)).ok());
    auto r = tcp::recv_any(sender, tcp::deadline_in(2000));
    BOOST_REQUIRE(!r.ok());
    BOOST_TEST(r.error().err_no != ETIMEDOUT, r.error().message());
}

/// What each party of a relayed handshake ended with.
struct RelayOutcome {
    Status client = ok_status();
    Status responder = ok_status();
    bool relay_saw_auth_ok = false;
    std::optional<std::string> command_served;  ///< what the responder read after auth_ok
};

/// A client dials A; A forwards the handshake's frames to responder R on another port
/// (rewriting "to" to R's address when `rewrite`) and, once it sees auth_ok, sends R its own
/// command: issue 27's relay through `POST /api/v1/incast` senders.
RelayOutcome relay(bool rewrite) {
    const auto k = key_of('k');
    auto [lr, pr] = listen_on_free_port();
    auto [la, pa] = listen_on_free_port();
    RelayOutcome out;
    std::thread responder([&, &lr = lr] {
        std::string name;
        auto a = tcp::accept(lr, 5000, name);
        if (!a || !*a) return void(out.responder = Error{"test", "", 0, "no connection"});
        tcp::Socket s = std::move(**a);
        auto first = tcp::recv_any(s, soon());
        if (!first || !first->json) return void(out.responder = Error{"test", "", 0, "no auth"});
        out.responder = auth::verify_client(s, *first->json, &k, soon());
        if (!out.responder) return;
        if (auto cmd = tcp::recv_any(s, soon()); cmd && cmd->json)
            out.command_served = cmd->json->value("cmd", "");
    });
    std::thread relay([&, &la = la, pr = pr] {
        std::string name;
        auto a = tcp::accept(la, 5000, name);
        if (!a || !*a) return;
        tcp::Socket from_client = std::move(**a);
        auto to_r = tcp::connect({"127.0.0.1", pr}, soon());
        if (!to_r) return;
        for (int round = 0; round < 2; ++round) {
            auto up = tcp::recv_any(from_client, soon());
            if (!up || !up->json) return;
            if (rewrite && up->json->contains("to")) (*up->json)["to"] = port_text(pr);
            if (!tcp::send_json(*to_r, *up->json, soon())) return;
            auto down = tcp::recv_any(*to_r, soon());
            if (!down || !down->json) return;
            if (!tcp::send_json(from_client, *down->json, soon())) return;
            if (down->json->value("cmd", "") == "auth_ok") out.relay_saw_auth_ok = true;
        }
        if (out.relay_saw_auth_ok) (void)tcp::send_json(*to_r, {{"cmd", "inventory"}}, soon());
    });
    {
        auto c = tcp::connect({"127.0.0.1", pa}, soon());
        BOOST_REQUIRE(c.ok());
        out.client = auth::prove_to_responder(*c, k, soon());
    }  // the client closes: a relay or responder still waiting sees the end
    relay.join();
    responder.join();
    BOOST_TEST_MESSAGE("client: " << (out.client ? "ok" : out.client.error().message()));
    BOOST_TEST_MESSAGE("responder: " << (out.responder ? "ok" : out.responder.error().message()));
    return out;
}

}  // namespace

BOOST_AUTO_TEST_CASE(a_relayed_handshake_is_refused_by_the_responder) {
    const RelayOutcome r = relay(false);
    BOOST_TEST(!r.relay_saw_auth_ok);
    BOOST_TEST(!r.command_served.has_value(), "the relay's own command was served");
    BOOST_REQUIRE(!r.responder.ok());
    BOOST_REQUIRE(!r.client.ok());
    // Both ends name it: the responder in its log, the client in its error.
    for (const auto& m : {r.responder.error().message(), r.client.error().message()}) {
        BOOST_TEST(m.find("the client dialled 127.0.0.1:") != std::string::npos, m);
        BOOST_TEST(m.find(", this responder is 127.0.0.1:") != std::string::npos, m);
        BOOST_TEST(m.find(auth::kRelayed) != std::string::npos, m);
    }
}

BOOST_AUTO_TEST_CASE(a_relay_that_rewrites_the_address_gets_no_proof_from_the_client) {
    const RelayOutcome r = relay(true);
    BOOST_TEST(!r.relay_saw_auth_ok);
    BOOST_TEST(!r.command_served.has_value(), "the relay's own command was served");
    BOOST_TEST(!r.responder.ok());  // it never saw a client proof
    BOOST_REQUIRE(!r.client.ok());
    BOOST_TEST(r.client.error().message().find("responder did not prove the fabric key for "
                                               "127.0.0.1:") != std::string::npos,
               r.client.error().message());
}

BOOST_AUTO_TEST_CASE(a_dual_stack_responder_binds_its_ipv4_address) {
    // A responder listening on "::" sees an IPv4 client at ::ffff:127.0.0.1: the same address.
    auto l = tcp::listen("::", 0);
    if (!l) {
        BOOST_TEST_MESSAGE("no IPv6 here: " << l.error().message());
        return;
    }
    auto port = tcp::local_address(*l);
    BOOST_REQUIRE(port.ok());
    const auto p = static_cast<std::uint16_t>(std::stoi(port->substr(port->rfind(':') + 1)));
    auto c = tcp::connect({"127.0.0.1", p}, soon());
    BOOST_REQUIRE(c.ok());
    std::string name;
    auto a = tcp::accept(*l, 2000, name);
    BOOST_REQUIRE(a.ok() && a->has_value());
    BOOST_TEST(*tcp::local_address(**a) == port_text(p));
    BOOST_TEST(*tcp::peer_address(*c) == port_text(p));
}

BOOST_AUTO_TEST_CASE(addresses_from_peers_are_read_strictly) {
    BOOST_TEST(*tcp::canonical_address("10.0.0.5:18520") == "10.0.0.5:18520");
    BOOST_TEST(*tcp::canonical_address("[::ffff:10.0.0.5]:18520") == "10.0.0.5:18520");
    BOOST_TEST(*tcp::canonical_address("[FE80:0::0001]:7") == "[fe80::1]:7");
    for (const char* bad : {"", "10.0.0.5", "host:18520", "[10.0.0.5]:1", "10.0.0.5:0",
                            "10.0.0.5:99999", "fe80::1", "[fe80::1%eth0]:7", "10.0.0.5:1:2"})
        BOOST_TEST(!tcp::canonical_address(bad).ok(), bad);
    BOOST_TEST(!tcp::canonical_address(std::string(65, '1')).ok());
    auth::Nonce n{};
    auto no_to = auth::parse_auth_request({{"cmd", "auth"}, {"nonce", std::string(64, 'a')}});
    BOOST_REQUIRE(!no_to.ok());
    BOOST_TEST(no_to.error().detail.find("to: missing") == 0u);
    auto ok = auth::parse_auth_request(auth::auth_request(n, "[::ffff:10.0.0.5]:18520"));
    BOOST_REQUIRE(ok.ok());
    BOOST_TEST(ok->to == "10.0.0.5:18520");
}

BOOST_AUTO_TEST_CASE(keyed_frames_of_both_kinds_flow_both_ways) {
    auto [c, s] = keyed_pair(key_of('k'));
    for (int i = 0; i < 5; ++i) {
        BOOST_REQUIRE(tcp::send_json(c, {{"cmd", "sample"}, {"i", i}}, soon()).ok());
        auto got = tcp::recv_any(s, soon());
        BOOST_REQUIRE(got.ok() && got->json);
        BOOST_TEST(got->json->value("i", -1) == i);
        BOOST_REQUIRE(tcp::send_json(s, {{"cmd", "sample_pass"}, {"i", i}}, soon()).ok());
        auto back = tcp::recv_any(c, soon());
        BOOST_REQUIRE(back.ok() && back->json);
        BOOST_TEST(back->json->value("i", -1) == i);
    }
    oob::Message m;
    m.type = oob::Type::bye;
    BOOST_REQUIRE(tcp::send_msg(c, m, soon()).ok());
    BOOST_TEST((tcp::recv_msg(s, soon())->type == oob::Type::bye));
    BOOST_REQUIRE(tcp::send_msg(s, m, soon()).ok());
    BOOST_TEST((tcp::recv_msg(c, soon())->type == oob::Type::bye));
    BOOST_TEST(c.frame_auth()->sent() == 6u);
    BOOST_TEST(c.frame_auth()->received() == 6u);
    BOOST_TEST(s.frame_auth()->sent() == 6u);
    BOOST_TEST(s.frame_auth()->received() == 6u);
}

BOOST_AUTO_TEST_CASE(each_frame_carries_its_mac_on_the_wire) {
    // A protected sender, a plain reader: the frame, then HMAC(key, seq | frame) in 32 bytes.
    auto [c, s] = test::loopback_pair();
    tcp::FrameKey up{}, down{};
    up.fill(1);
    down.fill(2);
    c.protect(std::make_shared<tcp::FrameAuth>(up, down));
    for (std::uint64_t seq = 0; seq < 2; ++seq) {
        BOOST_REQUIRE(tcp::send_json(c, {{"cmd", "sample"}}, soon()).ok());
        auto f = json_frame({{"cmd", "sample"}});
        std::vector<std::byte> wire(f.size() + tcp::kFrameMacBytes);
        BOOST_REQUIRE(tcp::recv_all(s, wire, soon()).ok());
        BOOST_TEST(std::equal(f.begin(), f.end(), wire.begin()));
        const auto t = tcp::frame_mac(up, seq, f);
        BOOST_TEST(std::equal(t.begin(), t.end(), wire.begin() + f.size()));
    }
}

BOOST_AUTO_TEST_CASE(an_injected_frame_is_refused_by_name_and_ends_the_connection) {
    auto [c, s] = keyed_pair(key_of('k'));
    BOOST_REQUIRE(tcp::send_json(c, {{"cmd", "sample"}}, soon()).ok());
    BOOST_REQUIRE(tcp::recv_any(s, soon()).ok());
    // A host without the key injects a fault command with a trailer of its own making.
    tcp::FrameAuth guess(tcp::FrameKey{}, tcp::FrameKey{});
    inject(c, sealed(guess, json_frame({{"cmd", "fault"}, {"action", "link_down"}})));
    refused_as_forged(s, 1);
    connection_closed(s, c);
}

BOOST_AUTO_TEST_CASE(an_injected_frame_without_a_mac_is_refused_by_name) {
    auto [c, s] = keyed_pair(key_of('k'));
    inject(c, json_frame({{"cmd", "fault"}, {"action", "link_down"}}));
    ::shutdown(c.fd(), SHUT_WR);
    const std::string e = refusal(s);
    BOOST_TEST(e.find("frame 0 from peer 127.0.0.1:") != std::string::npos, e);
    BOOST_TEST(e.find("no MAC trailer") != std::string::npos, e);
}

BOOST_AUTO_TEST_CASE(a_forged_reply_to_the_client_is_refused_by_name) {
    // The other direction: an accept result forged into the responder's stream.
    auto [c, s] = keyed_pair(key_of('k'));
    tcp::FrameAuth guess(tcp::FrameKey{}, tcp::FrameKey{});
    inject(s, sealed(guess, json_frame({{"cmd", "sample_pass"}, {"forged", true}})));
    refused_as_forged(c, 0);
    connection_closed(c, s);
}

BOOST_AUTO_TEST_CASE(a_replayed_frame_is_refused_by_name) {
    auto [c, s] = keyed_pair(key_of('k'));
    tcp::FrameAuth tap = *c.frame_auth();  // the client's state before its frame 0
    const nlohmann::json cmd = {{"cmd", "fault"}, {"action", "link_down"}};
    BOOST_REQUIRE(tcp::send_json(c, cmd, soon()).ok());
    BOOST_REQUIRE(tcp::recv_any(s, soon()).ok());
    inject(c, sealed(tap, json_frame(cmd)));  // frame 0's bytes, word for word, again
    refused_as_forged(s, 1);
    connection_closed(s, c);
}

BOOST_AUTO_TEST_CASE(a_dropped_frame_is_refused_by_name) {
    auto [c, s] = keyed_pair(key_of('k'));
    (void)sealed(*c.frame_auth(), json_frame({{"cmd", "sample"}}));  // frame 0, lost on the path
    BOOST_REQUIRE(tcp::send_json(c, {{"cmd", "sample"}}, soon()).ok());
    refused_as_forged(s, 0);
}

BOOST_AUTO_TEST_CASE(reordered_frames_are_refused_by_name) {
    auto [c, s] = keyed_pair(key_of('k'));
    const auto first = sealed(*c.frame_auth(), json_frame({{"cmd", "stream_start"}}));
    const auto second = sealed(*c.frame_auth(), json_frame({{"cmd", "stream_stop"}}));
    inject(c, second);
    inject(c, first);
    refused_as_forged(s, 0);
}

BOOST_AUTO_TEST_CASE(a_flipped_byte_is_refused_by_name) {
    // In a fixed frame's field and in a trailer: both fail.
    for (std::size_t at : {std::size_t{100}, oob::kMessageSize + 5}) {
        auto [c, s] = keyed_pair(key_of('k'));
        oob::Message m;
        m.type = oob::Type::phase;
        const oob::Frame f = oob::encode(m);
        auto bytes = sealed(*c.frame_auth(), {f.begin(), f.end()});
        bytes[at] ^= std::byte{0x01};
        inject(c, bytes);
        refused_as_forged(s, 0);
        connection_closed(s, c);
    }
}

BOOST_AUTO_TEST_CASE(a_peer_of_the_previous_protocol_is_refused_by_name) {
    // A protocol-5 client (handshake without the address, frames without MACs) meets a new
    // responder, and a protocol-5 responder's challenge meets a new client.
    auto [c, s] = test::loopback_pair();
    auto old = json_frame({{"cmd", "auth"}, {"nonce", std::string(64, '1')}});
    old[5] = std::byte{5};
    inject(c, old);
    const std::string e = refusal(s);
    BOOST_TEST(e.find("peer 127.0.0.1:") != std::string::npos, e);
    BOOST_TEST(e.find("peer speaks protocol version 5 in a json frame, this build speaks 6 "
                      "(upgrade rocehealth on the peer") != std::string::npos,
               e);
    auto [c2, s2] = test::loopback_pair();
    std::thread responder([&, &s2 = s2] {
        if (auto first = tcp::recv_any(s2, soon()); first) {
            auto challenge = json_frame({{"cmd", "auth_challenge"}});
            challenge[5] = std::byte{5};
            (void)tcp::send_all(s2, challenge, soon());
        }
    });
    const Status client = auth::prove_to_responder(c2, key_of('k'), soon());
    responder.join();
    BOOST_REQUIRE(!client.ok());
    BOOST_TEST(client.error().message().find("peer speaks protocol version 5 in a json frame, "
                                             "this build speaks 6") != std::string::npos,
               client.error().message());
    // A protocol-5 responder reading this build's request closes without a word (it logs the
    // versions): the client says what that likely means.
    auto [c3, s3] = test::loopback_pair();
    std::thread closer([&, &s3 = s3] {
        (void)tcp::recv_any(s3, soon());
        s3 = tcp::Socket();
    });
    const Status quiet = auth::prove_to_responder(c3, key_of('k'), soon());
    closer.join();
    BOOST_REQUIRE(!quiet.ok());
    BOOST_TEST(quiet.error().message().find("closed the connection without answering the "
                                            "handshake: a responder older than json protocol 6") !=
                   std::string::npos,
               quiet.error().message());
}

BOOST_AUTO_TEST_SUITE_END()  // test_control_channel
