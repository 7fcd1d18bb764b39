#include "probes/responder/rkey_revocation.h"
#include "probes/auth/handshake.h"

#include <algorithm>
#include <chrono>
#include <thread>

#include "probes/latency/probe.h"
#include "probes/verbs/rc_connection.h"
#include "probes/verbs/wc_status.h"
#include "probes/wire/control_fields.h"
#include "probes/wire/control_replies.h"
#include "probes/wire/stream_protocol.h"

namespace rh {

namespace {

constexpr std::uint64_t kBufferBytes = 4096;
constexpr std::uint64_t kAccessBytes = 64;
constexpr std::uint32_t k24 = (1u << 24) - 1;

int access_flags() {
    return IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_REMOTE_READ;
}

/// Waits for one completion: "IBV_WC_SUCCESS", the error completion's status name, or
/// "timeout"; `detail` gets the completion text.
std::string wait_completion(RcConnection& c, int timeout_ms, std::string& detail) {
    const auto until = std::chrono::steady_clock::now() + std::chrono::milliseconds(timeout_ms);
    while (std::chrono::steady_clock::now() < until) {
        ibv_wc wc{};
        auto n = c.poll(std::span(&wc, 1));
        if (!n) {
            detail = n.error().message();
            return cause_of(n.error());
        }
        if (*n == 1) return wc_status_name(wc.status);
        std::this_thread::sleep_for(std::chrono::microseconds(50));
    }
    detail = "no completion within " + std::to_string(timeout_ms) + " ms";
    return "timeout";
}

/// Receives the json reply `want` or an Error naming what came instead.
Result<nlohmann::json> expect(const tcp::Socket& s, const std::string& want, int timeout_ms) {
    auto m = tcp::recv_any(s, tcp::deadline_in(timeout_ms));
    if (!m) return m.error();
    if (!m->json) return Error{"rkey_revocation", s.peer(), 0, "expected a json " + want};
    const auto& j = *m->json;
    const std::string cmd = j.value("cmd", "");
    if (cmd == want) return j;
    if (auto e = stream::error_text(j))
        return Error{"rkey_revocation", s.peer(), 0, "responder refused: " + *e};
    return Error{"rkey_revocation", s.peer(), 0, "expected " + want + ", got '" + cmd + "'"};
}

}  // namespace

Result<RkeyOutcome> run_rkey_revocation(const RkeyOptions& o) {
    auto hp = tcp::parse_host_port(o.peer, oob::kDefaultPort);
    if (!hp) return hp.error();
    auto where = choose_port(SysfsRoot("/sys"), o.device, o.gid_index);
    if (!where) return where.error();
    auto conn = RcConnection::open({*where, kBufferBytes, access_flags(), 2, 1});
    if (!conn) return conn.error();
    RcConnection& c = **conn;
    auto s = auth::connect_control(*hp, tcp::deadline_in(o.timeout_ms));
    if (!s) return s.error();
    const nlohmann::json open{{"cmd", "rkey_open"},
                              {"qpn", c.qpn()},
                              {"psn", c.psn()},
                              {"gid", ctl::gid_hex(where->gid)},
                              {"active_mtu", c.active_mtu_bytes()}};
    if (auto st = tcp::send_json(*s, open, tcp::deadline_in(o.timeout_ms)); !st) return st.error();
    auto ready = expect(*s, "rkey_ready", std::max(o.timeout_ms, kSetupTimeoutMs));
    if (!ready) return ready.error();
    auto peer = wire::parse_rkey_ready(*ready, "responder at " + hp->str());
    if (!peer) return peer.error();
    const std::uint32_t rkey = peer->rkey;
    const std::uint64_t addr = peer->addr;
    if (auto st = c.connect({peer->qpn, peer->psn, peer->gid},
                            std::min(peer->active_mtu, c.active_mtu_bytes()), 1);
        !st)
        return st.error();

    RkeyOutcome out;
    out.op = o.write ? "write" : "read";
    std::string detail;
    if (auto st = c.post(IBV_WR_RDMA_READ, 0, addr, rkey, kAccessBytes, 1); !st) return st.error();
    out.control_status = wait_completion(c, o.timeout_ms, detail);
    if (out.control_status != "IBV_WC_SUCCESS")
        return Error{"rkey_revocation", s->peer(), 0,
                     "the READ with the valid rkey before revocation ended " + out.control_status +
                         " (" + detail + "): the test would prove nothing"};
    if (auto st = tcp::send_json(*s, {{"cmd", "rkey_revoke"}}, tcp::deadline_in(o.timeout_ms)); !st)
        return st.error();
    if (auto r = expect(*s, "rkey_revoked", o.timeout_ms); !r) return r.error();
    if (auto st =
            c.post(o.write ? IBV_WR_RDMA_WRITE : IBV_WR_RDMA_READ, 0, addr, rkey, kAccessBytes, 2);
        !st)
        return st.error();
    out.got_status = wait_completion(c, o.timeout_ms, out.detail);
    return out;
}

void serve_rkey(const tcp::Socket& s, const nlohmann::json& msg, const ControlContext& cx) {
    auto refuse = [&](const std::string& why) {
        cx.log("rkey_open refused: " + why);
        (void)tcp::send_json(s, stream::error_message(why), tcp::deadline_in(2000));
    };
    ctl::Fields f(msg);
    const std::uint32_t qpn = f.u32("qpn", 1, k24), psn = f.u32("psn", 0, k24);
    const auto gid = f.gid("gid");
    const unsigned mtu = f.u32("active_mtu", 256, 4096);
    if (!f.ok()) return refuse(f.error().message());
    auto conn = RcConnection::open({cx.where, kBufferBytes, access_flags(), 1, 1});
    if (!conn) return refuse(conn.error().message());
    RcConnection& c = **conn;
    if (auto st = c.connect({qpn, psn, gid}, std::min(mtu, c.active_mtu_bytes()), 1); !st)
        return refuse(st.error().message());
    const wire::RkeyReady ready{c.qpn(),  c.psn(),  cx.where.gid, c.active_mtu_bytes(),
                                c.rkey(), c.addr(), kBufferBytes};
    if (!tcp::send_json(s, wire::to_json(ready), tcp::deadline_in(2000))) return;
    auto m = tcp::recv_any(s, tcp::deadline_in(cx.opts.idle_timeout_ms), cx.stop);
    if (!m || !m->json || m->json->value("cmd", "") != "rkey_revoke") return;
    c.deregister_buffer();
    cx.log("rkey revoked (MR deregistered)");
    if (!tcp::send_json(s, {{"cmd", "rkey_revoked"}}, tcp::deadline_in(2000))) return;
    // Keep the QP until the client is done (it closes the connection).
    (void)tcp::recv_any(s, tcp::deadline_in(cx.opts.handshake_timeout_ms * 4), cx.stop);
}

}  // namespace rh
