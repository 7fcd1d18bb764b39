// Recordings (store/sample_json): samples survive a write/read round trip exactly, and every bad
// line is reported with the file, the line and the field at fault.
#include <boost/test/unit_test.hpp>

#include <cstdint>
#include <limits>
#include <sstream>
#include <string>

#include "core/inventory/inventory.h"
#include "core/recording/sample_json.h"
#include "make_sample.h"

BOOST_AUTO_TEST_SUITE(test_store_sample_json)

namespace {

using rh::Sample;
using rh::SampleKind;

constexpr std::uint64_t kMax64 = std::numeric_limits<std::uint64_t>::max();

/// The sample as `rocehealth record` writes it and `diagnose --replay` reads it back: through
/// text, not just through a JSON object.
Sample through_text(const Sample& s) {
    std::stringstream io;
    rh::write_sample(io, s);
    auto rec = rh::read_samples(io, "roundtrip.jsonl");
    BOOST_REQUIRE_MESSAGE(rec.ok(), (rec.ok() ? "" : rec.error().message()));
    BOOST_REQUIRE_EQUAL(rec->samples.size(), 1u);
    BOOST_TEST(rec->notes.empty());
    return rec->samples.front();
}

/// An inventory sample's facts as the recording writes them ("" when it has none).
std::string facts_text(const Sample& s) {
    return s.inventory
               ? rh::snapshot_json_text(*s.inventory, -1, rh::InventoryJson::without_counters)
               : std::string();
}

void require_same(const Sample& a, const Sample& b) {
    BOOST_TEST(a.t_s == b.t_s);
    BOOST_TEST(a.wall_ms == b.wall_ms);
    BOOST_TEST(a.host == b.host);
    BOOST_TEST(a.series == b.series);
    BOOST_TEST((a.labels == b.labels));
    BOOST_TEST(rh::to_string(a.kind) == rh::to_string(b.kind));
    BOOST_TEST(a.unit == b.unit);
    BOOST_TEST((a.count == b.count));
    BOOST_TEST((a.value == b.value));
    BOOST_TEST(facts_text(a) == facts_text(b));
    BOOST_TEST(a.error == b.error);
    BOOST_TEST(a.source == b.source);
    BOOST_TEST(a.raw == b.raw);
    BOOST_TEST(a.width_bits == b.width_bits);
    BOOST_TEST(a.saturates == b.saturates);
}

/// A valid counter line as a JSON object, to be broken one field at a time.
nlohmann::json good_line() {
    return nlohmann::json::parse(
        R"({"schema":1,"t_s":10.5,"wall_ms":0,"host":"gpu01","kind":"counter",
            "series":"rnr_nak_received","labels":{"device":"mlx5_0","port":"1"},
            "unit":"packets","value":7})");
}

/// The error message of parsing `j`; fails the test when it parses.
std::string parse_error(const nlohmann::json& j) {
    const auto s = rh::sample_from_json(j);
    BOOST_REQUIRE_MESSAGE(!s.ok(), "expected an error for " + j.dump());
    return s.error().message();
}

}  // namespace

BOOST_AUTO_TEST_CASE(counter_near_2_pow_64_is_exact) {
    // A double holds 53 bits: 2^64-1 and 2^64-2 would both print as 1.8446744073709552e19.
    for (const std::uint64_t v : {kMax64, kMax64 - 1, kMax64 - 1000, std::uint64_t{1} << 63}) {
        Sample s =
            rh::test::counter("gpu07", "port_rcv_data_bytes", {{"device", "mlx5_0"}}, 8123.004, v);
        s.wall_ms = 1795939200004;
        const Sample back = through_text(s);
        BOOST_TEST_CONTEXT("value " << v) {
            BOOST_TEST(back.count.has_value());
            BOOST_TEST(back.count.value_or(0) == v);
            require_same(s, back);
        }
    }
}

BOOST_AUTO_TEST_CASE(null_counter_keeps_error_width_and_saturation) {
    Sample s = rh::test::counter("gpu01", "symbol_errors", {{"port", "1"}}, 5.25, std::nullopt, 16);
    s.saturates = true;
    BOOST_REQUIRE(!s.error.empty());
    const Sample back = through_text(s);
    BOOST_TEST(!back.count.has_value());  // missing, not 0
    BOOST_TEST(back.error == s.error);
    BOOST_TEST(back.width_bits == 16u);
    BOOST_TEST(back.saturates);
    require_same(s, back);
    // The line says null explicitly (a reader in another language sees "missing", not 0).
    BOOST_TEST(rh::to_json_line(s).at("value").is_null());
}

BOOST_AUTO_TEST_CASE(counter_32_bit_width_round_trips) {
    const Sample s = rh::test::counter("gpu01", "out_of_sequence", {}, 1.0, 4294967295u, 32);
    const Sample back = through_text(s);
    BOOST_TEST(back.width_bits == 32u);
    BOOST_TEST(!back.saturates);
    require_same(s, back);
}

