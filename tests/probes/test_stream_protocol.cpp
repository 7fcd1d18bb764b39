// Stream sessions (probes/wire/stream_protocol.h, stream_slots.h) and the incast role messages
// (probes/wire/incast_messages.h): round trips, the limits a peer's message is checked against, and
// what the receiver calls a bad slot.
#include <boost/test/unit_test.hpp>

#include <vector>

#include "probes/incast/incast_sampling.h"
#include "probes/wire/incast_messages.h"
#include "probes/wire/stream_protocol.h"
#include "probes/wire/stream_slots.h"

BOOST_AUTO_TEST_SUITE(test_stream_protocol)

using namespace rh;
using namespace rh::stream;

namespace {
Open sample_open() {
    Open m;
    m.op = Op::write;
    m.size_bytes = 65536;
    m.queue_depth = 16;
    m.seed = 0xdeadbeef;
    m.qps = {{0x123456, 0xabcdef, 0, 0}, {17, 0, 0, 0}};
    for (int i = 0; i < 16; ++i) m.gid[i] = static_cast<std::uint8_t>(i * 17);
    m.active_mtu = 4096;
    m.hostname = "g2";
    m.device = "rxe0";
    m.max_ms = 90000;
    return m;
}
std::string open_error(nlohmann::json j) {
    auto r = parse_open(j);
    BOOST_REQUIRE(!r.ok());
    return r.error().message();
}
}  // namespace

BOOST_AUTO_TEST_CASE(open_round_trip) {
    const Open m = sample_open();
    const auto j = to_json(m);
    BOOST_TEST(j["cmd"] == "stream_open");
    BOOST_TEST(j["gid"] == "00112233445566778899aabbccddeeff");
    auto d = parse_open(j);
    BOOST_REQUIRE_MESSAGE(d.ok(), (d.ok() ? "" : d.error().message()));
    BOOST_TEST((d->op == Op::write));
    BOOST_TEST(d->size_bytes == 65536u);
    BOOST_TEST(d->queue_depth == 16u);
    BOOST_TEST(d->seed == 0xdeadbeefu);
    BOOST_REQUIRE(d->qps.size() == 2u);
    BOOST_TEST(d->qps[0].qpn == 0x123456u);
    BOOST_TEST(d->qps[0].psn == 0xabcdefu);
    BOOST_TEST((d->gid == m.gid));
    BOOST_TEST(d->hostname == "g2");
    // verify_ppm: carried when given, else the default policy for the size.
    BOOST_TEST(d->verify_ppm == m.verify_ppm);
    auto k = to_json(m);
    k.erase("verify_ppm");
    BOOST_TEST(parse_open(k)->verify_ppm == default_verify_ppm(65536));
    BOOST_TEST(default_verify_ppm(65536) == 250000u);
    BOOST_TEST(default_verify_ppm(4096) == kPpm);
    k["verify_ppm"] = kPpm + 1;
    BOOST_TEST(open_error(k).find("verify_ppm") != std::string::npos);
}

BOOST_AUTO_TEST_CASE(open_limits_are_named) {
    auto j = to_json(sample_open());
    j["size_bytes"] = 100;  // not a multiple of 8
    BOOST_TEST(open_error(j).find("not a multiple of 8") != std::string::npos);
    j = to_json(sample_open());
    j["size_bytes"] = -1;
    BOOST_TEST(open_error(j).find("\"size_bytes\": expected a whole number from 24 to 16777216, "
                                  "got -1") != std::string::npos);
    j = to_json(sample_open());
    j["queue_depth"] = 65;
    BOOST_TEST(open_error(j).find("\"queue_depth\"") != std::string::npos);
    j = to_json(sample_open());
    j["qps"] = nlohmann::json::array();
    BOOST_TEST(open_error(j).find("\"qps\": expected an array of 1 to 16") != std::string::npos);
    j = to_json(sample_open());
    j["qps"][0]["qpn"] = 0x1000000;  // 25 bits
    BOOST_TEST(open_error(j).find("\"qpn\"") != std::string::npos);
    j = to_json(sample_open());
    j["active_mtu"] = 1500;
    BOOST_TEST(open_error(j).find("1500 is not an IB MTU") != std::string::npos);
    j = to_json(sample_open());
    j["op"] = "read";
    BOOST_TEST(open_error(j).find("'read' (expected write or send)") != std::string::npos);
    j = to_json(sample_open());
    j["gid"] = "xyz";
    BOOST_TEST(open_error(j).find("\"gid\": expected 32 hex digits") != std::string::npos);
    // 16 MiB x 3 x queue depth 2 = 96 MiB > the 64 MiB a responder registers per buffer.
    j = to_json(sample_open());
    j["size_bytes"] = 16 << 20;
    j["queue_depth"] = 2;
    BOOST_TEST(open_error(j).find("ring of 6 slots x 16777216 B exceeds 67108864 B") !=
               std::string::npos);
    // 16 QPs x 48 x 1 MiB = 768 MiB of rings for one sender: refused.
    j = to_json(sample_open());
    j["size_bytes"] = 1 << 20;
    j["qps"] = nlohmann::json::array();
    for (int i = 1; i <= 16; ++i) j["qps"].push_back({{"qpn", i}, {"psn", 0}});
    BOOST_TEST(open_error(j).find("16 QPs x ring of 50331648 B exceed 268435456 B per sender") !=
               std::string::npos);
    j = to_json(sample_open());
    j.erase("seed");
    BOOST_TEST(open_error(j).find("\"seed\": missing") != std::string::npos);
}

