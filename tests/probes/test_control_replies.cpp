// The responder's control replies (probes/wire/control_replies.h): each is written by its struct's
// to_json and read back whole by the strict reader; a reply with a field missing, renamed or of
// another type is refused with an error naming the responder and the field (where the
// acceptance runner's `.value(key, default)` reads showed 0 or ""); a reply in a frame of another
// protocol version is refused by name before it is read. Also the one probe-size limit (24 B,
// probes/wire/probe_limits.h) in the requests a responder reads.
#include <boost/test/unit_test.hpp>

#include <variant>

#include <thread>

#include "probes/responder/control_fault.h"
#include "probes/responder/control_inventory.h"
#include "probes/responder/control_probe.h"
#include "probes/wire/incast_messages.h"
#include "probes/wire/oob_protocol.h"
#include "tests/probes/control_reply_examples.h"
#include "tests/support/loopback_listener.h"

BOOST_AUTO_TEST_SUITE(test_control_replies)

using nlohmann::json;
using namespace rh;
namespace ex = rh::examples;

namespace {

const std::string kPeer = "responder at g2:18520";

template <typename T>
using Parse = Result<T> (*)(const json&, const std::string&);

/// The error reading `j` with `parse`, "" when it is taken.
template <typename T>
std::string error_of(const json& j, Parse<T> parse) {
    auto r = parse(j, kPeer);
    return r ? std::string() : r.error().message();
}

bool has(const std::string& text, const std::string& part) {
    return text.find(part) != std::string::npos;
}

/// Every top-level field of `good` (but cmd), erased, then set to a value of another type: each
/// refused, naming the peer, the reply and the field.
template <typename T>
void every_field_is_required(const json& good, Parse<T> parse, const std::string& cmd) {
    BOOST_REQUIRE(error_of(good, parse).empty());
    for (const auto& [key, value] : good.items()) {
        if (key == "cmd") continue;
        json j = good;
        j.erase(key);
        const std::string missing = error_of(j, parse);
        BOOST_TEST_CONTEXT(cmd << " without " << key) {
            // "KEY: missing (expected a string)", "KEY: expected a number, got nothing".
            BOOST_TEST(has(missing, "read " + cmd + " from " + kPeer + ": " + key + ": "), missing);
            BOOST_TEST((has(missing, "missing") || has(missing, "got nothing")), missing);
        }
        j = good;
        j[key] = value.is_string() ? json(7) : json("7");
        const std::string mistyped = error_of(j, parse);
        BOOST_TEST_CONTEXT(cmd << " with " << key << " of another type") {
            BOOST_TEST(has(mistyped, kPeer), mistyped);
            BOOST_TEST(has(mistyped, key + ": expected"), mistyped);
        }
    }
}

}  // namespace

BOOST_AUTO_TEST_CASE(inventory_reply_round_trips) {
    const wire::InventoryReply m = ex::inventory_reply();
    const json j = wire::to_json(m);
    BOOST_TEST(j["cmd"] == "inventory_reply");
    auto r = wire::parse_inventory_reply(j, kPeer);
    BOOST_REQUIRE_MESSAGE(r.ok(), (r ? std::string() : r.error().message()));
    BOOST_TEST(r->hostname == "gpu01");
    BOOST_TEST(r->kernel == "6.8.0-49-generic");
    BOOST_TEST(r->memlock_limit_bytes.value_or(0) == (8ull << 20));
    BOOST_TEST(r->port == 1u);
    BOOST_TEST(r->gid_index == 3u);
    BOOST_TEST(r->samples.size() == 1u);
    BOOST_TEST(wire::to_json(*r) == j);
    // Unlimited memlock is null on the wire, and reads back as nullopt.
    wire::InventoryReply u = m;
    u.memlock_unlimited = true;
    u.memlock_limit_bytes.reset();
    BOOST_TEST(wire::to_json(u)["memlock_limit_bytes"].is_null());
    auto back = wire::parse_inventory_reply(wire::to_json(u), kPeer);
    BOOST_REQUIRE(back);
    BOOST_TEST(!back->memlock_limit_bytes);
    BOOST_TEST(back->memlock_unlimited);
}

