// Writes the seed corpus of fuzz_oob_frame into DIR: one file per fixed frame type (as encode()
// lays them out) and json frames of each control command and of the fabric-key handshake (as
// the responder's peers send them). With --replies DIR, that of fuzz_control_replies: the JSON
// text of every control reply as its writer lays it out (tests/probes/control_reply_examples.h)
// and of the probe and fault requests. With --messages DIR, that of fuzz_peer_messages: each
// incast and stream message as its writer writes it.
// Built and run by tests/fuzz/run.sh before fuzzing; plain C++, no fuzzer runtime needed.
#include <cstdio>
#include <fstream>
#include <iostream>
#include <string>

#include "probes/auth/handshake.h"
#include "probes/wire/frame_mac.h"
#include "probes/wire/incast_messages.h"
#include "probes/wire/oob_protocol.h"
#include "probes/wire/stream_protocol.h"
#include "tests/fuzz/fuzz_frame_key.h"
#include "tests/probes/control_reply_examples.h"

namespace {

template <typename Bytes>
void write(const std::string& dir, const std::string& name, const Bytes& b) {
    std::ofstream out(dir + "/" + name, std::ios::binary);
    out.write(reinterpret_cast<const char*>(b.data()), static_cast<std::streamsize>(b.size()));
}

constexpr rh::auth::PublicKey kShare{9, 8, 7};
constexpr rh::auth::Signature kSig{6, 5, 4};

/// fuzz_control_replies' seeds: each reply and request as JSON text.
int reply_seeds(const std::string& dir) {
    namespace ex = rh::examples;
    std::vector<nlohmann::json> docs{
        rh::wire::to_json(ex::inventory_reply()), rh::wire::to_json(ex::probe_reply()),
        rh::wire::to_json(ex::probe_reply_not_run()), rh::wire::to_json(ex::fault_reply()),
        rh::wire::to_json(ex::rkey_ready())};
    for (const auto& s : ex::sample_replies())
        docs.push_back(std::visit([](const auto& m) { return rh::wire::to_json(m); }, s));
    docs.push_back(nlohmann::json::parse(
        R"({"cmd": "probe", "peer": "10.99.0.12:18520", "ops": ["write", "read"],
            "sizes": [64, 4096], "iterations": 200, "warmup": 10, "timeout_ms": 5000,
            "host": "gpu01", "peer_name": "gpu02"})"));
    docs.push_back(nlohmann::json::parse(
        R"({"cmd": "fault", "peer": "10.99.0.12:18520", "down_ms": 5000,
            "recovery_timeout_ms": 60000})"));
    int i = 0;
    for (const auto& d : docs) write(dir, "reply-" + std::to_string(i++), d.dump());
    write(dir, "peers-file",
          std::string(
              "# host address tor\n"
              "{\"host\": \"gpu01\", \"address\": \"10.99.0.11\", \"tor\": \"r12\"}\n"
              "{\"host\": \"gpu02\", \"address\": \"[fd00::12]:18520\", \"tor\": \"r12\"}\r\n"));
    return 0;
}

/// The sender's hello both seed sets start from (a ConnectX port of gpu01, RoCE v2).
rh::incast::Hello example_hello() {
    rh::incast::Hello h;
    h.hostname = "gpu01";
    h.device = "mlx5_0";
    h.port = 1;
    h.gid = "::ffff:10.0.0.1";
    h.gid_type = "RoCE v2";
    h.active_mtu = 4096;
    h.port_rate = "100 Gb/sec (4X EDR)";
    return h;
}

/// fuzz_peer_messages' seeds: each incast and stream message as its writer writes it (2 QPs
/// where a message lists them).
int message_seeds(const std::string& dir) {
    namespace in = rh::incast;
    namespace st = rh::stream;
    in::Hello h = example_hello();
    h.wall_ms = 1764900000000;
    h.sampler = true;
    in::Prepare p;
    p.id = "t1";
    p.receiver = "10.0.0.2:18520";
    p.qps = 2;
    in::Ready r{"gpu02", 32, 4096};
    in::Start s{1764900001000, 10000};
    in::Progress g{2.5, 1ull << 30, 16384, 0};
    in::Outcome o;
    o.scheduled_start_wall_ms = 1764900001000;
    o.started_wall_ms = 1764900001002;
    o.ended_wall_ms = 1764900011002;
    o.size_bytes = 65536;
    in::QpResult q;
    q.posted = q.completed = 1000;
    q.errors["IBV_WC_RETRY_EXC_ERR"] = 1;
    q.first_post_wall_ms = 1764900001002;
    q.last_completion_wall_ms = 1764900011000;
    o.qps = {q, q};
    st::Open open;
    open.size_bytes = 65536;
    open.qps = {{0x123456, 0xabcdef, 0, 0}, {17, 0, 0, 0}};
    open.gid[15] = 1;
    open.active_mtu = 4096;
    open.hostname = "gpu01";
    open.device = "mlx5_0";
    st::Ready ready;
    ready.slots = 32;
    ready.recv_depth = 32;
    ready.qps = {{1, 2, 3, 0x7f0000000000}, {4, 5, 6, 0x7f0000100000}};
    ready.active_mtu = 4096;
    ready.hostname = "gpu02";
    ready.device = "mlx5_1";
    st::End end{{1000, 999}};
    st::QpReceived got;
    got.messages = got.verified_messages = 1000;
    got.bytes = got.verified_bytes = 65536000;
    st::Received received{{got, got}, ""};
    o.receiver_ok = true;
    o.receiver = received;
    const nlohmann::json docs[] = {in::to_json(h),       in::to_json(p),     in::to_json(r),
                                   in::to_json(s),       in::to_json(g),     in::to_json(o),
                                   st::to_json(open),    st::to_json(ready), st::to_json(end),
                                   st::to_json(received)};
    int i = 0;
    for (const auto& d : docs) write(dir, "message-" + std::to_string(i++), d.dump());
    return 0;
}

}  // namespace

