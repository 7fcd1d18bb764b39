// Per-host keys (issue 27, the last item): with one fabric key shared by every host, any key
// holder can pose as any responder. A responder with its own Ed25519 host key signs each
// handshake, and a client whose known_hosts names it requires that signature; X25519 key shares
// keep a key holder on the path from deriving the frame keys. On loopback TCP with the code's own
// functions; the impostors and relays hold the real fabric key.
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <boost/test/unit_test.hpp>
#include <filesystem>
#include <fstream>
#include <thread>

#include "probes/auth/handshake.h"
#include "probes/auth/host_key.h"
#include "probes/auth/key_reload.h"
#include "probes/auth/known_hosts.h"
#include "probes/wire/frame_mac.h"
#include "probes/wire/tcp.h"
#include "tests/support/loopback_listener.h"

BOOST_AUTO_TEST_SUITE(test_host_keys)

using namespace rh;
using test::listen_on_free_port;

namespace {

tcp::Deadline soon() {
    return tcp::deadline_in(5000);
}

auth::FabricKey fabric_key() {
    return {auth::random_bytes(32), "test.key"};
}

std::string text_of(const Status& s) {
    return s ? "ok" : s.error().message();
}

/// A responder on a free loopback port serving one keyed handshake with `host_key` (may be
/// nullptr), then reading one command; its port, and the outcome once joined.
struct Responder {
    std::uint16_t port = 0;
    Status handshake = Error{"test", "", 0, "no connection"};
    std::optional<std::string> command;
    std::atomic<bool> accepted{false};
    std::thread thread;

    Responder(const auth::FabricKey& k, const auth::HostKey* host_key) {
        auto [l, p] = listen_on_free_port();
        port = p;
        thread = std::thread([this, &k, host_key, l = std::move(l)]() mutable {
            std::string name;
            auto a = tcp::accept(l, 5000, name);
            if (!a || !*a) return;
            accepted = true;
            tcp::Socket s = std::move(**a);
            auto first = tcp::recv_any(s, soon());
            if (!first || !first->json) return;
            handshake = auth::verify_client(s, *first->json, &k, soon(), host_key);
            if (!handshake) return;
            if (auto c = tcp::recv_any(s, soon()); c && c->json)
                command = c->json->value("cmd", "");
        });
    }
    /// Waits for the thread; one that no client reached is let go by a connection that closes.
    void join() {
        if (!accepted) (void)tcp::connect({"127.0.0.1", port}, soon());
        thread.join();
    }
};

/// A client that dials `port` requiring `expect` (nullptr: no host key), sends "inventory"
/// once the handshake holds; its outcome.
Status client(std::uint16_t port, const auth::FabricKey& k, const auth::ExpectedHost* expect) {
    auto c = tcp::connect({"127.0.0.1", port}, soon());
    BOOST_REQUIRE(c.ok());
    Status st = auth::prove_to_responder(*c, k, soon(), expect);
    if (st) st = tcp::send_json(*c, {{"cmd", "inventory"}}, soon());
    return st;
}

auth::ExpectedHost expect(const auth::HostKey& hk) {
    return {"r1", hk.public_key(), "known_hosts:1"};
}

void refused_by_name(const Status& s) {
    BOOST_REQUIRE(!s.ok());
    const std::string e = s.error().message();
    BOOST_TEST(e.find("responder r1 did not prove its host key") != std::string::npos, e);
}

std::vector<std::byte> json_frame(const nlohmann::json& j) {
    auto f = oob::encode_json(j);
    BOOST_REQUIRE(f.ok());
    return *f;
}

/// A scratch folder of mode 0700, removed at the end.
struct Scratch {
    std::filesystem::path dir;
    Scratch() {
        char t[] = "/tmp/rh-host-keys-XXXXXX";
        BOOST_REQUIRE(::mkdtemp(t));
        dir = t;
    }
    ~Scratch() { std::filesystem::remove_all(dir); }
    std::string write(const std::string& name, const std::string& text, unsigned mode) {
        const auto p = dir / name;
        std::ofstream(p) << text;
        BOOST_REQUIRE(::chmod(p.c_str(), mode) == 0);
        return p.string();
    }
};

std::string parse_error(const std::string& text) {
    auto r = auth::parse_known_hosts(text, "/etc/rocehealth/known_hosts");
    BOOST_REQUIRE_MESSAGE(!r.ok(), "parsed: " + text);
    BOOST_TEST_MESSAGE(r.error().message());
    return r.error().message();
}

}  // namespace