BOOST_AUTO_TEST_CASE(inventory_reply_fields_are_required) {
    every_field_is_required(wire::to_json(ex::inventory_reply()), wire::parse_inventory_reply,
                            "inventory_reply");
    // A renamed field (a responder of another build) is named, not read as "".
    json j = wire::to_json(ex::inventory_reply());
    j["kernel_release"] = j["kernel"];
    j.erase("kernel");
    BOOST_TEST(error_of(j, wire::parse_inventory_reply) ==
               "read inventory_reply from responder at g2:18520: kernel: missing (expected a "
               "string)");
    j = wire::to_json(ex::inventory_reply());
    j["port"] = 300u;  // on the wire a whole number >= 0 is unsigned
    BOOST_TEST(has(error_of(j, wire::parse_inventory_reply),
                   "port: expected a whole number from 0 to 255, got 300"));
    j = wire::to_json(ex::inventory_reply());
    j["samples"].push_back("a line");
    BOOST_TEST(has(error_of(j, wire::parse_inventory_reply), "samples[1]: expected an object"));
    // Every problem at once, one per line.
    j = wire::to_json(ex::inventory_reply());
    j.erase("device");
    j.erase("version");
    const std::string both = error_of(j, wire::parse_inventory_reply);
    BOOST_TEST(has(both, "version: missing"));
    BOOST_TEST(has(both, "device: missing"));
}

BOOST_AUTO_TEST_CASE(probe_reply_round_trips) {
    const json j = wire::to_json(ex::probe_reply());
    auto r = wire::parse_probe_reply(j, kPeer);
    BOOST_REQUIRE_MESSAGE(r.ok(), (r ? std::string() : r.error().message()));
    BOOST_REQUIRE(r->report);
    BOOST_TEST(r->report->remote_hostname == "gpu02");
    BOOST_TEST(r->report->path_mtu_bytes == 4096u);
    BOOST_REQUIRE(r->report->results.size() == 3u);
    const LatencyStats& w = r->report->results[0];
    BOOST_TEST(w.measured());
    BOOST_TEST(w.iterations == 1000u);
    BOOST_TEST(w.p99_us > 1.8);
    BOOST_TEST(!w.cdf.empty());
    BOOST_TEST(r->report->results[1].error_cause == "IBV_WC_RETRY_EXC_ERR");
    BOOST_TEST(r->report->results[1].iterations == 12u);  // iterations_completed
    BOOST_TEST(r->report->results[2].skipped == "not run: read 64 B failed before it");
    BOOST_TEST(!r->report->ok());
    BOOST_TEST(r->start_wall_ms == 1764892800000);
    BOOST_TEST(wire::to_json(*r) == j);
    // A probe that could not run: {ok: false, error}.
    const json n = wire::to_json(ex::probe_reply_not_run());
    BOOST_TEST(n["report"] == (json{{"ok", false}, {"error", ex::probe_reply_not_run().error}}));
    auto nr = wire::parse_probe_reply(n, kPeer);
    BOOST_REQUIRE(nr);
    BOOST_TEST(!nr->report);
    BOOST_TEST(has(nr->error, "Connection refused"));
}

BOOST_AUTO_TEST_CASE(probe_reply_fields_are_required) {
    every_field_is_required(wire::to_json(ex::probe_reply()), wire::parse_probe_reply,
                            "probe_reply");
    const json good = wire::to_json(ex::probe_reply());
    // Inside the report: a measured phase's figure, a renamed one, a nested object's field.
    json j = good;
    j["report"]["results"][0]["p99_us"] = "2.1";
    BOOST_TEST(has(error_of(j, wire::parse_probe_reply),
                   "report.results[0].p99_us: expected a number, got a string (\"2.1\")"));
    j = good;
    j["report"]["results"][0]["p99"] = j["report"]["results"][0]["p99_us"];
    j["report"]["results"][0].erase("p99_us");
    BOOST_TEST(has(error_of(j, wire::parse_probe_reply),
                   "report.results[0].p99_us: missing (expected a number or null)"));
    j = good;
    j["report"]["results"][0]["p99_us"] = nullptr;  // measured, yet no figure
    BOOST_TEST(has(error_of(j, wire::parse_probe_reply),
                   "report.results[0].p99_us: expected a number (the phase was measured)"));
    j = good;
    j["report"]["remote"].erase("hostname");
    BOOST_TEST(has(error_of(j, wire::parse_probe_reply), "report.remote.hostname: missing"));
    j = good;
    j["report"]["results"][0]["op"] = "atomic";
    BOOST_TEST(has(error_of(j, wire::parse_probe_reply), "report.results[0].op: expected one of"));
    j = good;
    j["report"]["checksum_errors"] = 3u;
    BOOST_TEST(has(error_of(j, wire::parse_probe_reply),
                   "report.checksum_errors: says 3, its results add up to 0"));
    j = good;
    j["report"]["results"][1].erase("error_cause");
    BOOST_TEST(has(error_of(j, wire::parse_probe_reply), "report.results[1].error_cause: missing"));
    // {ok: false} without why.
    j = wire::to_json(ex::probe_reply_not_run());
    j["report"].erase("error");
    BOOST_TEST(has(error_of(j, wire::parse_probe_reply), "report.error: missing"));
}

