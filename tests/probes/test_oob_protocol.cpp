#include <boost/test/unit_test.hpp>

#include <cstring>

#include "probes/wire/oob_protocol.h"

BOOST_AUTO_TEST_SUITE(test_oob_protocol)

using namespace rh::oob;

namespace {
Message sample_request() {
    Message m;
    m.type = Type::probe_request;
    m.ops = kOpWrite | kOpRead;
    m.qpn = 0x123456;
    m.psn = 0xabcdef;
    for (int i = 0; i < 16; ++i) m.gid[i] = static_cast<std::uint8_t>(i * 17);
    m.gid_index = 1;
    m.port = 1;
    m.active_mtu = 1024;
    m.rkey = 0xdeadbeef;
    m.addr = 0x7f0012345000ull;
    m.buf_len = 4 << 20;
    m.max_msg_size = 1 << 20;
    m.queue_depth = 4;
    m.rd_atomic = 16;
    m.timeout_ms = 5000;
    m.device = "rxe0";
    m.hostname = "g2";
    m.gid_type = "RoCE v2";
    return m;
}
std::string error_of(const Frame& f) {
    auto r = decode(f);
    BOOST_REQUIRE(!r.ok());
    return r.error().message();
}
/// The semantic error's detail; "" when the check passed.
std::string detail_of(const rh::Status& s) {
    return s.ok() ? std::string() : s.error().detail;
}
void put32(Frame& f, std::size_t off, std::uint32_t v) {
    for (int i = 0; i < 4; ++i) f[off + i] = static_cast<std::byte>(v >> (24 - 8 * i));
}
}  // namespace

BOOST_AUTO_TEST_CASE(round_trip) {
    const Message m = sample_request();
    const Frame f = encode(m);
    // Big-endian magic "RHOB" on the wire.
    BOOST_TEST(std::memcmp(f.data(), "RHOB", 4) == 0);
    auto d = decode(f);
    BOOST_REQUIRE_MESSAGE(d.ok(), (d.ok() ? std::string() : d.error().message()));
    BOOST_TEST(static_cast<int>(d->type) == static_cast<int>(m.type));
    BOOST_TEST(d->ops == m.ops);
    BOOST_TEST(d->qpn == m.qpn);
    BOOST_TEST(d->psn == m.psn);
    BOOST_TEST((d->gid == m.gid));
    BOOST_TEST(d->rkey == m.rkey);
    BOOST_TEST(d->addr == m.addr);
    BOOST_TEST(d->buf_len == m.buf_len);
    BOOST_TEST(d->max_msg_size == m.max_msg_size);
    BOOST_TEST(d->queue_depth == m.queue_depth);
    BOOST_TEST(d->active_mtu == m.active_mtu);
    BOOST_TEST(d->device == "rxe0");
    BOOST_TEST(d->hostname == "g2");
    BOOST_TEST(d->gid_type == "RoCE v2");
    BOOST_TEST(check_probe_request(*d).ok());
}

BOOST_AUTO_TEST_CASE(rejects_bad_magic_version_length) {
    Frame f = encode(sample_request());
    f[0] = std::byte{'g'};
    BOOST_TEST(error_of(f).find("bad magic") != std::string::npos);

    // Older peers (1: no SEND; 2 and 3: FNV-1a slots) are refused with both versions, not misread.
    for (int v : {1, 2, 3}) {
        f = encode(sample_request());
        f[5] = std::byte(v);
        BOOST_TEST(error_of(f).find("peer speaks protocol version " + std::to_string(v) +
                                    " in a frame, this build speaks 4") != std::string::npos);
    }

    f = encode(sample_request());
    put32(f, 8, 1u << 30);  // oversize length prefix
    BOOST_TEST(error_of(f).find("length") != std::string::npos);
}

BOOST_AUTO_TEST_CASE(rejects_truncated) {
    const Frame f = encode(sample_request());
    auto r = decode(std::span<const std::byte>(f).first(100));
    BOOST_REQUIRE(!r.ok());
    BOOST_TEST(r.error().detail.find("truncated") != std::string::npos);
    auto h = check_header(std::span<const std::byte>(f).first(5));
    BOOST_TEST(!h.ok());
}

BOOST_AUTO_TEST_CASE(rejects_out_of_range_fields) {
    Frame f = encode(sample_request());
    put32(f, 16, 0x1000000);  // qpn > 24 bits
    BOOST_TEST(error_of(f).find("qpn") != std::string::npos);

    f = encode(sample_request());
    put32(f, 48, 1500);  // not an IB MTU
    BOOST_TEST(error_of(f).find("active_mtu") != std::string::npos);

    f = encode(sample_request());
    for (int i = 0; i < 8; ++i) f[72 + i] = std::byte{0xff};  // message size 2^64-1
    BOOST_TEST(error_of(f).find("message size") != std::string::npos);

    f = encode(sample_request());
    put32(f, 64, 0x40);  // buf_len high word -> huge
    BOOST_TEST(error_of(f).find("buffer length") != std::string::npos);

    f = encode(sample_request());
    f[7] = std::byte{42};  // unknown type
    BOOST_TEST(error_of(f).find("unknown message type") != std::string::npos);

    f = encode(sample_request());
    put32(f, 100, kMaxRecvDepth + 1);  // recv_depth
    BOOST_TEST(error_of(f).find("recv_depth 1025 exceeds limit 1024") != std::string::npos);

    f = encode(sample_request());
    put32(f, 12, kAllOps | 8);  // an operation this version does not know
    BOOST_TEST(error_of(f).find("unknown operation bits 15") != std::string::npos);
}

