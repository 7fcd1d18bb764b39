#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include <boost/test/unit_test.hpp>
#include <cerrno>
#include <filesystem>
#include <fstream>
#include <functional>
#include <thread>

#include "probes/auth/fabric_key.h"
#include "probes/auth/failure_limiter.h"
#include "probes/auth/handshake.h"
#include "probes/responder/control_dispatch.h"
#include "tests/support/loopback_listener.h"

BOOST_AUTO_TEST_SUITE(test_auth)

using namespace rh;
namespace fs = std::filesystem;

namespace {

std::string hex(const auth::Mac& m) {
    std::string s;
    char b[3];
    for (auto c : m) {
        std::snprintf(b, sizeof b, "%02x", c);
        s += b;
    }
    return s;
}

std::vector<std::uint8_t> bytes(const std::string& s) {
    return {s.begin(), s.end()};
}

auth::FabricKey key_of(char fill) {
    return {std::vector<std::uint8_t>(32, static_cast<std::uint8_t>(fill)), "test.key"};
}

/// A connected pair standing for client and responder: TCP on loopback, since the handshake
/// binds the address the client dialled.
std::pair<tcp::Socket, tcp::Socket> socket_pair() {
    return test::loopback_pair();
}

/// The address the client dialled, as the auth request carries it.
std::string dialled(const tcp::Socket& c) {
    auto a = tcp::peer_address(c);
    BOOST_REQUIRE(a.ok());
    return *a;
}

/// Runs the responder side of one handshake in a thread while `client` runs here.
Status handshake(const auth::FabricKey* server_key,
                 const std::function<Status(tcp::Socket&)>& client) {
    auto [c, s] = socket_pair();
    Status server = ok_status();
    std::thread t([&, &s = s] {
        auto first = tcp::recv_any(s, tcp::deadline_in(2000));
        if (!first || !first->json) {
            server = Error{"test", "", 0, "no first frame"};
            return;
        }
        server = auth::verify_client(s, *first->json, server_key, tcp::deadline_in(2000));
    });
    const Status got = client(c);
    c = tcp::Socket();  // close: a server waiting for a proof sees the end
    t.join();
    BOOST_TEST_MESSAGE("client: " << (got ? "ok" : got.error().message()));
    return server ? got : Status(server.error());
}

std::string fresh_path(const std::string& name) {
    return (fs::temp_directory_path() / ("rh_auth_" + std::to_string(::getpid()) + "_" + name))
        .string();
}

}  // namespace

BOOST_AUTO_TEST_CASE(hmac_sha256_matches_rfc_4231) {
    // Test case 1: key 0x0b x 20, "Hi There".
    BOOST_TEST(hex(auth::hmac_sha256(std::vector<std::uint8_t>(20, 0x0b), bytes("Hi There"))) ==
               "b0344c61d8db38535ca8afceaf0bf12b881dc200c9833da726e9376c2e32cff7");
    // Test case 2: key "Jefe".
    BOOST_TEST(hex(auth::hmac_sha256(bytes("Jefe"), bytes("what do ya want for nothing?"))) ==
               "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843");
    // Test case 6: a key longer than the block (131 x 0xaa) is hashed first.
    BOOST_TEST(hex(auth::hmac_sha256(std::vector<std::uint8_t>(131, 0xaa),
                                     bytes("Test Using Larger Than Block-Size Key - Hash Key "
                                           "First"))) ==
               "60e431591ee0b67f0d8a26aacbf5b77f8e0bc6213728c5140546040f0ee37f54");
}

BOOST_AUTO_TEST_CASE(same_key_on_both_ends_is_accepted) {
    const auto k = key_of('k');
    const Status r = handshake(
        &k, [&](tcp::Socket& c) { return auth::prove_to_responder(c, k, tcp::deadline_in(2000)); });
    BOOST_TEST(r.ok(), (r ? "" : r.error().message()));
}

BOOST_AUTO_TEST_CASE(another_key_fails_on_both_ends) {
    const auto server = key_of('s'), client = key_of('c');
    Status c_side = ok_status();
    const Status r = handshake(&server, [&](tcp::Socket& c) {
        c_side = auth::prove_to_responder(c, client, tcp::deadline_in(2000));
        return c_side;
    });
    BOOST_REQUIRE(!c_side.ok());
    BOOST_TEST(c_side.error().message().find("responder did not prove the fabric key") !=
               std::string::npos);
    // The responder never saw a proof: it says the two hold different keys, and (not EACCES)
    // does not count it against the client's address, so a rotation half done locks no one out.
    BOOST_REQUIRE(!r.ok());
    BOOST_TEST(r.error().detail == auth::kClientHoldsAnotherKey);
    BOOST_TEST(r.error().err_no != EACCES);
}