int main(int argc, char** argv) {
    if (argc == 3 && std::string(argv[1]) == "--replies") return reply_seeds(argv[2]);
    if (argc == 3 && std::string(argv[1]) == "--messages") return message_seeds(argv[2]);
    if (argc != 2) {
        std::cerr
            << "usage: make_seeds DIR | make_seeds --replies DIR | make_seeds --messages DIR\n";
        return 2;
    }
    const std::string dir = argv[1];
    namespace oob = rh::oob;
    oob::Message m;
    m.ops = oob::kOpWrite | oob::kOpRead;
    m.qpn = 0x11;
    m.psn = 0x1234;
    m.gid[10] = m.gid[11] = 0xff;
    m.gid[12] = 10;
    m.gid[15] = 1;
    m.gid_index = 3;
    m.port = 1;
    m.active_mtu = 4096;
    m.rkey = 0x55;
    m.addr = 0x7f0000000000;
    m.buf_len = 1 << 20;
    m.max_msg_size = 1 << 20;
    m.queue_depth = 16;
    m.rd_atomic = 16;
    m.count = 1000;
    m.timeout_ms = 2000;
    m.device = "mlx5_0";
    m.hostname = "gpu01";
    m.gid_type = "RoCE v2";
    for (auto t : {oob::Type::query, oob::Type::query_reply, oob::Type::probe_request,
                   oob::Type::probe_reply, oob::Type::phase, oob::Type::phase_ready,
                   oob::Type::phase_done, oob::Type::bye, oob::Type::error}) {
        m.type = t;
        write(dir, std::string("fixed-") + oob::to_string(t), oob::encode(m));
    }
    const rh::incast::Hello h = example_hello();
    const nlohmann::json docs[] = {
        rh::incast::to_json(h),
        {{"cmd", "inventory"}},
        {{"cmd", "sample"}},
        {{"cmd", "fault"}, {"action", "link_down"}, {"duration_ms", 2000}},
        rh::stream::error_message("refused"),
        rh::auth::auth_request(rh::auth::Nonce{1, 2, 3}, "10.0.0.7:18520"),
        rh::auth::auth_request(rh::auth::Nonce{1, 2, 3}, "[fe80::1]:18520"),
        rh::auth::auth_challenge(rh::auth::Nonce{4, 5, 6}, rh::auth::Mac{7, 8, 9}),
        rh::auth::auth_proof(rh::auth::Mac{10, 11, 12}),
        // With the optional key share and host signature (probes/auth/handshake.h).
        rh::auth::auth_request(rh::auth::Nonce{1, 2, 3}, "10.0.0.7:18520", &kShare),
        rh::auth::auth_challenge(rh::auth::Nonce{4, 5, 6}, rh::auth::Mac{7, 8, 9}, &kShare, &kSig),
    };
    int i = 0;
    for (const auto& d : docs)
        if (auto f = oob::encode_json(d)) {
            write(dir, "json-" + std::to_string(i), *f);
            // The same frame as a protected connection carries it: frame 0 and its MAC trailer.
            rh::tcp::FrameAuth a(rh::fuzz::kFrameKey, rh::fuzz::kFrameKey);
            const auto t = a.seal(*f);
            f->insert(f->end(), t.begin(), t.end());
            write(dir, "mac-json-" + std::to_string(i++), *f);
        }
    return 0;
}