BOOST_AUTO_TEST_CASE(a_responder_with_its_host_key_is_accepted_and_commands_flow) {
    const auto k = fabric_key();
    const auto hk = auth::HostKey::generate();
    Responder r(k, &hk);
    const auto e = expect(hk);
    const Status c = client(r.port, k, &e);
    r.join();
    BOOST_TEST(c.ok(), text_of(c));
    BOOST_TEST(r.handshake.ok(), text_of(r.handshake));
    BOOST_TEST(r.command.value_or("") == "inventory");  // both ends derived the same frame keys
}

BOOST_AUTO_TEST_CASE(another_key_holder_posing_as_the_responder_is_refused_by_name) {
    const auto k = fabric_key();
    const auto real = auth::HostKey::generate();
    const auto e = expect(real);
    // An impostor with a host key of its own, then one with none: both hold the fabric key.
    const auto own = auth::HostKey::generate();
    for (const auth::HostKey* impostor_key : {&own, static_cast<const auth::HostKey*>(nullptr)}) {
        Responder impostor(k, impostor_key);
        const Status c = client(impostor.port, k, &e);
        impostor.join();
        refused_by_name(c);
        const std::string m = c.error().message();
        BOOST_TEST(m.find(impostor_key ? "does not verify with the key of known_hosts:1"
                                       : "sent no host signature") != std::string::npos,
                   m);
        BOOST_TEST(!impostor.command.has_value(), "the impostor was sent a command");
    }
}

BOOST_AUTO_TEST_CASE(a_key_holder_relaying_and_rehandshaking_both_sides_is_refused) {
    // The relay of issue 27 with the fabric key: it answers the client as a responder (its own
    // nonce, share and proofs) and dials the real responder as a client. Without known_hosts it
    // reads the client's commands (the limit of one shared key); with them the client refuses.
    const auto k = fabric_key();
    const auto hk = auth::HostKey::generate();
    const auto e = expect(hk);
    for (const bool known : {false, true}) {
        Responder r(k, &hk);
        auto [la, pa] = listen_on_free_port();
        std::optional<std::string> relay_read;
        std::thread relay([&, &la = la, rp = r.port] {
            std::string name;
            auto a = tcp::accept(la, 5000, name);
            if (!a || !*a) return;
            tcp::Socket from_client = std::move(**a);
            auto first = tcp::recv_any(from_client, soon());
            if (!first || !first->json) return;
            if (!auth::verify_client(from_client, *first->json, &k, soon(), nullptr)) return;
            auto to_r = tcp::connect({"127.0.0.1", rp}, soon());
            if (!to_r || !auth::prove_to_responder(*to_r, k, soon())) return;
            if (auto cmd = tcp::recv_any(from_client, soon()); cmd && cmd->json) {
                relay_read = cmd->json->value("cmd", "");
                (void)tcp::send_json(*to_r, *cmd->json, soon());
            }
        });
        const Status c = client(pa, k, known ? &e : nullptr);
        relay.join();
        r.join();
        BOOST_TEST_MESSAGE("known_hosts " << known << ": client " << text_of(c));
        if (!known) {
            BOOST_TEST(c.ok(), text_of(c));
            BOOST_TEST(relay_read.value_or("") == "inventory");
            continue;
        }
        refused_by_name(c);
        BOOST_TEST(!relay_read.has_value(), "the relay read a command");
        BOOST_TEST(!r.command.has_value(), "the responder served the relay's command");
    }
}