BOOST_AUTO_TEST_CASE(fault_reply_round_trips) {
    const json j = wire::to_json(ex::fault_reply());
    auto r = wire::parse_fault_reply(j, kPeer);
    BOOST_REQUIRE_MESSAGE(r.ok(), (r ? std::string() : r.error().message()));
    BOOST_TEST(r->netdev == "ens1f0np0");
    BOOST_TEST(*r->link_recovery_s == 2.1);
    BOOST_TEST(r->traffic_attempts == 3u);
    BOOST_TEST(r->saved_routes == 2u);
    BOOST_TEST(r->restored.size() == 1u);
    BOOST_TEST(wire::to_json(*r) == j);
    // Not back within the timeout: null, read as nullopt (not 0 s).
    wire::FaultReply late = ex::fault_reply();
    late.traffic_recovery_s.reset();
    BOOST_TEST(wire::to_json(late)["traffic_recovery_s"].is_null());
    auto back = wire::parse_fault_reply(wire::to_json(late), kPeer);
    BOOST_REQUIRE(back);
    BOOST_TEST(!back->traffic_recovery_s);
}

BOOST_AUTO_TEST_CASE(fault_reply_fields_are_required) {
    every_field_is_required(wire::to_json(ex::fault_reply()), wire::parse_fault_reply,
                            "fault_reply");
    json j = wire::to_json(ex::fault_reply());
    j["saved"].erase("routes");
    BOOST_TEST(has(error_of(j, wire::parse_fault_reply), "saved.routes: expected a whole number"));
    j = wire::to_json(ex::fault_reply());
    j["setup_changes"] = {"GID 3 moved", 4};
    BOOST_TEST(has(error_of(j, wire::parse_fault_reply), "setup_changes[1]: expected a string"));
}

BOOST_AUTO_TEST_CASE(rkey_ready_round_trips_and_names_fields) {
    const json j = wire::to_json(ex::rkey_ready());
    BOOST_TEST(j["gid"] == "00000000000000000000ffff0a63000c");
    auto r = wire::parse_rkey_ready(j, kPeer);
    BOOST_REQUIRE_MESSAGE(r.ok(), (r ? std::string() : r.error().message()));
    BOOST_TEST(r->rkey == 0x2001u);
    BOOST_TEST(r->addr == 0x7f3a1c000000ull);
    BOOST_TEST(wire::to_json(*r) == j);
    for (const char* key : {"qpn", "psn", "gid", "active_mtu", "rkey", "addr", "size_bytes"}) {
        json k = j;
        k.erase(key);
        const std::string e = error_of(k, wire::parse_rkey_ready);
        BOOST_TEST(has(e, "rkey_ready from " + kPeer), e);
        BOOST_TEST(has(e, std::string("\"") + key + "\": missing"), e);
    }
    json k = j;
    k["qpn"] = 1u << 24;
    BOOST_TEST(has(error_of(k, wire::parse_rkey_ready), "\"qpn\""));
}

BOOST_AUTO_TEST_CASE(sample_replies_round_trip_and_name_fields) {
    for (const auto& m : ex::sample_replies()) {
        const json j = std::visit([](const auto& x) { return wire::to_json(x); }, m);
        auto r = wire::parse_sample_reply(j, kPeer);
        BOOST_REQUIRE_MESSAGE(r.ok(), (r ? std::string() : r.error().message()));
        BOOST_TEST(r->index() == m.index());
        BOOST_TEST(std::visit([](const auto& x) { return wire::to_json(x); }, *r) == j);
        for (const auto& [key, value] : j.items()) {
            if (key == "cmd") continue;
            json k = j;
            k.erase(key);
            BOOST_TEST(has(error_of(k, wire::parse_sample_reply), kPeer + ": " + key + ": "),
                       error_of(k, wire::parse_sample_reply));
        }
    }
    const auto pass = std::get<wire::SamplePass>(ex::sample_replies()[1]);
    BOOST_TEST(pass.part == 0u);
    // The frame the sampling link used to take with a throwing ["cmd"] read: refused by name.
    BOOST_TEST(has(error_of(json{{"samples", json::array()}}, wire::parse_sample_reply),
                   "read sample reply from responder at g2:18520: cmd: expected one of "
                   "sample_started, sample_pass, sample_end, got nothing"));
    BOOST_TEST(has(error_of(json::array(), wire::parse_sample_reply), "expected an object"));
}