BOOST_AUTO_TEST_CASE(ring_keeps_every_slot_until_verified) {
    // The sender posts message n only after n - qd completed; completion n - qd used receive WQE
    // n - qd, posted only after message n - qd - recv_depth was verified. That message must be
    // the previous user of n's ring slot (or older) for every queue depth.
    for (unsigned qd = 1; qd <= limits::kMaxQueueDepth; ++qd) {
        const unsigned slots = ring_slots(qd), depth = recv_depth(qd);
        BOOST_TEST(depth >= qd);
        BOOST_TEST(slots == depth + qd);
        const std::uint64_t n = 1000;
        BOOST_TEST(n - qd - depth >= n - slots);
        BOOST_TEST((n % slots) == ((n - slots) % slots));
    }
    BOOST_TEST(ring_bytes(65536, 16) == 48u * 65536u);
}

BOOST_AUTO_TEST_CASE(results_round_trip) {
    Received r;
    QpReceived q;
    q.messages = 10;
    q.bytes = 9 * 4096;
    q.bad_slots = 1;
    q.verified_messages = 4;
    q.verified_bytes = 4 * 4096;
    q.bad = {{"payload_mismatch", 1}};
    q.errors = {{"IBV_WC_WR_FLUSH_ERR", 3}};
    q.first_wall_ms = 1000;
    q.last_wall_ms = 2000;
    r.qps = {q};
    r.note = "sender closed";
    auto d = parse_received(to_json(r), 1);
    BOOST_REQUIRE_MESSAGE(d.ok(), (d.ok() ? "" : d.error().message()));
    BOOST_TEST(d->qps[0].bad_slots == 1u);
    BOOST_TEST(d->qps[0].verified_messages == 4u);
    BOOST_TEST(d->qps[0].verified_bytes == 4u * 4096u);
    auto more = to_json(r);
    more["qps"][0]["verified_messages"] = 11;  // more verified than received
    BOOST_TEST(!parse_received(more, 1).ok());
    BOOST_TEST(d->qps[0].bad.at("payload_mismatch") == 1u);
    BOOST_TEST(d->qps[0].errors.at("IBV_WC_WR_FLUSH_ERR") == 3u);
    BOOST_TEST(d->note == "sender closed");
    BOOST_TEST(!parse_received(to_json(r), 2).ok());  // QP count must match the session's
    auto bad = to_json(r);
    bad["qps"][0]["errors"]["IBV_WC_X"] = -1;
    BOOST_TEST(!parse_received(bad, 1).ok());
    BOOST_TEST(parse_end(to_json(End{{5, 6}}), 2)->completed[1] == 6u);
    BOOST_TEST(!parse_end(to_json(End{{5}}), 2).ok());
    BOOST_TEST(error_text(error_message("no device")).value() == "no device");
    BOOST_TEST(!error_text(to_json(End{{1}})).has_value());
}