BOOST_AUTO_TEST_CASE(a_key_holder_on_the_path_cannot_derive_the_frame_keys) {
    // The relay rewrites "to" and recomputes both proofs (it holds the fabric key) but forwards
    // the key shares: the handshake completes at both ends. The frame keys the fabric key and
    // the nonces alone give (all a key holder had before key shares) do not verify at the
    // client: an injected "fault" is refused by name.
    const auto k = fabric_key();
    Responder r(k, nullptr);
    auto [la, pa] = listen_on_free_port();
    const std::string relay_address = "127.0.0.1:" + std::to_string(pa);
    const std::string r_address = "127.0.0.1:" + std::to_string(r.port);
    std::thread relay([&, &la = la, rp = r.port] {
        std::string name;
        auto a = tcp::accept(la, 5000, name);
        if (!a || !*a) return;
        tcp::Socket from_client = std::move(**a);
        auto to_r = tcp::connect({"127.0.0.1", rp}, soon());
        if (!to_r) return;
        auto req = tcp::recv_any(from_client, soon());
        if (!req || !req->json) return;
        auto parsed = auth::parse_auth_request(*req->json);
        if (!parsed) return;
        (*req->json)["to"] = r_address;
        if (!tcp::send_json(*to_r, *req->json, soon())) return;
        auto ch = tcp::recv_any(*to_r, soon());
        if (!ch || !ch->json) return;
        auto challenge = auth::parse_auth_challenge(*ch->json);
        if (!challenge) return;
        const auth::Nonce nc = parsed->nonce, ns = challenge->server_nonce;
        const auto to_client = auth::proof_of(k, "responder", relay_address, nc, ns);
        auto fwd =
            auth::auth_challenge(ns, to_client, challenge->share ? &*challenge->share : nullptr);
        if (!tcp::send_json(from_client, fwd, soon())) return;
        auto proof = tcp::recv_any(from_client, soon());
        if (!proof || !proof->json) return;
        if (!tcp::send_json(*to_r, auth::auth_proof(auth::proof_of(k, "client", r_address, nc, ns)),
                            soon()))
            return;
        auto ok = tcp::recv_any(*to_r, soon());
        if (!ok || !ok->json || !tcp::send_json(from_client, *ok->json, soon())) return;
        // What the key holder can derive: K and both nonces, not the X25519 secret.
        const auto keys = auth::session_keys(k, relay_address, nc, ns);
        tcp::FrameAuth forged(keys.responder_to_client, keys.client_to_responder);
        auto frame = json_frame({{"cmd", "error"}, {"error", "injected"}});
        const auto trailer = forged.seal(frame);
        frame.insert(frame.end(), trailer.begin(), trailer.end());
        (void)tcp::send_all(from_client, frame, soon());
    });
    auto c = tcp::connect({"127.0.0.1", pa}, soon());
    BOOST_REQUIRE(c.ok());
    const Status hs = auth::prove_to_responder(*c, k, soon());
    BOOST_REQUIRE_MESSAGE(hs.ok(), text_of(hs));  // no host keys here: the handshake goes through
    auto injected = tcp::recv_any(*c, soon());
    relay.join();
    r.join();
    BOOST_REQUIRE_MESSAGE(!injected.ok(), "the injected frame was accepted");
    const std::string m = injected.error().message();
    BOOST_TEST(m.find("MAC does not verify: injected, replayed or altered") != std::string::npos,
               m);
}

BOOST_AUTO_TEST_CASE(connect_control_requires_the_known_host_and_fails_closed) {
    const auto k = std::make_shared<const auth::FabricKey>(fabric_key());
    const auto hk = auth::HostKey::generate();
    auth::set_process_key(k);
    // A file that names another host only: refused before any handshake, by name.
    auto other = auth::parse_known_hosts(
        "node9 ed25519 " + auth::public_key_text(hk.public_key()) + "\n", "kh");
    BOOST_REQUIRE(other.ok());
    auth::set_process_known_hosts(std::make_shared<const auth::KnownHosts>(*other));
    {
        Responder r(*k, &hk);
        auto s = auth::connect_control({"127.0.0.1", r.port}, soon());
        BOOST_REQUIRE(!s.ok());
        BOOST_TEST(
            s.error().message().find("no known host key for 127.0.0.1 in kh") != std::string::npos,
            s.error().message());
        r.join();
        BOOST_TEST(!r.command.has_value());
    }
    // Listed by address (any case of a name would do): the signed handshake is required and holds.
    auto listed = auth::parse_known_hosts(
        "# fleet\n127.0.0.1 ed25519 " + auth::public_key_text(hk.public_key()) + "\n", "kh");
    BOOST_REQUIRE(listed.ok());
    auth::set_process_known_hosts(std::make_shared<const auth::KnownHosts>(*listed));
    {
        Responder r(*k, &hk);
        auto s = auth::connect_control({"127.0.0.1", r.port}, soon());
        BOOST_TEST(s.ok(), (s ? "" : s.error().message()));
        if (s) BOOST_TEST(tcp::send_json(*s, {{"cmd", "inventory"}}, soon()).ok());
        r.join();
        BOOST_TEST(r.command.value_or("") == "inventory");
    }
    {  // the same host without its host key: refused by name
        Responder r(*k, nullptr);
        auto s = auth::connect_control({"127.0.0.1", r.port}, soon());
        BOOST_REQUIRE(!s.ok());
        BOOST_TEST(s.error().message().find("responder 127.0.0.1 did not prove its host key") !=
                       std::string::npos,
                   s.error().message());
        r.join();
    }
    auth::set_process_known_hosts(nullptr);
    auth::set_process_key(nullptr);
}

