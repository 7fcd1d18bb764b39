#include "probes/auth/handshake.h"

#include <cerrno>
#include <cstdlib>
#include <cstring>

#include "probes/auth/hkdf.h"
#include "probes/auth/key_share.h"
#include "probes/auth/known_hosts.h"

namespace rh::auth {

namespace {

constexpr const char* kLabel = "rocehealth fabric auth";
constexpr const char* kKeyLabel = "rocehealth frame key";
constexpr const char* kHostLabel = "rocehealth host key";

/// `label` 0x00 | json version (2 bytes, big-endian): how every transcript and key info begins.
std::vector<std::uint8_t> labelled(const char* label) {
    std::vector<std::uint8_t> t(label, label + std::strlen(label));
    t.push_back(0);
    t.push_back(static_cast<std::uint8_t>(oob::kJsonVersion >> 8));
    t.push_back(static_cast<std::uint8_t>(oob::kJsonVersion & 0xff));
    return t;
}

void append(std::vector<std::uint8_t>& t, const std::string& text) {
    t.insert(t.end(), text.begin(), text.end());
    t.push_back(0);
}

/// A frame key: HKDF-SHA256 (hkdf.h), 32 bytes.
tcp::FrameKey hkdf(std::span<const std::uint8_t> ikm, std::span<const std::uint8_t> salt,
                   std::span<const std::uint8_t> info) {
    tcp::FrameKey out{};
    // libcrypto without HKDF: no connection could be protected.
    if (!hkdf_sha256(ikm, salt, info, out)) std::abort();
    return out;
}

std::string hex(std::span<const std::uint8_t> b) {
    static const char* d = "0123456789abcdef";
    std::string s;
    s.reserve(2 * b.size());
    for (auto c : b) {
        s += d[c >> 4];
        s += d[c & 15];
    }
    return s;
}

/// Exactly 2N lowercase or uppercase hex digits into `out` (N bytes).
template <std::size_t N>
Result<std::array<std::uint8_t, N>> unhex(const nlohmann::json& j, const char* field) {
    const auto bad = [field](const std::string& why) {
        return Error{"auth", "message", 0, std::string(field) + ": " + why};
    };
    if (!j.is_object() || !j.contains(field)) return bad("missing");
    const auto& v = j[field];
    if (!v.is_string()) return bad("not a string");
    const auto& s = v.get_ref<const std::string&>();
    if (s.size() != 2 * N)
        return bad("expected " + std::to_string(2 * N) + " hex digits, got " +
                   std::to_string(s.size()) + " characters");
    std::array<std::uint8_t, N> out{};
    for (std::size_t i = 0; i < 2 * N; ++i) {
        const char c = s[i];
        int x = c >= '0' && c <= '9'   ? c - '0'
                : c >= 'a' && c <= 'f' ? c - 'a' + 10
                : c >= 'A' && c <= 'F' ? c - 'A' + 10
                                       : -1;
        if (x < 0) return bad("not hex");
        out[i / 2] = static_cast<std::uint8_t>(out[i / 2] << 4 | x);
    }
    return out;
}

/// An optional hex field: absent is nullopt, present must be 2N hex digits.
template <std::size_t N>
Result<std::optional<std::array<std::uint8_t, N>>> unhex_optional(const nlohmann::json& j,
                                                                  const char* field) {
    if (!j.is_object() || !j.contains(field)) return std::optional<std::array<std::uint8_t, N>>{};
    auto v = unhex<N>(j, field);
    if (!v) return v.error();
    return std::optional<std::array<std::uint8_t, N>>{*v};
}

/// "HOST" of "HOST:PORT" or "[HOST]:PORT" (tcp::peer_address's form).
std::string dialled_host_of(const std::string& address) {
    if (address.starts_with('[')) return address.substr(1, address.find(']') - 1);
    return address.substr(0, address.rfind(':'));
}

Status expect_cmd(const nlohmann::json& j, const char* want) {
    if (j.is_object() && j.contains("cmd") && j["cmd"].is_string() && j["cmd"] == want)
        return ok_status();
    return Error{"auth", "message", 0, std::string("expected ") + want};
}

nlohmann::json error_frame(const std::string& text) {
    return {{"cmd", "error"}, {"error", text}};
}

/// The responder's refusal text in an error frame, if that is what `j` is.
std::optional<std::string> refusal(const nlohmann::json& j) {
    if (j.is_object() && j.value("cmd", "") == "error" && j.contains("error") &&
        j["error"].is_string())
        return j["error"].get<std::string>();
    return std::nullopt;
}

}  // namespace

Mac proof_of(const FabricKey& key, const std::string& role, const std::string& to,
             const Nonce& client_nonce, const Nonce& server_nonce) {
    std::vector<std::uint8_t> t = labelled(kLabel);
    append(t, role);
    append(t, to);
    t.insert(t.end(), client_nonce.begin(), client_nonce.end());
    t.insert(t.end(), server_nonce.begin(), server_nonce.end());
    return hmac_sha256(key.bytes, t);
}

SessionKeys session_keys(const FabricKey& key, const std::string& to, const Nonce& client_nonce,
                         const Nonce& server_nonce, std::span<const std::uint8_t> dh) {
    KeyBytes ikm = key.bytes;
    ikm.insert(ikm.end(), dh.begin(), dh.end());
    std::vector<std::uint8_t> salt(client_nonce.begin(), client_nonce.end());
    salt.insert(salt.end(), server_nonce.begin(), server_nonce.end());
    const auto info = [&to](const char* direction) {
        std::vector<std::uint8_t> i = labelled(kKeyLabel);
        append(i, to);
        i.insert(i.end(), direction, direction + std::strlen(direction));
        return i;
    };
    return {hkdf(ikm, salt, info("client to responder")),
            hkdf(ikm, salt, info("responder to client"))};
}

std::vector<std::uint8_t> host_transcript(const std::string& to, const Nonce& client_nonce,
                                          const Nonce& server_nonce, const PublicKey& client_share,
                                          const PublicKey& server_share) {
    std::vector<std::uint8_t> t = labelled(kHostLabel);
    append(t, to);
    for (const auto* part : {&client_nonce, &server_nonce, &client_share, &server_share})
        t.insert(t.end(), part->begin(), part->end());
    return t;
}

nlohmann::json auth_request(const Nonce& n, const std::string& to, const PublicKey* share) {
    nlohmann::json j = {{"cmd", "auth"}, {"nonce", hex(n)}, {"to", to}};
    if (share) j["kx"] = hex(*share);
    return j;
}

nlohmann::json auth_challenge(const Nonce& n, const Mac& proof, const PublicKey* share,
                              const Signature* sig) {
    nlohmann::json j = {{"cmd", "auth_challenge"}, {"nonce", hex(n)}, {"proof", hex(proof)}};
    if (share) j["kx"] = hex(*share);
    if (sig) j["host_sig"] = hex(*sig);
    return j;
}

nlohmann::json auth_proof(const Mac& proof) {
    return {{"cmd", "auth_proof"}, {"proof", hex(proof)}};
}

Result<AuthRequest> parse_auth_request(const nlohmann::json& j) {
    if (auto c = expect_cmd(j, "auth"); !c) return c.error();
    auto n = unhex<32>(j, "nonce");
    if (!n) return n.error();
    const auto bad = [](const std::string& why) {
        return Error{"auth", "message", 0, "to: " + why};
    };
    if (!j.contains("to")) return bad("missing (the address the client dialled)");
    if (!j["to"].is_string()) return bad("not a string");
    auto to = tcp::canonical_address(j["to"].get_ref<const std::string&>());
    if (!to) return bad(to.error().message());
    auto share = unhex_optional<32>(j, "kx");
    if (!share) return share.error();
    return AuthRequest{*n, std::move(*to), *share};
}

Result<Challenge> parse_auth_challenge(const nlohmann::json& j) {
    if (auto c = expect_cmd(j, "auth_challenge"); !c) return c.error();
    auto n = unhex<32>(j, "nonce");
    if (!n) return n.error();
    auto p = unhex<32>(j, "proof");
    if (!p) return p.error();
    auto share = unhex_optional<32>(j, "kx");
    if (!share) return share.error();
    auto sig = unhex_optional<64>(j, "host_sig");
    if (!sig) return sig.error();
    if (*sig && !*share) return Error{"auth", "message", 0, "host_sig: without kx"};
    return Challenge{*n, *p, *share, *sig};
}

Result<Mac> parse_auth_proof(const nlohmann::json& j) {
    if (auto c = expect_cmd(j, "auth_proof"); !c) return c.error();
    return unhex<32>(j, "proof");
}

Status prove_to_responder(tcp::Socket& s, const FabricKey& key, tcp::Deadline dl,
                          const ExpectedHost* expect) {
    const std::string who = s.peer().empty() ? "responder" : s.peer();
    const auto fail = [&who](const std::string& why) { return Error{"auth", who, 0, why}; };
    // What this socket really goes to, not the name it was given: a name that resolves to a
    // relay binds the relay's address, which the responder behind it refuses.
    const auto to = tcp::peer_address(s);
    if (!to)
        return fail("cannot bind the handshake to the dialled address: " + to.error().message());
    Nonce cn{};
    const auto r = random_bytes(cn.size());
    std::copy(r.begin(), r.end(), cn.begin());
    const KeyShare mine = KeyShare::generate();
    const PublicKey my_share = mine.public_key();
    if (auto st = tcp::send_json(s, auth_request(cn, *to, &my_share), dl); !st) return st.error();
    auto got = tcp::recv_any(s, dl);
    if (!got && tcp::closed_between_messages(got.error()))
        return fail(
            "closed the connection without answering the handshake: a responder older than "
            "json protocol " +
            std::to_string(oob::kJsonVersion) +
            " does so (its log names both versions: run one rocehealth version on both ends), "
            "or this port is not a rocehealth responder");
    if (!got) return got.error();
    if (!got->json) {
        // A fixed error frame: refused before reading (busy), or an older responder.
        if (got->fixed && got->fixed->type == oob::Type::error)
            return fail("refused: " + got->fixed->text);
        return fail("expected auth_challenge, got a fixed frame");
    }
    if (auto why = refusal(*got->json)) return fail(*why);
    auto ch = parse_auth_challenge(*got->json);
    if (!ch) return fail(ch.error().detail);
    if (!same_mac(ch->proof, proof_of(key, "responder", *to, cn, ch->server_nonce)))
        return fail(
            "responder did not prove the fabric key for " + *to +
            " (it holds another key, or a relay between us rewrote the address it was asked for)");
    // The host key before our own proof: an impostor learns nothing more from this connection.
    if (expect && !ch->host_sig)
        return fail("responder " + expect->name + " " + kNoHostProof +
                    ": it sent no host signature, and " + expect->source +
                    " requires one (it has no host key configured, runs a rocehealth without host "
                    "keys, or is another host posing as " +
                    expect->name + ")");
    if (expect && !verify_signature(
                      expect->key, host_transcript(*to, cn, ch->server_nonce, my_share, *ch->share),
                      *ch->host_sig))
        return fail("responder " + expect->name + " " + kNoHostProof +
                    ": its signature does not verify with the key of " + expect->source +
                    " (another host posing as " + expect->name +
                    ", a relay, or its host key was replaced: compare the fingerprint it logs)");
    KeyBytes dh;
    if (ch->share) {
        auto secret = mine.agree(*ch->share);
        if (!secret) return fail(secret.error().detail);
        dh = std::move(*secret);
    }
    if (auto st =
            tcp::send_json(s, auth_proof(proof_of(key, "client", *to, cn, ch->server_nonce)), dl);
        !st)
        return st.error();
    auto ok = tcp::recv_any(s, dl);
    if (!ok) return ok.error();
    if (!ok->json) return fail("expected auth_ok, got a fixed frame");
    if (auto why = refusal(*ok->json)) return fail(*why);
    if (auto c = expect_cmd(*ok->json, "auth_ok"); !c) return fail(c.error().detail);
    const SessionKeys k = session_keys(key, *to, cn, ch->server_nonce, dh);
    s.protect(std::make_shared<tcp::FrameAuth>(k.client_to_responder, k.responder_to_client));
    return ok_status();
}

Status verify_client(tcp::Socket& s, const nlohmann::json& first, const FabricKey* key,
                     tcp::Deadline dl, const HostKey* host_key) {
    const auto refuse = [&s, dl](const std::string& why) {
        (void)tcp::send_json(s, error_frame(why), dl);
        return Error{"auth", s.peer(), 0, why};
    };
    if (!key) return refuse(kNoKeyHere);
    auto req = parse_auth_request(first);
    if (!req) return refuse(kNotProven);
    // The address the connection arrived at, the one the client must have dialled.
    const auto here = tcp::local_address(s);
    if (!here) return refuse(kNotProven);
    if (req->to != *here)
        return refuse("the client dialled " + req->to + ", this responder is " + *here + ": " +
                      kRelayed +
                      " (a host in between forwarded the connection; a NAT or port forward "
                      "does the same: connect to the responder's own address)");
    Nonce sn{};
    const auto r = random_bytes(sn.size());
    std::copy(r.begin(), r.end(), sn.begin());
    // A share answers a share; the host key signs only with both (H binds them).
    std::optional<KeyShare> mine;
    PublicKey my_share{};
    std::optional<Signature> sig;
    KeyBytes dh;
    if (req->share) {
        mine = KeyShare::generate();
        my_share = mine->public_key();
        auto secret = mine->agree(*req->share);
        if (!secret) return refuse(secret.error().detail);
        dh = std::move(*secret);
        if (host_key)
            sig = host_key->sign(host_transcript(*here, req->nonce, sn, *req->share, my_share));
    }
    if (auto st =
            tcp::send_json(s,
                           auth_challenge(sn, proof_of(*key, "responder", *here, req->nonce, sn),
                                          mine ? &my_share : nullptr, sig ? &*sig : nullptr),
                           dl);
        !st)
        return st.error();
    auto got = tcp::recv_any(s, dl);
    if (!got) {
        if (tcp::closed_between_messages(got.error()))
            return Error{"auth", s.peer(), 0, kClientHoldsAnotherKey};
        return got.error();
    }
    if (!got->json) return refuse(kNotProven);
    auto proof = parse_auth_proof(*got->json);
    if (!proof || !same_mac(*proof, proof_of(*key, "client", *here, req->nonce, sn))) {
        Error e = refuse(kNotProven);
        e.err_no = EACCES;  // a proof that fails: the one kind of failure that is a guess
        return e;
    }
    if (auto st = tcp::send_json(s, {{"cmd", "auth_ok"}}, dl); !st) return st.error();
    const SessionKeys k = session_keys(*key, *here, req->nonce, sn, dh);
    s.protect(std::make_shared<tcp::FrameAuth>(k.responder_to_client, k.client_to_responder));
    return ok_status();
}

Result<tcp::Socket> connect_control(const tcp::HostPort& peer, tcp::Deadline deadline) {
    const auto key = process_key();
    const auto known = process_known_hosts();
    const std::string subject = "responder at " + peer.str();
    if (known && !key)
        return Error{"auth", subject, 0,
                     "known_hosts " + known->path +
                         " is set but there is no fabric key: host keys add to the fabric key, "
                         "they do not replace it"};
    const KnownHost* entry = known ? known->find(peer.host) : nullptr;
    auto s = tcp::connect(peer, deadline);
    if (!s) return s.error();
    if (known && !entry)  // dialled by a name the file does not give: its address may be there
        if (const auto a = tcp::peer_address(*s)) entry = known->find(dialled_host_of(*a));
    if (known && !entry)
        return Error{"auth", subject, 0,
                     std::string(kNoKnownHost) + " " + peer.host + " in " + known->path +
                         " (add the line `rocehealth keygen --host-key` printed on that host, or "
                         "its `responder` logs at start)"};
    std::optional<ExpectedHost> expect;
    if (entry)
        expect =
            ExpectedHost{peer.host, entry->key, known->path + ":" + std::to_string(entry->line)};
    if (key)
        if (auto st = prove_to_responder(*s, *key, deadline, expect ? &*expect : nullptr); !st) {
            Error e = st.error();
            if (e.subject.empty() || e.subject == "responder" || e.subject.rfind("peer ", 0) == 0)
                e.subject = "responder at " + peer.str();
            return e;
        }
    return s;
}

}  // namespace rh::auth