BOOST_AUTO_TEST_CASE(a_reply_from_another_version_is_refused_by_name) {
    auto f = oob::encode_json(wire::to_json(ex::inventory_reply()));
    BOOST_REQUIRE(f);
    BOOST_TEST(oob::decode_json(*f).ok());
    for (std::uint16_t v :
         {std::uint16_t(oob::kJsonVersion - 1), std::uint16_t(oob::kJsonVersion + 1)}) {
        auto g = *f;
        g[4] = static_cast<std::byte>(v >> 8);
        g[5] = static_cast<std::byte>(v & 0xff);
        auto r = oob::decode_json(g);
        BOOST_REQUIRE(!r.ok());
        BOOST_TEST(has(r.error().message(), "peer speaks protocol version " + std::to_string(v) +
                                                " in a json frame, this build speaks " +
                                                std::to_string(oob::kJsonVersion)),
                   r.error().message());
    }
}

// Issue 30 §4: the probe-size minimum is the slot's 24 B (probes/wire/probe_limits.h) in every
// request a responder reads; 16 B used to pass here and fail mid-run in the probe session.
BOOST_AUTO_TEST_CASE(sixteen_byte_messages_are_refused_up_front) {
    static_assert(limits::kMinMessageBytes == 24);
    BOOST_TEST(!limits::valid_message_size(16));
    BOOST_TEST(limits::valid_message_size(24));
    BOOST_TEST(!limits::valid_message_size(28));
    BOOST_TEST(limits::valid_message_size(16u << 20));
    BOOST_TEST(!limits::valid_message_size((16u << 20) + 8));
    json probe = json::parse(R"({"cmd": "probe", "peer": "10.0.0.2:18520", "ops": ["write"],
        "sizes": [16], "iterations": 50, "warmup": 5, "timeout_ms": 5000})");
    auto r = parse_probe_request(probe);
    BOOST_REQUIRE(!r);
    BOOST_TEST(has(r.error().message(),
                   "sizes\": expected a multiple of 8 from 24 to 16777216 bytes, got 16"),
               r.error().message());
    probe["sizes"] = {24u};
    BOOST_TEST(parse_probe_request(probe).ok());
    incast::Prepare p;
    p.receiver = "10.0.0.2";
    p.size_bytes = 16;
    auto pr = incast::parse_prepare(incast::to_json(p));
    BOOST_REQUIRE(!pr);
    BOOST_TEST(has(pr.error().message(), "size_bytes"));
    p.size_bytes = 28;  // in range, not a multiple of 8: the slot cannot hold it
    pr = incast::parse_prepare(incast::to_json(p));
    BOOST_REQUIRE(!pr);
    BOOST_TEST(has(pr.error().message(),
                   "size_bytes\": expected a multiple of 8 from 24 to 16777216 bytes, got 28"),
               pr.error().message());
    p.size_bytes = 24;
    BOOST_TEST(incast::parse_prepare(incast::to_json(p)).ok());
}

// Both ends over loopback TCP: the responder's own serve_inventory writes the reply, the client
// reads the frame and the typed reader takes it (what `accept`'s inventory stage does).
BOOST_AUTO_TEST_CASE(the_responders_inventory_reply_reads_on_the_client) {
    ResponderOptions opts;
    opts.inventory = [](const std::filesystem::path&, const std::string& device,
                        const std::string& host, const SampleTime&) {
        InventoryFacts f;
        f.snapshot = ex::inventory_reply().snapshot;
        f.samples.push_back(ex::sample_line("port_state_code", 4, "state"));
        f.samples.back()["host"] = host;
        f.samples.back()["labels"]["device"] = device;
        return f;
    };
    PortChoice where;
    where.device = "mlx5_0";
    where.port = 1;
    where.gid_index = 3;
    where.gid_text = "::ffff:10.99.0.11";
    where.gid_type = "RoCE v2";
    const std::atomic<bool> stop{false};
    ControlContext cx{opts, where, stop, "peer test", true};
    auto [c, s] = test::loopback_pair();
    const json request{{"cmd", "inventory"}, {"host", "g1"}};
    std::thread responder([&, &s = s] { serve_inventory(s, request, cx); });
    auto frame = tcp::recv_any(c, tcp::deadline_in(10000));
    responder.join();
    BOOST_REQUIRE(frame.ok());
    BOOST_REQUIRE(frame->json);
    auto r = wire::parse_inventory_reply(*frame->json, kPeer);
    BOOST_REQUIRE_MESSAGE(r.ok(), (r ? std::string() : r.error().message()));
    BOOST_TEST(r->device == "mlx5_0");
    BOOST_TEST(r->gid_index == 3u);
    BOOST_TEST(r->gid_type == "RoCE v2");
    BOOST_TEST(!r->hostname.empty());
    BOOST_TEST(!r->kernel.empty());
    BOOST_TEST((r->memlock_unlimited || r->memlock_limit_bytes.has_value()));
    BOOST_REQUIRE(r->samples.size() == 1u);
    BOOST_TEST(r->samples[0]["host"] == "g1");
}

BOOST_AUTO_TEST_SUITE_END()  // test_control_replies