BOOST_AUTO_TEST_CASE(known_hosts_lines_parse_and_errors_name_file_and_line) {
    const auto pub = auth::public_key_text(auth::HostKey::generate().public_key());
    auto ok = auth::parse_known_hosts(
        "# hosts\n\n  Node7\ted25519  " + pub + "  \r\nfe80::1 ed25519 " + pub + "\n", "kh");
    BOOST_REQUIRE_MESSAGE(ok.ok(), (ok ? "" : ok.error().message()));
    BOOST_TEST(ok->hosts.size() == 2u);
    BOOST_REQUIRE(ok->find("NODE7"));
    BOOST_TEST(ok->find("NODE7")->line == 3);
    BOOST_TEST(!ok->find("node8"));
    const std::string f = "/etc/rocehealth/known_hosts:";
    BOOST_TEST(parse_error("a ed25519 " + pub + "\nb ed25519\n")
                   .find(f + "2: expected NAME "
                             "ed25519 BASE64") != std::string::npos);
    BOOST_TEST(parse_error("\nb ssh-rsa " + pub).find(f + "2: key type \"ssh-rsa\"") !=
               std::string::npos);
    BOOST_TEST(parse_error("b/c ed25519 " + pub).find(f + "1: \"b/c\": not a host name") !=
               std::string::npos);
    BOOST_TEST(parse_error("b ed25519 " + pub.substr(0, 43)).find(f + "1:") != std::string::npos);
    BOOST_TEST(parse_error("b ed25519 " + pub + "\n#\nB ed25519 " + pub)
                   .find(f + "3: B is given twice (first on line 1)") != std::string::npos);
    BOOST_TEST(parse_error("b ed25519 " + pub + std::string(1, '\0')).find(f + "1: holds a NUL") !=
               std::string::npos);
    // A name with a port never matched (the client looks up the host it dials): refused by line,
    // ssh's "[NAME]:PORT" form and "NAME:PORT" alike; an IPv6 address (two colons or more) is fine.
    for (const std::string name : {"gpu01:18520", "10.0.0.1:18520", "[gpu01]:18520", "[fd00::1]"})
        BOOST_TEST(
            parse_error("a ed25519 " + pub + "\n" + name + " ed25519 " + pub)
                    .find(f + "2: \"" + name + "\": a name with a port; write the host alone") !=
                std::string::npos,
            name);
    BOOST_TEST(auth::parse_known_hosts("fd00::1:2 ed25519 " + pub, "kh").ok());
}

BOOST_AUTO_TEST_CASE(public_keys_have_one_text_and_a_fingerprint) {
    const auto k = auth::HostKey::generate().public_key();
    const std::string t = auth::public_key_text(k);
    BOOST_TEST(t.size() == 44u);
    BOOST_TEST((auth::parse_public_key_text(t) == std::optional<auth::PublicKey>(k)));
    // The 44th character's padding and the 43rd's two unused bits: a second text of one key.
    std::string other = t;
    const std::string b64 = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    other[42] = b64[(b64.find(t[42]) ^ 1)];
    BOOST_TEST(!auth::parse_public_key_text(other).has_value());
    BOOST_TEST(!auth::parse_public_key_text(t.substr(0, 43) + "A").has_value());
    const std::string fp = auth::host_key_fingerprint(k);
    BOOST_TEST(fp.starts_with("SHA256:"));
    BOOST_TEST(fp.size() == 7u + 43u);
}