BOOST_AUTO_TEST_CASE(gauges_round_trip_with_and_without_value) {
    Sample up = rh::test::gauge("gpu01", "probe_latency_us",
                                {{"peer", "10.0.0.2"}, {"quantile", "p99"}}, 42.125, 3.75);
    up.unit = "us";
    require_same(up, through_text(up));
    const Sample missing = rh::test::gauge("gpu01", "port_state_code", {}, 43.0, std::nullopt);
    const Sample back = through_text(missing);
    BOOST_TEST(!back.value.has_value());
    BOOST_TEST(back.error == missing.error);
    require_same(missing, back);
}

BOOST_AUTO_TEST_CASE(inventory_round_trips_as_object) {
    Sample s;
    s.t_s = 3;
    s.host = "gpu01";
    s.series = "inventory";
    s.kind = SampleKind::inventory;
    rh::Snapshot snap;
    snap.host = "gpu01";
    snap.sysfs_root = "/sys";
    rh::Device d;
    d.name = "mlx5_0";
    d.ports.emplace_back().number = 1;
    d.ports.back().state = "ACTIVE";
    snap.devices.push_back(d);
    s.inventory = std::make_shared<const rh::Snapshot>(snap);
    const auto line = rh::to_json_line(s);
    BOOST_TEST(line.at("value").at("devices").at(0).at("name") == "mlx5_0");
    const Sample back = through_text(s);
    BOOST_REQUIRE(back.inventory);  // decoded at the edge: the store keeps the typed facts
    BOOST_REQUIRE_EQUAL(back.inventory->devices.size(), 1u);
    BOOST_TEST(back.inventory->devices[0].name == "mlx5_0");
    BOOST_TEST(back.inventory->devices[0].ports.at(0).state == "ACTIVE");
    BOOST_TEST(back.inventory->sysfs_root == "/sys");
    require_same(s, back);
}

// Facts that do not decode do not cost the recording: the sample is read without them and its
// error names the field (the inventory checks report it for the host).
BOOST_AUTO_TEST_CASE(inventory_that_does_not_decode_keeps_the_error) {
    nlohmann::json j = {{"schema", rh::kSampleSchema},
                        {"t_s", 1.0},
                        {"host", "gpu01"},
                        {"kind", "inventory"},
                        {"series", "inventory"},
                        {"value", {{"devices", "mlx5_0"}}}};
    const auto s = rh::sample_from_json(j);
    BOOST_REQUIRE(s.ok());
    BOOST_TEST(!s->inventory);
    BOOST_TEST(s->error.find("devices") != std::string::npos, s->error);
}

BOOST_AUTO_TEST_CASE(errors_name_the_field) {
    auto no_host = good_line();
    no_host.erase("host");
    const std::string e1 = parse_error(no_host);
    BOOST_TEST(e1.find("field \"host\"") != std::string::npos, e1);
    BOOST_TEST(e1.find("missing") != std::string::npos, e1);

    auto negative = good_line();
    negative["value"] = -5;
    const std::string e2 = parse_error(negative);
    BOOST_TEST(e2.find("field \"value\"") != std::string::npos, e2);
    BOOST_TEST(e2.find("-5") != std::string::npos, e2);

    auto fractional = good_line();
    fractional["value"] = 1.5;
    BOOST_TEST(parse_error(fractional).find("field \"value\"") != std::string::npos);

    auto schema2 = good_line();
    schema2["schema"] = 2;
    const std::string e3 = parse_error(schema2);
    BOOST_TEST(e3.find("field \"schema\"") != std::string::npos, e3);
    BOOST_TEST(e3.find("2") != std::string::npos, e3);

    // 2^32 + 1 is not schema 1 (it was, truncated to an int).
    auto wrapped = good_line();
    wrapped["schema"] = 4294967297ull;
    BOOST_TEST(parse_error(wrapped).find("unsupported version 4294967297") != std::string::npos);

    auto no_schema = good_line();
    no_schema.erase("schema");
    BOOST_TEST(parse_error(no_schema).find("field \"schema\"") != std::string::npos);

    auto kind = good_line();
    kind["kind"] = "histogram";
    const std::string e4 = parse_error(kind);
    BOOST_TEST(e4.find("field \"kind\"") != std::string::npos, e4);
    BOOST_TEST(e4.find("histogram") != std::string::npos, e4);

    auto no_value = good_line();
    no_value.erase("value");
    BOOST_TEST(parse_error(no_value).find("field \"value\"") != std::string::npos);

    auto label = good_line();
    label["labels"]["priority"] = 3;
    BOOST_TEST(parse_error(label).find("field \"labels.priority\"") != std::string::npos);
}