BOOST_AUTO_TEST_CASE(a_client_without_the_key_is_refused_in_the_same_words) {
    const auto k = key_of('k');
    // Garbage proof, truncated proof, no proof field, a fixed frame: one refusal text.
    for (const nlohmann::json& proof :
         {nlohmann::json{{"cmd", "auth_proof"}, {"proof", std::string(64, 'a')}},
          nlohmann::json{{"cmd", "auth_proof"}, {"proof", std::string(63, 'a')}},
          nlohmann::json{{"cmd", "auth_proof"}}, nlohmann::json{{"cmd", "inventory"}}}) {
        std::string refusal;
        const Status r = handshake(&k, [&](tcp::Socket& c) {
            auth::Nonce n{};
            BOOST_REQUIRE(
                tcp::send_json(c, auth::auth_request(n, dialled(c)), tcp::deadline_in(2000)));
            auto ch = tcp::recv_any(c, tcp::deadline_in(2000));
            BOOST_REQUIRE(ch && ch->json);
            BOOST_TEST(auth::parse_auth_challenge(*ch->json).ok());
            BOOST_REQUIRE(tcp::send_json(c, proof, tcp::deadline_in(2000)));
            auto end = tcp::recv_any(c, tcp::deadline_in(2000));
            BOOST_REQUIRE(end && end->json);
            refusal = end->json->value("error", "");
            return ok_status();
        });
        BOOST_REQUIRE(!r.ok());
        BOOST_TEST(r.error().detail == auth::kNotProven);
        BOOST_TEST(r.error().err_no == EACCES);  // a guess at the key: counted against the address
        BOOST_TEST(refusal == auth::kNotProven);
    }
}

BOOST_AUTO_TEST_CASE(a_recorded_session_replayed_later_fails) {
    const auto k = key_of('k');
    // Record what an honest client sent: its nonce and its proof.
    auth::Nonce nonce{};
    nonce.fill(7);
    nlohmann::json recorded_proof;
    const Status first = handshake(&k, [&](tcp::Socket& c) {
        BOOST_REQUIRE(
            tcp::send_json(c, auth::auth_request(nonce, dialled(c)), tcp::deadline_in(2000)));
        auto ch = auth::parse_auth_challenge(*tcp::recv_any(c, tcp::deadline_in(2000))->json);
        BOOST_REQUIRE(ch.ok());
        recorded_proof =
            auth::auth_proof(auth::proof_of(k, "client", dialled(c), nonce, ch->server_nonce));
        BOOST_REQUIRE(tcp::send_json(c, recorded_proof, tcp::deadline_in(2000)));
        auto ok = tcp::recv_any(c, tcp::deadline_in(2000));
        BOOST_REQUIRE(ok && ok->json);
        BOOST_TEST(ok->json->value("cmd", "") == "auth_ok");
        return ok_status();
    });
    BOOST_REQUIRE(first.ok());
    // Replay it word for word: the responder's new nonce makes the old proof worthless.
    const Status replay = handshake(&k, [&](tcp::Socket& c) {
        BOOST_REQUIRE(
            tcp::send_json(c, auth::auth_request(nonce, dialled(c)), tcp::deadline_in(2000)));
        (void)tcp::recv_any(c, tcp::deadline_in(2000));
        BOOST_REQUIRE(tcp::send_json(c, recorded_proof, tcp::deadline_in(2000)));
        (void)tcp::recv_any(c, tcp::deadline_in(2000));
        return ok_status();
    });
    BOOST_REQUIRE(!replay.ok());
    BOOST_TEST(replay.error().detail == auth::kNotProven);
    // Nor does the responder's own proof pass as a client's (the role is in the MAC).
    auth::Nonce sn{};
    BOOST_TEST(!auth::same_mac(auth::proof_of(k, "client", "10.0.0.7:18520", nonce, sn),
                               auth::proof_of(k, "responder", "10.0.0.7:18520", nonce, sn)));
    // Nor one responder's proof as another's (the address the client dialled is in the MAC).
    BOOST_TEST(!auth::same_mac(auth::proof_of(k, "responder", "10.0.0.7:18520", nonce, sn),
                               auth::proof_of(k, "responder", "10.0.0.5:18520", nonce, sn)));
}

BOOST_AUTO_TEST_CASE(a_responder_without_a_key_says_control_is_off) {
    const auto k = key_of('k');
    Status c_side = ok_status();
    const Status r = handshake(nullptr, [&](tcp::Socket& c) {
        c_side = auth::prove_to_responder(c, k, tcp::deadline_in(2000));
        return c_side;
    });
    BOOST_REQUIRE(!r.ok());
    BOOST_TEST(r.error().detail == auth::kNoKeyHere);
    BOOST_REQUIRE(!c_side.ok());
    BOOST_TEST(c_side.error().message().find(auth::kNoKeyHere) != std::string::npos);
}