BOOST_AUTO_TEST_CASE(host_key_files_are_written_0600_and_read_back_with_the_same_checks) {
    Scratch d;
    const std::string path = (d.dir / "new" / "host.key").string();
    auto k = auth::write_new_host_key_file(path);
    BOOST_REQUIRE_MESSAGE(k.ok(), (k ? "" : k.error().message()));
    struct stat st {};
    BOOST_REQUIRE(::stat(path.c_str(), &st) == 0);
    BOOST_TEST((st.st_mode & 0777) == 0600u);
    BOOST_REQUIRE(::stat((d.dir / "new").c_str(), &st) == 0);
    BOOST_TEST((st.st_mode & 0777) == 0700u);
    auto again = auth::HostKey::load(path);
    BOOST_REQUIRE(again.ok());
    BOOST_TEST((again->public_key() == k->public_key()));
    const auto sig = again->sign(std::vector<std::uint8_t>{1, 2, 3});
    BOOST_TEST(auth::verify_signature(k->public_key(), std::vector<std::uint8_t>{1, 2, 3}, sig));
    BOOST_TEST(!auth::verify_signature(k->public_key(), std::vector<std::uint8_t>{1, 2, 4}, sig));
    auto exists = auth::write_new_host_key_file(path);
    BOOST_REQUIRE(!exists.ok());
    BOOST_TEST(exists.error().message().find("a key is there already") != std::string::npos);
    BOOST_REQUIRE(::chmod(path.c_str(), 0644) == 0);
    auto loose = auth::HostKey::load(path);
    BOOST_REQUIRE(!loose.ok());
    BOOST_TEST(loose.error().message().find("chmod 600") != std::string::npos);
    const std::string text = d.write("text.key", "not a key\n", 0600);
    auto bad = auth::HostKey::load(text);
    BOOST_REQUIRE(!bad.ok());
    BOOST_TEST(bad.error().message().find("is not a PEM private key") != std::string::npos);
}

// A file that holds more than the key is not the file keygen wrote: two keys (which one signs?)
// or anything after the key are refused by name, as is a key in a folder others may write to
// (they could put their own key in its place).
BOOST_AUTO_TEST_CASE(a_host_key_file_with_more_than_one_key_or_in_an_open_folder_is_refused) {
    Scratch d;
    const std::string pem = auth::HostKey::generate().private_pem();
    const std::string one = d.write("one.key", pem + "\n\n", 0600);  // trailing blank lines: fine
    auto ok = auth::HostKey::load(one);
    BOOST_REQUIRE_MESSAGE(ok.ok(), (ok ? "" : ok.error().message()));
    for (const auto& [extra, why] :
         {std::pair{auth::HostKey::generate().private_pem(), "holds more than one PEM private key"},
          std::pair{std::string("junk\n"), "holds text after its PEM private key"}}) {
        const std::string two = d.write("two.key", pem + extra, 0600);
        auto r = auth::HostKey::load(two);
        BOOST_REQUIRE(!r.ok());
        const std::string m = r.error().message();
        BOOST_TEST(m.find("host key " + two + ": " + why) != std::string::npos, m);
    }
    const auto open_dir = d.dir / "open";
    std::filesystem::create_directory(open_dir);
    const std::string in_open = (open_dir / "host.key").string();
    std::ofstream(in_open) << pem;
    BOOST_REQUIRE(::chmod(in_open.c_str(), 0600) == 0);
    BOOST_REQUIRE(::chmod(open_dir.c_str(), 0777) == 0);
    auto r = auth::HostKey::load(in_open);
    BOOST_REQUIRE(!r.ok());
    const std::string m = r.error().message();
    BOOST_TEST(m.find("host key " + in_open + ": ") != std::string::npos, m);
    BOOST_TEST(m.find("folder " + open_dir.string() + " is writable by group or others") !=
                   std::string::npos,
               m);
    BOOST_TEST(m.find("chmod go-w " + open_dir.string()) != std::string::npos, m);
    BOOST_REQUIRE(::chmod(open_dir.c_str(), 0755) == 0);
    BOOST_TEST(auth::HostKey::load(in_open).ok());
}