BOOST_AUTO_TEST_CASE(send_session_round_trip) {
    Message rep;
    rep.type = Type::probe_reply;
    rep.ops = kOpSend;
    rep.recv_depth = 64;
    rep.buf_len = 4 * 4096;
    rep.active_mtu = 4096;
    // On the wire: ops bit 4 at offset 12, recv_depth at offset 100 (big-endian).
    const Frame f = encode(rep);
    BOOST_TEST(std::to_integer<int>(f[15]) == 4);
    BOOST_TEST(std::to_integer<int>(f[103]) == 64);
    auto d = decode(f);
    BOOST_REQUIRE_MESSAGE(d.ok(), (d.ok() ? std::string() : d.error().message()));
    BOOST_TEST(d->ops == kOpSend);
    BOOST_TEST(d->recv_depth == 64u);

    Message req = sample_request();
    req.ops = kOpSend;
    req.max_msg_size = 4096;
    BOOST_TEST(check_probe_request(req).ok());
    BOOST_TEST(check_probe_reply(req, *d).ok());
    rep.recv_depth = 0;  // a responder that posts no receives: legal, it reproduces RNR
    BOOST_TEST(check_probe_reply(req, rep).ok());
    rep.buf_len = 3 * 4096;  // SEND needs 2 receive + 2 send slots
    BOOST_TEST(!check_probe_reply(req, rep).ok());
}

BOOST_AUTO_TEST_CASE(recv_depth_only_in_a_send_reply) {
    Message req = sample_request();  // write,read
    req.recv_depth = 1;
    BOOST_TEST(detail_of(check_probe_request(req)) ==
               "recv_depth is the responder's; a request carries 0");

    req.recv_depth = 0;
    Message rep = req;
    rep.type = Type::probe_reply;
    rep.recv_depth = 8;
    BOOST_TEST(detail_of(check_probe_reply(req, rep)) ==
               "responder sent recv_depth for a session without SEND");
    rep.recv_depth = 0;
    BOOST_TEST(check_probe_reply(req, rep).ok());
}

BOOST_AUTO_TEST_CASE(send_phases) {
    Message req = sample_request();
    req.ops = kOpWrite | kOpSend;
    Message ph;
    ph.type = Type::phase;
    ph.ops = kOpSend;
    ph.max_msg_size = 4096;
    ph.count = 10;
    ph.seq_base = 1;
    BOOST_TEST(check_phase(ph, req).ok());
    ph.ops = kOpWrite | kOpSend;
    BOOST_TEST(detail_of(check_phase(ph, req)) == "phase must name exactly one op");
    ph.ops = kOpSend;
    ph.recv_depth = 4;
    BOOST_TEST(detail_of(check_phase(ph, req)) == "phase carries a recv_depth");
    ph.recv_depth = 0;
    req.ops = kOpWrite | kOpRead;  // SEND not negotiated
    BOOST_TEST(detail_of(check_phase(ph, req)) == "phase op was not negotiated for this session");
}

BOOST_AUTO_TEST_CASE(rejects_bad_strings) {
    Frame f = encode(sample_request());
    std::memset(f.data() + 112, 'A', 32);  // device field without NUL
    BOOST_TEST(error_of(f).find("device: not NUL-terminated") != std::string::npos);

    f = encode(sample_request());
    f[144] = std::byte{0x07};  // control character in hostname
    BOOST_TEST(error_of(f).find("hostname: non-printable") != std::string::npos);

    f = encode(sample_request());
    f[144 + 10] = std::byte{'x'};  // bytes hidden after the terminator
    BOOST_TEST(error_of(f).find("after the terminating NUL") != std::string::npos);
}

BOOST_AUTO_TEST_CASE(encode_truncates_and_sanitizes_strings) {
    Message m = sample_request();
    m.device = std::string(100, 'd') + "\n";
    auto d = decode(encode(m));
    BOOST_REQUIRE(d.ok());
    BOOST_TEST(d->device == std::string(31, 'd'));
}

BOOST_AUTO_TEST_CASE(semantic_checks) {
    Message m = sample_request();
    m.max_msg_size = 100;  // not a multiple of 8
    BOOST_TEST(!check_probe_request(m).ok());
    m = sample_request();
    m.ops = 0;
    BOOST_TEST(!check_probe_request(m).ok());
    m = sample_request();
    m.buf_len = 1024;  // smaller than 4 slots of 1 MiB for WRITE
    BOOST_TEST(!check_probe_request(m).ok());

    Message ph;
    ph.type = Type::phase;
    ph.ops = kOpRead;
    ph.max_msg_size = 4096;
    ph.count = 10;
    ph.seq_base = 1;
    ph.queue_depth = 4;
    BOOST_TEST(check_phase(ph, sample_request()).ok());
    ph.max_msg_size = 2 << 20;  // larger than negotiated
    BOOST_TEST(!check_phase(ph, sample_request()).ok());
    ph.max_msg_size = 4096;
    ph.ops = kOpWrite | kOpRead;
    BOOST_TEST(!check_phase(ph, sample_request()).ok());
    BOOST_TEST(buffer_bytes(kOpWrite, 64, 1) == 256u);
    BOOST_TEST(buffer_bytes(kOpRead, 64, 8) == 512u);
    BOOST_TEST(buffer_bytes(kOpSend, 64, 1) == 256u);
    BOOST_TEST(buffer_bytes(kOpSend | kOpRead, 64, 8) == 512u);
    BOOST_TEST(buffer_bytes(kOpSend | kOpRead, 64, 2) == 256u);
}

BOOST_AUTO_TEST_SUITE_END()  // test_oob_protocol
