#include "probes/wire/control_replies.h"

#include "core/json/json_reader.h"
#include "probes/wire/control_fields.h"

namespace rh::wire {

namespace {

nlohmann::json nullable(const std::optional<double>& v) {
    return v ? nlohmann::json(*v) : nlohmann::json(nullptr);
}

/// Runs `read(JsonReader, T&)` over reply `j` (an object whose cmd is `cmd`) and returns the
/// struct, or every problem in one Error naming `peer`.
template <typename T, typename F>
Result<T> read_reply(const nlohmann::json& j, const std::string& cmd, const std::string& peer,
                     F&& read) {
    JsonErrors errors;
    errors.document = cmd + " from " + peer;
    const JsonReader in(j, "", errors);
    T m;
    if (in.expect_object()) {
        in.req_enum("cmd", {cmd});
        read(in, m);
    }
    if (!errors.empty()) return errors.error("read");
    return m;
}

/// One of the sample replies as the variant.
template <typename T>
Result<SampleReply> as_sample_reply(Result<T> r) {
    if (!r) return r.error();
    return SampleReply(std::move(*r));
}

}  // namespace

nlohmann::json to_json(const InventoryReply& m) {
    return {{"cmd", "inventory_reply"},
            {"hostname", m.hostname},
            {"version", m.version},
            {"kernel", m.kernel},
            {"memlock_limit_bytes", m.memlock_limit_bytes ? nlohmann::json(*m.memlock_limit_bytes)
                                                          : nlohmann::json(nullptr)},
            {"memlock_unlimited", m.memlock_unlimited},
            {"device", m.device},
            {"port", m.port},
            {"gid_index", m.gid_index},
            {"gid", m.gid},
            {"gid_type", m.gid_type},
            {"snapshot", m.snapshot},
            {"samples", m.samples}};
}

Result<InventoryReply> parse_inventory_reply(const nlohmann::json& j, const std::string& peer) {
    return read_reply<InventoryReply>(
        j, "inventory_reply", peer, [](const JsonReader& in, InventoryReply& m) {
            m.hostname = in.req_string("hostname");
            m.version = in.req_string("version");
            m.kernel = in.req_string("kernel");
            m.memlock_limit_bytes = ctl::nullable_uint(in, "memlock_limit_bytes");
            m.memlock_unlimited = in.req_bool("memlock_unlimited");
            m.device = in.req_string("device");
            m.port = static_cast<unsigned>(ctl::req_uint_max(in, "port", 255));
            m.gid_index = static_cast<unsigned>(ctl::req_uint_max(in, "gid_index", 65535));
            m.gid = in.req_string("gid");
            m.gid_type = in.req_string("gid_type");
            const JsonReader snap = in.member("snapshot");
            if (!snap.json().is_null() && snap.expect_object()) m.snapshot = snap.json();
            m.samples = ctl::req_objects(in, "samples");
        });
}

nlohmann::json to_json(const ProbeReply& m) {
    return {{"cmd", "probe_reply"},
            {"report",
             m.report ? to_json(*m.report) : nlohmann::json{{"ok", false}, {"error", m.error}}},
            {"start_wall_ms", m.start_wall_ms},
            {"end_wall_ms", m.end_wall_ms},
            {"samples", m.samples}};
}

Result<ProbeReply> parse_probe_reply(const nlohmann::json& j, const std::string& peer) {
    return read_reply<ProbeReply>(j, "probe_reply", peer, [](const JsonReader& in, ProbeReply& m) {
        const JsonReader report = in.member("report");
        // {ok: false, error} without results: the probe could not run.
        if (report.json().is_object() && !report.json().contains("results")) {
            if (report.req_bool("ok")) report.error_at("ok", "expected false (no results)");
            m.error = report.req_string("error");
            if (m.error.empty()) report.error_at("error", "expected why the probe could not run");
        } else if (!report.json().is_null()) {
            m.report = read_probe_report(report);
        }
        m.start_wall_ms = in.req_int("start_wall_ms");
        m.end_wall_ms = in.req_int("end_wall_ms");
        m.samples = ctl::req_objects(in, "samples");
    });
}

nlohmann::json to_json(const FaultReply& m) {
    return {{"cmd", "fault_reply"},
            {"device", m.device},
            {"port", m.port},
            {"netdev", m.netdev},
            {"down_ms", m.down_ms},
            {"down_at_s", m.down_at_s},
            {"up_at_s", m.up_at_s},
            {"port_left_active_s", nullable(m.port_left_active_s)},
            {"link_recovery_s", nullable(m.link_recovery_s)},
            {"traffic_recovery_s", nullable(m.traffic_recovery_s)},
            {"traffic_attempts", m.traffic_attempts},
            {"baseline_p50_us", nullable(m.baseline_p50_us)},
            {"recovered_p50_us", nullable(m.recovered_p50_us)},
            {"last_error", m.last_error},
            {"interrupted", m.interrupted},
            {"saved", {{"addresses", m.saved_addresses}, {"routes", m.saved_routes}}},
            {"restored", m.restored},
            {"setup_changes", m.setup_changes}};
}

Result<FaultReply> parse_fault_reply(const nlohmann::json& j, const std::string& peer) {
    return read_reply<FaultReply>(j, "fault_reply", peer, [](const JsonReader& in, FaultReply& m) {
        m.device = in.req_string("device");
        m.port = static_cast<unsigned>(ctl::req_uint_max(in, "port", 255));
        m.netdev = in.req_string("netdev");
        m.down_ms = in.req_uint("down_ms");
        m.down_at_s = in.req_number("down_at_s");
        m.up_at_s = in.req_number("up_at_s");
        m.port_left_active_s = ctl::nullable_number(in, "port_left_active_s");
        m.link_recovery_s = ctl::nullable_number(in, "link_recovery_s");
        m.traffic_recovery_s = ctl::nullable_number(in, "traffic_recovery_s");
        m.traffic_attempts = in.req_uint("traffic_attempts");
        m.baseline_p50_us = ctl::nullable_number(in, "baseline_p50_us");
        m.recovered_p50_us = ctl::nullable_number(in, "recovered_p50_us");
        m.last_error = in.req_string("last_error");
        m.interrupted = in.req_string("interrupted");
        const JsonReader saved = in.member("saved");
        if (!saved.json().is_null() && saved.expect_object()) {
            m.saved_addresses = saved.req_uint("addresses");
            m.saved_routes = saved.req_uint("routes");
        }
        m.restored = ctl::req_strings(in, "restored");
        m.setup_changes = ctl::req_strings(in, "setup_changes");
    });
}

nlohmann::json to_json(const RkeyReady& m) {
    return {{"cmd", "rkey_ready"},
            {"qpn", m.qpn},
            {"psn", m.psn},
            {"gid", ctl::gid_hex(m.gid)},
            {"active_mtu", m.active_mtu},
            {"rkey", m.rkey},
            {"addr", m.addr},
            {"size_bytes", m.size_bytes}};
}

Result<RkeyReady> parse_rkey_ready(const nlohmann::json& j, const std::string& peer) {
    constexpr std::uint32_t k24 = (1u << 24) - 1;  // QPNs and PSNs are 24 bits
    ctl::Fields f(j);
    RkeyReady m;
    m.qpn = f.u32("qpn", 1, k24);
    m.psn = f.u32("psn", 0, k24);
    m.gid = f.gid("gid");
    m.active_mtu = f.u32("active_mtu", 256, 4096);
    m.rkey = f.u32("rkey", 0, 0xffffffffu);
    m.addr = f.u64("addr", 0, ~0ull);
    m.size_bytes = f.u64("size_bytes", 1, 0xffffffffu);
    if (f.ok() && f.cmd() != "rkey_ready") f.invalid("cmd", "expected rkey_ready, got " + f.cmd());
    if (!f.ok()) return Error{"read", "rkey_ready from " + peer, 0, f.error().detail};
    return m;
}

nlohmann::json to_json(const SampleStarted& m) {
    return {{"cmd", "sample_started"}, {"wall_ms", m.wall_ms}};
}

nlohmann::json to_json(const SamplePass& m) {
    return {{"cmd", "sample_pass"},
            {"wall_ms", m.wall_ms},
            {"part", m.part},
            {"samples", m.samples},
            {"notes", m.notes}};
}

nlohmann::json to_json(const SampleEnd& m) {
    return {{"cmd", "sample_end"}, {"passes", m.passes}, {"reason", m.reason}};
}

Result<SampleReply> parse_sample_reply(const nlohmann::json& j, const std::string& peer) {
    const auto* cmd = j.is_object() && j.contains("cmd") && j["cmd"].is_string()
                          ? j["cmd"].get_ptr<const std::string*>()
                          : nullptr;
    if (cmd && *cmd == "sample_pass")
        return as_sample_reply(
            read_reply<SamplePass>(j, *cmd, peer, [](const JsonReader& in, SamplePass& m) {
                m.wall_ms = in.req_int("wall_ms");
                m.part = in.req_uint("part");
                m.samples = ctl::req_objects(in, "samples");
                m.notes = ctl::req_strings(in, "notes");
            }));
    if (cmd && *cmd == "sample_end")
        return as_sample_reply(
            read_reply<SampleEnd>(j, *cmd, peer, [](const JsonReader& in, SampleEnd& m) {
                m.passes = in.req_uint("passes");
                m.reason = in.req_string("reason");
            }));
    // sample_started, or anything else: named as not one of the three.
    JsonErrors errors;
    errors.document = "sample reply from " + peer;
    const JsonReader in(j, "", errors);
    SampleStarted m;
    if (in.expect_object() &&
        !in.req_enum("cmd", {"sample_started", "sample_pass", "sample_end"}).empty())
        m.wall_ms = in.req_int("wall_ms");
    if (!errors.empty()) return errors.error("read");
    return SampleReply(m);
}

}  // namespace rh::wire