BOOST_AUTO_TEST_CASE(a_known_hosts_file_anyone_could_write_or_a_symlink_is_refused) {
    Scratch d;
    const auto pub = auth::public_key_text(auth::HostKey::generate().public_key());
    const std::string good = d.write("kh", "n1 ed25519 " + pub + "\n", 0644);
    auto ok = auth::load_known_hosts(good);
    BOOST_REQUIRE_MESSAGE(ok.ok(), (ok ? "" : ok.error().message()));
    BOOST_TEST(ok->find("n1"));
    const std::string link = (d.dir / "link").string();
    BOOST_REQUIRE(::symlink(good.c_str(), link.c_str()) == 0);
    auto via_link = auth::load_known_hosts(link);
    BOOST_REQUIRE(!via_link.ok());
    BOOST_TEST(via_link.error().message().find("symbolic link") != std::string::npos);
    BOOST_REQUIRE(::chmod(good.c_str(), 0664) == 0);
    auto writable = auth::load_known_hosts(good);
    BOOST_REQUIRE(!writable.ok());
    BOOST_TEST(writable.error().message().find("writable by group or others") != std::string::npos);
    const std::string bad = d.write("bad", "# x\nn1 ed25519\n", 0644);
    auto line = auth::load_known_hosts(bad);
    BOOST_REQUIRE(!line.ok());
    BOOST_TEST(line.error().message().find(bad + ":2:") != std::string::npos,
               line.error().message());
}

// `rocehealth responder` on SIGHUP (it read only the fabric key again; the agent reads all):
// a rotated host key and known_hosts take effect; a bad file keeps every key in use.
BOOST_AUTO_TEST_CASE(a_key_reload_takes_every_key_file_or_none) {
    Scratch d;
    const std::string fk = (d.dir / "fabric.key").string();
    BOOST_REQUIRE(auth::write_new_key_file(fk).ok());
    const std::string hk = (d.dir / "host.key").string();
    auto first = auth::write_new_host_key_file(hk);
    BOOST_REQUIRE(first.ok());
    const auto pub = auth::public_key_text(first->public_key());
    const std::string kh = d.write("kh", "n1 ed25519 " + pub + "\n", 0644);
    auto said = auth::reload_process_keys({fk, hk, kh});
    BOOST_REQUIRE_MESSAGE(said.ok(), (said ? "" : said.error().message()));
    BOOST_TEST(*said == "fabric key " + fk + " (fingerprint " +
                            auth::key_fingerprint(auth::process_key()->bytes) + "), host key " +
                            hk + " (fingerprint " +
                            auth::host_key_fingerprint(first->public_key()) + "), known_hosts " +
                            kh + " (1 hosts)");
    BOOST_REQUIRE(auth::process_host_key());
    BOOST_TEST((auth::process_host_key()->public_key() == first->public_key()));
    BOOST_TEST(auth::process_known_hosts()->find("n1"));
    // The host key rotated: the new one signs after the reload.
    std::filesystem::remove(hk);
    auto second = auth::write_new_host_key_file(hk);
    BOOST_REQUIRE(second.ok());
    BOOST_REQUIRE(auth::reload_process_keys({fk, hk, kh}).ok());
    BOOST_TEST((auth::process_host_key()->public_key() == second->public_key()));
    // Rotated again, but known_hosts now bad: nothing changes, and the error names FILE:LINE.
    std::filesystem::remove(hk);
    BOOST_REQUIRE(auth::write_new_host_key_file(hk).ok());
    d.write("kh", "n2 ed25519 " + pub + "\nn1:18520 ed25519 " + pub + "\n", 0644);
    auto bad = auth::reload_process_keys({fk, hk, kh});
    BOOST_REQUIRE(!bad.ok());
    BOOST_TEST(bad.error().message().find(kh + ":2: ") != std::string::npos, bad.error().message());
    BOOST_TEST((auth::process_host_key()->public_key() == second->public_key()));
    BOOST_TEST(auth::process_known_hosts()->find("n1"));
    BOOST_TEST(!auth::process_known_hosts()->find("n2"));
    // Host keys configured away: cleared on the next reload.
    BOOST_REQUIRE(auth::reload_process_keys({fk, "", ""}).ok());
    BOOST_TEST(!auth::process_host_key());
    BOOST_TEST(!auth::process_known_hosts());
    auth::set_process_key(nullptr);
}

BOOST_AUTO_TEST_SUITE_END()