BOOST_AUTO_TEST_CASE(patterns_verify_and_name_bad_slots) {
    const std::size_t size = 256;
    const unsigned qd = 4;
    const Patterns tx(size, qd, 99), rx(size, qd, 99);
    std::vector<std::byte> slot(size);
    for (std::uint64_t n = 0; n < 10; ++n) {
        tx.fill(slot, static_cast<unsigned>(n % qd));
        tx.stamp(slot, n);
        BOOST_TEST((rx.check(slot, n, size) == Bad::none), "message " << n);
    }
    tx.fill(slot, 1);
    tx.stamp(slot, 5);
    BOOST_TEST((rx.check(slot, 5, size - 8) == Bad::wrong_length));
    BOOST_TEST((rx.check(slot, 9, size) == Bad::wrong_seq));  // same transmit slot, other seq
    auto flipped = slot;
    flipped[200] ^= std::byte{0x40};  // past the 64-byte prefix: only the full pass sees it
    BOOST_TEST((rx.check(flipped, 5, size) == Bad::payload_mismatch));
    BOOST_TEST((rx.check(flipped, 5, size, false) == Bad::none));
    flipped = slot;
    flipped[17] ^= std::byte{0x40};  // in the prefix: the trailer check sees it
    BOOST_TEST((rx.check(flipped, 5, size, false) == Bad::bad_trailer));
    flipped = slot;
    flipped[size - 16] ^= std::byte{1};  // the checksum field
    BOOST_TEST((rx.check(flipped, 5, size, false) == Bad::bad_trailer));
    // Another stream (seed) or another transmit slot's payload under this seq is not intact.
    const Patterns other(size, qd, 100);
    BOOST_TEST((other.check(slot, 5, size) != Bad::none));
    tx.fill(slot, 2);
    tx.stamp(slot, 5);  // slot 2's payload, but message 5 belongs to slot 1
    BOOST_TEST((rx.check(slot, 5, size) != Bad::none));
    BOOST_TEST(std::string(to_string(Bad::payload_mismatch)) == "payload_mismatch");
}

BOOST_AUTO_TEST_CASE(incast_messages_round_trip) {
    using namespace rh::incast;
    Prepare p{"abc", "g1:18520", Op::send, 4096, 2, 8, 5000};
    auto pp = parse_prepare(to_json(p));
    BOOST_REQUIRE(pp.ok());
    BOOST_TEST((pp->op == Op::send));
    BOOST_TEST(pp->qps == 2u);
    auto bad = to_json(p);
    bad["duration_ms"] = 0;
    BOOST_TEST(parse_prepare(bad).error().message().find("\"duration_ms\"") != std::string::npos);
    bad = to_json(p);
    bad["qps"] = 17;
    BOOST_TEST(!parse_prepare(bad).ok());

    Outcome o;
    o.scheduled_start_wall_ms = 1000;
    o.started_wall_ms = 1003;
    o.size_bytes = 4096;
    QpResult q;
    q.posted = 12;
    q.completed = 10;
    q.failed = 2;
    q.errors = {{"IBV_WC_RETRY_EXC_ERR", 1}, {"IBV_WC_WR_FLUSH_ERR", 1}};
    q.last_completion_wall_ms = 6000;
    o.qps = {q};
    o.receiver_ok = true;
    o.receiver.qps = {QpReceived{}};
    auto po = parse_outcome(to_json(o));
    BOOST_REQUIRE_MESSAGE(po.ok(), (po.ok() ? "" : po.error().message()));
    BOOST_TEST(po->qps[0].errors.at("IBV_WC_RETRY_EXC_ERR") == 1u);
    BOOST_TEST(po->receiver.qps.size() == 1u);
    o.receiver_ok = false;
    o.receiver_error = "timed out";
    auto po2 = parse_outcome(to_json(o));
    BOOST_REQUIRE(po2.ok());
    BOOST_TEST(!po2->receiver_ok);
    BOOST_TEST(po2->receiver_error == "timed out");

    Hello h;
    h.hostname = "g1";
    h.wall_ms = 123;
    h.port_rate = "2.5 Gb/sec (1X SDR)";
    h.sampler = true;
    auto ph = parse_hello(to_json(h));
    BOOST_REQUIRE(ph.ok());
    BOOST_TEST(ph->sampler);
    BOOST_TEST(ph->port_rate == "2.5 Gb/sec (1X SDR)");
}

BOOST_AUTO_TEST_CASE(sample_passes_are_chunked_below_the_frame_limit) {
    nlohmann::json samples = nlohmann::json::array();
    const std::string pad(1000, 'x');
    for (int i = 0; i < 2000; ++i) samples.push_back({{"series", "s"}, {"i", i}, {"raw", pad}});
    const auto frames = incast::pass_frames(samples, {"note"}, 42);
    BOOST_TEST(frames.size() >= 4u);  // ~2 MB of samples in <= 512 KiB frames
    std::size_t total = 0;
    for (std::size_t k = 0; k < frames.size(); ++k) {
        BOOST_TEST(frames[k]["part"] == k);
        BOOST_TEST(frames[k].dump().size() < 1u << 20);
        total += frames[k]["samples"].size();
    }
    BOOST_TEST(total == 2000u);
    BOOST_TEST(frames[0]["notes"].size() == 1u);  // notes once, with part 0
    BOOST_TEST(frames[1]["notes"].empty());
    BOOST_TEST(incast::pass_frames(nlohmann::json::array(), {}, 1).size() == 1u);
}

BOOST_AUTO_TEST_SUITE_END()  // test_stream_protocol