BOOST_AUTO_TEST_CASE(every_command_but_hello_needs_a_proven_key) {
    ResponderOptions opts;
    PortChoice where;
    std::atomic<bool> stop{false};
    for (bool keyed : {false, true}) {
        auth::set_process_key(keyed ? std::make_shared<const auth::FabricKey>(key_of('k'))
                                    : nullptr);
        for (const char* cmd : {"sample", "stream_open", "incast_prepare", "inventory", "probe",
                                "rkey_open", "fault"}) {
            auto [c, s] = socket_pair();
            serve_control(s, {{"cmd", cmd}}, ControlContext{opts, where, stop, "peer x", false});
            auto reply = tcp::recv_any(c, tcp::deadline_in(2000));
            BOOST_REQUIRE(reply && reply->json);
            BOOST_TEST(reply->json->value("cmd", "") == "error");
            BOOST_TEST(
                reply->json->value("error", "") == (keyed ? auth::kNotProven : auth::kNoKeyHere),
                cmd);
        }
    }
    auth::set_process_key(nullptr);
}

BOOST_AUTO_TEST_CASE(key_files_are_checked_by_name) {
    const std::string p = fresh_path("fabric.key");
    fs::remove(p);
    BOOST_REQUIRE(auth::write_new_key_file(p).ok());
    BOOST_TEST(fs::file_size(p) == 32u);
    BOOST_TEST(((fs::status(p).permissions() & fs::perms::all) ==
                (fs::perms::owner_read | fs::perms::owner_write)),
               "mode 0600");
    auto loaded = auth::load_fabric_key(p);
    BOOST_REQUIRE(loaded.ok());
    BOOST_TEST(loaded->bytes.size() == 32u);
    // keygen never overwrites a key in use.
    const auto again = auth::write_new_key_file(p);
    BOOST_REQUIRE(!again.ok());
    BOOST_TEST(again.error().message().find("a key is there already") != std::string::npos);
    BOOST_TEST(auth::load_fabric_key(p)->bytes == loaded->bytes);
    // A fresh host has no /etc/rocehealth/: keygen creates the key's directory. A directory
    // where the key should be is named as such, not as "a key".
    const std::string dir = fresh_path("keydir");
    fs::remove_all(dir);
    BOOST_TEST(auth::write_new_key_file(dir + "/sub/fabric.key").ok());
    BOOST_TEST(fs::file_size(dir + "/sub/fabric.key") == 32u);
    const auto on_dir = auth::write_new_key_file(dir + "/sub");
    BOOST_REQUIRE(!on_dir.ok());
    BOOST_TEST(on_dir.error().message().find("is a directory") != std::string::npos,
               on_dir.error().message());
    fs::remove_all(dir);

    ::chmod(p.c_str(), 0644);
    auto world = auth::load_fabric_key(p);
    BOOST_REQUIRE(!world.ok());
    BOOST_TEST(world.error().message() ==
               "fabric key " + p +
                   ": is readable or writable by group or others (mode 0644): chmod 600 " + p);
    std::ofstream(p, std::ios::trunc) << "";
    ::chmod(p.c_str(), 0600);
    BOOST_TEST(auth::load_fabric_key(p).error().message() == "fabric key " + p + ": is empty");
    std::ofstream(p, std::ios::trunc) << "short secret\n";
    BOOST_TEST(auth::load_fabric_key(p).error().detail.find("holds 13 bytes, fewer than 32") == 0);
    BOOST_TEST(
        auth::load_fabric_key(p + ".missing").error().message().find("No such file or directory") !=
        std::string::npos);
    // A named file that is bad is an error, never "no key".
    BOOST_TEST(!auth::key_for_command(p).ok());
    fs::remove(p);
}

BOOST_AUTO_TEST_CASE(failed_proofs_block_an_address_for_a_window) {
    auth::FailureLimiter l;
    const auto t0 = auth::FailureLimiter::Clock::now();
    bool first = false;
    for (unsigned i = 0; i + 1 < auth::FailureLimiter::kMaxFailures; ++i) l.failed("10.0.0.9", t0);
    BOOST_TEST(!l.blocked("10.0.0.9", t0, first));
    l.failed("10.0.0.9", t0);
    BOOST_TEST(l.blocked("10.0.0.9", t0, first));
    BOOST_TEST(first);  // logged once ...
    BOOST_TEST(l.blocked("10.0.0.9", t0 + std::chrono::seconds(1), first));
    BOOST_TEST(!first);                              // ... not on every connection
    BOOST_TEST(!l.blocked("10.0.0.10", t0, first));  // other addresses are served
    BOOST_TEST(!l.blocked("10.0.0.9", t0 + auth::FailureLimiter::kWindow, first));
    BOOST_TEST(auth::address_of_peer("peer 10.0.0.9:40000") == "10.0.0.9");
    BOOST_TEST(auth::address_of_peer("peer [fe80::1]:40000") == "fe80::1");
}

BOOST_AUTO_TEST_SUITE_END()  // test_auth
