#include "probes/auth/handshake.h"

#include <cstring>

namespace rh::auth {

namespace {

constexpr const char* kLabel = "rocehealth fabric auth";

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

Mac proof_of(const FabricKey& key, const std::string& role, const Nonce& client_nonce,
             const Nonce& server_nonce) {
    std::vector<std::uint8_t> t(kLabel, kLabel + std::strlen(kLabel));
    t.push_back(0);
    t.push_back(static_cast<std::uint8_t>(oob::kJsonVersion >> 8));
    t.push_back(static_cast<std::uint8_t>(oob::kJsonVersion & 0xff));
    t.insert(t.end(), role.begin(), role.end());
    t.push_back(0);
    t.insert(t.end(), client_nonce.begin(), client_nonce.end());
    t.insert(t.end(), server_nonce.begin(), server_nonce.end());
    return hmac_sha256(key.bytes, t);
}

nlohmann::json auth_request(const Nonce& n) {
    return {{"cmd", "auth"}, {"nonce", hex(n)}};
}

nlohmann::json auth_challenge(const Nonce& n, const Mac& proof) {
    return {{"cmd", "auth_challenge"}, {"nonce", hex(n)}, {"proof", hex(proof)}};
}

nlohmann::json auth_proof(const Mac& proof) {
    return {{"cmd", "auth_proof"}, {"proof", hex(proof)}};
}

Result<Nonce> parse_auth_request(const nlohmann::json& j) {
    if (auto c = expect_cmd(j, "auth"); !c) return c.error();
    return unhex<32>(j, "nonce");
}

Result<Challenge> parse_auth_challenge(const nlohmann::json& j) {
    if (auto c = expect_cmd(j, "auth_challenge"); !c) return c.error();
    auto n = unhex<32>(j, "nonce");
    if (!n) return n.error();
    auto p = unhex<32>(j, "proof");
    if (!p) return p.error();
    return Challenge{*n, *p};
}

Result<Mac> parse_auth_proof(const nlohmann::json& j) {
    if (auto c = expect_cmd(j, "auth_proof"); !c) return c.error();
    return unhex<32>(j, "proof");
}

Status prove_to_responder(const tcp::Socket& s, const FabricKey& key, tcp::Deadline dl) {
    const std::string who = s.peer().empty() ? "responder" : s.peer();
    const auto fail = [&who](const std::string& why) { return Error{"auth", who, 0, why}; };
    Nonce cn{};
    const auto r = random_bytes(cn.size());
    std::copy(r.begin(), r.end(), cn.begin());
    if (auto st = tcp::send_json(s, auth_request(cn), dl); !st) return st.error();
    auto got = tcp::recv_any(s, dl);
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
    if (!same_mac(ch->proof, proof_of(key, "responder", cn, ch->server_nonce)))
        return fail("responder did not prove the fabric key (it holds another key)");
    if (auto st = tcp::send_json(s, auth_proof(proof_of(key, "client", cn, ch->server_nonce)), dl);
        !st)
        return st.error();
    auto ok = tcp::recv_any(s, dl);
    if (!ok) return ok.error();
    if (!ok->json) return fail("expected auth_ok, got a fixed frame");
    if (auto why = refusal(*ok->json)) return fail(*why);
    if (auto c = expect_cmd(*ok->json, "auth_ok"); !c) return fail(c.error().detail);
    return ok_status();
}

Status verify_client(const tcp::Socket& s, const nlohmann::json& first, const FabricKey* key,
                     tcp::Deadline dl) {
    const auto refuse = [&s, dl](const char* why) {
        (void)tcp::send_json(s, error_frame(why), dl);
        return Error{"auth", s.peer(), 0, why};
    };
    if (!key) return refuse(kNoKeyHere);
    auto cn = parse_auth_request(first);
    if (!cn) return refuse(kNotProven);
    Nonce sn{};
    const auto r = random_bytes(sn.size());
    std::copy(r.begin(), r.end(), sn.begin());
    if (auto st = tcp::send_json(s, auth_challenge(sn, proof_of(*key, "responder", *cn, sn)), dl);
        !st)
        return st.error();
    auto got = tcp::recv_any(s, dl);
    if (!got) return got.error();
    if (!got->json) return refuse(kNotProven);
    auto proof = parse_auth_proof(*got->json);
    if (!proof || !same_mac(*proof, proof_of(*key, "client", *cn, sn))) return refuse(kNotProven);
    if (auto st = tcp::send_json(s, {{"cmd", "auth_ok"}}, dl); !st) return st.error();
    return ok_status();
}

Result<tcp::Socket> connect_control(const tcp::HostPort& peer, tcp::Deadline deadline) {
    auto s = tcp::connect(peer, deadline);
    if (!s) return s.error();
    if (const auto key = process_key())
        if (auto st = prove_to_responder(*s, *key, deadline); !st) {
            Error e = st.error();
            if (e.subject.empty() || e.subject == "responder" || e.subject.rfind("peer ", 0) == 0)
                e.subject = "responder at " + peer.str();
            return e;
        }
    return s;
}

}  // namespace rh::auth