BOOST_AUTO_TEST_CASE(width_bits_outside_1_to_64_is_rejected) {
    // 2^32 + 32 must not be read as 32 (a truncating conversion would accept it).
    for (const std::uint64_t w :
         {std::uint64_t{0}, std::uint64_t{65}, (std::uint64_t{1} << 32) + 32}) {
        auto j = good_line();
        j["width_bits"] = w;
        BOOST_TEST_CONTEXT("width_bits " << w) {
            BOOST_TEST(parse_error(j).find("field \"width_bits\"") != std::string::npos);
        }
    }
    auto j = good_line();
    j["width_bits"] = 32;
    const auto s = rh::sample_from_json(j);
    BOOST_REQUIRE_MESSAGE(s.ok(), (s.ok() ? "" : s.error().message()));
    BOOST_TEST(s->width_bits == 32u);
}

BOOST_AUTO_TEST_CASE(integers_built_in_code_are_accepted) {
    // JSON built in code holds 7 and 32 as signed integers, parsed text as unsigned: both are
    // whole numbers >= 0 (a message "expected 1..64, got 32" would be nonsense).
    const nlohmann::json j = {{"schema", 1},
                              {"t_s", 1.0},
                              {"host", "gpu01"},
                              {"kind", "counter"},
                              {"series", "ack_timeouts"},
                              {"value", 7},
                              {"width_bits", 32}};
    BOOST_REQUIRE(j.at("value").is_number_integer() && !j.at("value").is_number_unsigned());
    const auto s = rh::sample_from_json(j);
    BOOST_REQUIRE_MESSAGE(s.ok(), (s.ok() ? "" : s.error().message()));
    BOOST_TEST(s->count.value_or(0) == 7u);
    BOOST_TEST(s->width_bits == 32u);
}

BOOST_AUTO_TEST_CASE(read_samples_names_file_and_line) {
    auto bad = good_line();
    bad.erase("host");
    // Line 2 blank (skipped but counted), line 3 bad.
    std::stringstream in(good_line().dump() + "\n\n" + bad.dump() + "\n" + good_line().dump() +
                         "\n");
    const auto rec = rh::read_samples(in, "gpu01.jsonl");
    BOOST_REQUIRE(!rec.ok());
    const std::string m = rec.error().message();
    BOOST_TEST(m.find("gpu01.jsonl:3: field \"host\": missing") != std::string::npos, m);
}

BOOST_AUTO_TEST_CASE(truncated_last_line_is_skipped_with_a_note) {
    const std::string full = good_line().dump();
    std::stringstream in(full + "\n" + full + "\n" + full.substr(0, full.size() / 2));
    const auto rec = rh::read_samples(in, "gpu01.jsonl");
    BOOST_REQUIRE_MESSAGE(rec.ok(), (rec.ok() ? "" : rec.error().message()));
    BOOST_TEST(rec->samples.size() == 2u);
    BOOST_REQUIRE_EQUAL(rec->notes.size(), 1u);
    BOOST_TEST(rec->notes[0].find("gpu01.jsonl:3:") != std::string::npos, rec->notes[0]);
    BOOST_TEST(rec->notes[0].find("truncated") != std::string::npos, rec->notes[0]);
}

BOOST_AUTO_TEST_CASE(complete_last_line_without_newline_is_kept) {
    const std::string full = good_line().dump();
    std::stringstream in(full + "\n" + full);
    const auto rec = rh::read_samples(in, "gpu01.jsonl");
    BOOST_REQUIRE(rec.ok());
    BOOST_TEST(rec->samples.size() == 2u);
    BOOST_TEST(rec->notes.empty());
}

BOOST_AUTO_TEST_CASE(bad_line_in_the_middle_is_an_error) {
    const std::string full = good_line().dump();
    const std::string cut = full.substr(0, full.size() / 2);
    // The same truncated text, but followed by a newline and more lines: not a killed recorder.
    std::stringstream in(full + "\n" + cut + "\n" + full + "\n");
    const auto rec = rh::read_samples(in, "gpu01.jsonl");
    BOOST_REQUIRE(!rec.ok());
    BOOST_TEST(rec.error().message().find("gpu01.jsonl:2:") != std::string::npos,
               rec.error().message());
    // A truncated last line that still ends with a newline was written whole: also an error.
    std::stringstream in2(full + "\n" + cut + "\n");
    BOOST_TEST(!rh::read_samples(in2, "gpu01.jsonl").ok());
}

BOOST_AUTO_TEST_CASE(unterminated_last_line_that_is_json_but_not_a_sample_is_an_error) {
    // Valid JSON is not a truncation: a wrong field there is still reported.
    auto bad = good_line();
    bad["kind"] = "histogram";
    std::stringstream in(good_line().dump() + "\n" + bad.dump());
    const auto rec = rh::read_samples(in, "gpu01.jsonl");
    BOOST_REQUIRE(!rec.ok());
    BOOST_TEST(rec.error().message().find("gpu01.jsonl:2: field \"kind\"") != std::string::npos,
               rec.error().message());
}

BOOST_AUTO_TEST_SUITE_END()  // test_store_sample_json
