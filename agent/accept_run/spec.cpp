#include "agent/accept_run/spec.h"

#include <algorithm>
#include <cstring>
#include <fstream>
#include <set>
#include <sstream>

#include "core/json/json_reader.h"
#include "core/json_file.h"
#include "probes/wire/oob_protocol.h"
#include "probes/wire/probe_limits.h"
#include "probes/wire/tcp.h"

namespace rh::accept {

namespace {

/// Optional fields with a default, read by the core reader (range errors: "expected a whole
/// number from 1 to 1024, got 0"; unknown members: "unknown field (expected one of ...)").
void unknown_members(const JsonReader& in, std::initializer_list<const char*> known) {
    in.refuse_unknown(known);
}

template <typename T>
T uint_in(const JsonReader& in, const char* key, std::uint64_t lo, std::uint64_t hi, T fallback) {
    const auto v = in.opt_int_in(key, static_cast<std::int64_t>(lo), static_cast<std::int64_t>(hi));
    return v ? static_cast<T>(*v) : fallback;
}

double number_in(const JsonReader& in, const char* key, double lo, double hi, double fallback) {
    return in.opt_number_in(key, lo, hi, "").value_or(fallback);
}

/// The one message-size rule (probes/wire/probe_limits.h): the responder and the probe session
/// refuse anything else, so the spec is refused up front rather than mid-run.
const std::string kSizeRule = "a message size: " + limits::message_size_rule();

void read_traffic(const JsonReader& in, TrafficSpec& t) {
    t.size_bytes = uint_in<std::uint64_t>(in, "size_bytes", limits::kMinMessageBytes,
                                          limits::kMaxMessageBytes, t.size_bytes);
    if (!limits::valid_message_size(t.size_bytes))
        in.error_at("size_bytes", "expected " + kSizeRule);
    t.duration_s = number_in(in, "duration_s", 0.1, 3600, t.duration_s);
    t.queue_depth = uint_in<unsigned>(in, "queue_depth", 1, 64, t.queue_depth);
    t.qps = uint_in<unsigned>(in, "qps", 1, 16, t.qps);
}

void read_latency(const JsonReader& in, LatencySpec& l) {
    unknown_members(in, {"ops", "sizes", "iterations", "warmup", "timeout_ms"});
    if (in.has("ops")) {
        l.ops = in.opt_string_list("ops");
        for (std::size_t i = 0; i < l.ops.size(); ++i)
            if (l.ops[i] != "write" && l.ops[i] != "read")
                in.error_at("ops", "expected \"write\" and/or \"read\", got \"" + l.ops[i] + "\"");
            else if (std::find(l.ops.begin(), l.ops.begin() + static_cast<long>(i), l.ops[i]) !=
                     l.ops.begin() + static_cast<long>(i))
                in.error_at("ops", "\"" + l.ops[i] + "\" given twice");
        if (l.ops.empty()) in.error_at("ops", "expected at least one op");
    }
    if (in.has("sizes")) {
        l.sizes.clear();
        in.each("sizes", false, [&](const JsonReader& e) {
            if (!e.json().is_number_unsigned() ||
                !limits::valid_message_size(e.json().get<std::uint64_t>()))
                e.error("expected " + kSizeRule + ", got " + e.json().dump());
            else if (std::find(l.sizes.begin(), l.sizes.end(), e.json().get<std::uint64_t>()) !=
                     l.sizes.end())
                e.error(e.json().dump() + " given twice");
            else
                l.sizes.push_back(e.json().get<std::uint64_t>());
        });
        if (in.json()["sizes"].is_array() && in.json()["sizes"].empty())
            in.error_at("sizes", "expected at least one size");
    }
    l.iterations = uint_in<unsigned>(in, "iterations", 1, 100000, l.iterations);
    l.warmup = uint_in<unsigned>(in, "warmup", 0, 10000, l.warmup);
    l.timeout_ms = uint_in<unsigned>(in, "timeout_ms", 1, 60000, l.timeout_ms);
}

void read_criteria(const JsonReader& in, Criteria& c) {
    unknown_members(in, {"p99_latency_us", "min_bandwidth_fraction", "min_incast_fraction",
                         "min_jain_index", "max_checksum_errors", "max_error_findings",
                         "max_link_recovery_s", "max_traffic_recovery_s"});
    if (in.has("p99_latency_us")) {
        const JsonReader m = in.member("p99_latency_us");
        if (!m.json().is_object()) {
            m.error("expected an object {\"SIZE_BYTES\": MICROSECONDS, ...}");
        } else {
            c.p99_latency_us.clear();
            for (const auto& [k, v] : m.json().items()) {
                std::uint64_t size = 0;
                const bool num =
                    !k.empty() && k.size() < 10 && std::all_of(k.begin(), k.end(), ::isdigit);
                if (num) size = std::stoull(k);
                if (!num || !limits::valid_message_size(size))
                    m.error_at(k, "the key must be " + kSizeRule);
                else if (!v.is_number() || v.get<double>() <= 0)
                    m.error_at(k, "expected a positive number of microseconds, got " + v.dump());
                else
                    c.p99_latency_us[size] = v.get<double>();
            }
        }
    }
    c.min_bandwidth_fraction =
        number_in(in, "min_bandwidth_fraction", 0, 1.5, c.min_bandwidth_fraction);
    c.min_incast_fraction = number_in(in, "min_incast_fraction", 0, 1.5, c.min_incast_fraction);
    c.min_jain_index = number_in(in, "min_jain_index", 0, 1, c.min_jain_index);
    c.max_checksum_errors =
        uint_in<std::uint64_t>(in, "max_checksum_errors", 0, 1u << 30, c.max_checksum_errors);
    c.max_error_findings =
        uint_in<std::uint64_t>(in, "max_error_findings", 0, 1u << 30, c.max_error_findings);
    c.max_link_recovery_s = number_in(in, "max_link_recovery_s", 0, 600, c.max_link_recovery_s);
    c.max_traffic_recovery_s =
        number_in(in, "max_traffic_recovery_s", 0, 600, c.max_traffic_recovery_s);
}

/// An optional member naming one of hosts[] ("" when missing).
std::string host_name_in(const JsonReader& in, const char* key,
                         const std::set<std::string>& names) {
    std::string v = in.opt_string(key);
    if (!v.empty() && !names.count(v))
        in.error_at(key, "\"" + v + "\" is not a host name in hosts[]");
    return v;
}

void read_fault(const JsonReader& in, FaultSpec& f, const std::set<std::string>& names) {
    unknown_members(in, {"host", "peer", "down_s", "recovery_timeout_s"});
    f.host = host_name_in(in, "host", names);
    f.peer = host_name_in(in, "peer", names);
    if (!f.host.empty() && f.host == f.peer)
        in.error_at("peer", "must differ from fault.host (traffic goes from the host to its peer)");
    f.down_s = number_in(in, "down_s", 0.1, 600, f.down_s);
    f.recovery_timeout_s = number_in(in, "recovery_timeout_s", 1, 600, f.recovery_timeout_s);
}

/// `stage_time_limit_s`: {STAGE_ID: SECONDS}, each 1..86400.
void read_time_limits(const JsonReader& in, std::map<StageId, double>& limits) {
    if (!in.json().is_object()) {
        in.error("expected an object {\"STAGE_ID\": SECONDS, ...}");
        return;
    }
    for (const auto& [k, v] : in.json().items()) {
        const auto id = stage_id_from(k);
        if (!id) {
            std::string all;
            for (StageId x : all_stage_ids()) all += (all.empty() ? "" : ", ") + to_string(x);
            in.error_at(k, "unknown stage (expected one of " + all + ")");
            continue;
        }
        if (!v.is_number() || !(v.get<double>() >= 1 && v.get<double>() <= 86400)) {
            in.error_at(k, "expected a number of seconds from 1 to 86400, got " + v.dump());
            continue;
        }
        limits[*id] = v.get<double>();
    }
}

}  // namespace

double Spec::default_time_limit_s(StageId id) const {
    const double n = static_cast<double>(hosts.size());
    switch (id) {
        case StageId::inventory:
            return 30 + 10 * n;
        case StageId::idle_latency:
            return 180 * n * (n - 1);
        case StageId::bandwidth:
            return (bandwidth.duration_s + 30) * n;
        case StageId::concurrency:
            return bandwidth.duration_s + 60;
        case StageId::incast:
            return incast.traffic.duration_s + 60;
        case StageId::fault:
            return 15 + fault.down_s + fault.recovery_timeout_s + 60;
        case StageId::rkey_revocation:
            return 30 + 10 * n;
    }
    return 600;
}

double Spec::stage_time_limit_s(StageId id) const {
    const auto it = time_limit_s.find(id);
    return it != time_limit_s.end() ? it->second : default_time_limit_s(id);
}

bool Spec::runs(StageId id) const {
    return std::find(stages.begin(), stages.end(), id) != stages.end();
}

std::string Spec::fault_host() const {
    if (!fault.host.empty() || hosts.empty()) return fault.host;
    return hosts.back().name;
}

std::string Spec::fault_peer() const {
    if (!fault.peer.empty()) return fault.peer;
    const std::string h = fault_host();
    for (const auto& x : hosts)
        if (x.name != h) return x.name;
    return "";
}

namespace {

/// One hosts[] entry into `s.hosts`: name defaults to the address without its port; names and
/// responders (address and port) must be unique.
void read_host(const JsonReader& h, Spec& s, std::set<std::string>& names) {
    if (!h.expect_object()) return;
    unknown_members(h, {"address", "name"});
    SpecHost host;
    host.address = h.req_string("address");
    if (h.has("address") && host.address.empty()) h.error_at("address", "empty");
    host.name = h.opt_string("name");
    if (host.name.empty()) {
        host.name = host.address;
        if (const auto c = host.name.rfind(':'); c != std::string::npos && host.name.find(':') == c)
            host.name.resize(c);  // HOST:PORT -> HOST (not for IPv6 text)
    }
    if (!host.name.empty() && !names.insert(host.name).second)
        h.error_at("name", "host \"" + host.name + "\" appears twice");
    // One responder under two names would measure a host against itself (loopback).
    const auto hp = tcp::parse_host_port(host.address, oob::kDefaultPort);
    if (!hp && !host.address.empty())
        h.error_at("address",
                   "expected HOST or HOST:PORT (port 1..65535), got \"" + host.address + "\"");
    if (hp)
        for (const auto& other : s.hosts)
            if (auto o = tcp::parse_host_port(other.address, oob::kDefaultPort);
                o && o->str() == hp->str())
                h.error_at("address", "\"" + host.address + "\" is the same responder as host \"" +
                                          other.name + "\"");
    s.hosts.push_back(host);
}

/// `stages`: known stage ids, each once (a repeat is dropped), at least one.
void read_stages(const JsonReader& in, Spec& s) {
    s.stages.clear();
    if (in.json()["stages"].is_array() && in.json()["stages"].empty())
        in.error_at("stages", "empty: expected at least one stage to run");
    for (const auto& name : in.opt_string_list("stages")) {
        const auto id = stage_id_from(name);
        if (!id) {
            std::string all;
            for (StageId x : all_stage_ids()) all += (all.empty() ? "" : ", ") + to_string(x);
            in.error_at("stages", "unknown stage \"" + name + "\" (expected " + all + ")");
        } else if (!s.runs(*id)) {
            s.stages.push_back(*id);
        }
    }
}

/// `incast`: receiver (a host name), senders (enough hosts for them) and the traffic.
void read_incast(const JsonReader& c, Spec& s, const std::set<std::string>& names) {
    unknown_members(c, {"receiver", "senders", "size_bytes", "duration_s", "queue_depth", "qps"});
    s.incast.receiver = host_name_in(c, "receiver", names);
    s.incast.senders = uint_in<unsigned>(c, "senders", 1, 1024, 0);
    read_traffic(c, s.incast.traffic);
    if (s.incast.senders != 0 && s.incast.senders + 1 > s.hosts.size())
        c.error_at("senders", std::to_string(s.incast.senders) + " senders need " +
                                  std::to_string(s.incast.senders + 1) + " hosts, the spec has " +
                                  std::to_string(s.hosts.size()));
}

/// The stage sections, criteria and limits, each read when present and an object.
void read_sections(const JsonReader& in, Spec& s, const std::set<std::string>& names) {
    if (in.has("latency")) {
        const JsonReader l = in.member("latency");
        if (l.expect_object()) read_latency(l, s.latency);
    }
    if (in.has("bandwidth")) {
        const JsonReader b = in.member("bandwidth");
        if (b.expect_object()) {
            unknown_members(b, {"size_bytes", "duration_s", "queue_depth", "qps"});
            read_traffic(b, s.bandwidth);
        }
    }
    if (in.has("incast")) {
        const JsonReader c = in.member("incast");
        if (c.expect_object()) read_incast(c, s, names);
    }
    if (in.has("fault")) {
        const JsonReader f = in.member("fault");
        if (f.expect_object()) read_fault(f, s.fault, names);
    }
    if (in.has("criteria")) {
        const JsonReader c = in.member("criteria");
        if (c.expect_object()) read_criteria(c, s.criteria);
    }
    if (in.has("stage_time_limit_s"))
        read_time_limits(in.member("stage_time_limit_s"), s.time_limit_s);
}

}  // namespace

ParsedSpec spec_from_json(const nlohmann::json& j) {
    JsonErrors errs;
    Spec s;
    const JsonReader in(j, "", errs);
    if (in.expect_object()) {
        unknown_members(in, {"name", "hosts", "stages", "latency", "bandwidth", "incast", "fault",
                             "criteria", "device", "gid_index", "stage_time_limit_s"});
        if (in.has("name")) s.name = in.opt_string("name");
        std::set<std::string> names;
        in.each("hosts", true, [&](const JsonReader& h) { read_host(h, s, names); });
        if (in.json().contains("hosts") && in.json()["hosts"].is_array() &&
            in.json()["hosts"].size() < 2)
            in.error_at("hosts", "expected at least 2 hosts (pairs are measured between hosts)");
        if (in.has("stages")) read_stages(in, s);
        read_sections(in, s, names);
        s.device = in.opt_string("device");
        if (in.has("gid_index")) s.gid_index = uint_in<unsigned>(in, "gid_index", 0, 255, 0);
    }
    ParsedSpec out;
    for (const auto& e : errs) out.errors.push_back(e.text());
    if (out.errors.empty()) out.spec = std::move(s);
    return out;
}

ParsedSpec spec_from_file(const std::string& path) {
    // Strict: a duplicate key (one would silently win) or 1e400 is an error naming its place.
    auto j = read_json_file(path, "read spec");
    if (!j) {
        ParsedSpec out;
        const Error& e = j.error();  // errno set: could not open or read; else where and what
        out.errors.push_back(path + ": " +
                             (e.err_no == 0      ? e.detail
                              : e.detail.empty() ? std::string(std::strerror(e.err_no))
                                                 : e.detail + ": " + std::strerror(e.err_no)));
        return out;
    }
    ParsedSpec out = spec_from_json(*j);
    for (auto& e : out.errors) e = path + ": " + e;
    return out;
}

nlohmann::json spec_to_json(const Spec& s) {
    auto traffic = [](const TrafficSpec& t) {
        return nlohmann::json{{"size_bytes", t.size_bytes},
                              {"duration_s", t.duration_s},
                              {"queue_depth", t.queue_depth},
                              {"qps", t.qps}};
    };
    nlohmann::json hosts = nlohmann::json::array(), stages = nlohmann::json::array(),
                   p99 = nlohmann::json::object();
    for (const auto& h : s.hosts) hosts.push_back({{"name", h.name}, {"address", h.address}});
    for (StageId id : s.stages) stages.push_back(to_string(id));
    for (const auto& [size, us] : s.criteria.p99_latency_us) p99[std::to_string(size)] = us;
    nlohmann::json incast = traffic(s.incast.traffic);
    incast["receiver"] =
        s.incast.receiver.empty() && !s.hosts.empty() ? s.hosts[0].name : s.incast.receiver;
    incast["senders"] =
        s.incast.senders != 0 ? s.incast.senders : (s.hosts.empty() ? 0 : s.hosts.size() - 1);
    nlohmann::json j{{"name", s.name},
                     {"hosts", hosts},
                     {"stages", stages},
                     {"latency",
                      {{"ops", s.latency.ops},
                       {"sizes", s.latency.sizes},
                       {"iterations", s.latency.iterations},
                       {"warmup", s.latency.warmup},
                       {"timeout_ms", s.latency.timeout_ms}}},
                     {"bandwidth", traffic(s.bandwidth)},
                     {"incast", incast},
                     {"fault",
                      {{"host", s.fault_host()},
                       {"peer", s.fault_peer()},
                       {"down_s", s.fault.down_s},
                       {"recovery_timeout_s", s.fault.recovery_timeout_s}}},
                     {"criteria",
                      {{"p99_latency_us", p99},
                       {"min_bandwidth_fraction", s.criteria.min_bandwidth_fraction},
                       {"min_incast_fraction", s.criteria.min_incast_fraction},
                       {"min_jain_index", s.criteria.min_jain_index},
                       {"max_checksum_errors", s.criteria.max_checksum_errors},
                       {"max_error_findings", s.criteria.max_error_findings},
                       {"max_link_recovery_s", s.criteria.max_link_recovery_s},
                       {"max_traffic_recovery_s", s.criteria.max_traffic_recovery_s}}},
                     {"device", s.device}};
    j["gid_index"] = s.gid_index ? nlohmann::json(*s.gid_index) : nlohmann::json(nullptr);
    nlohmann::json limits = nlohmann::json::object();
    for (StageId id : s.stages) limits[to_string(id)] = s.stage_time_limit_s(id);
    j["stage_time_limit_s"] = limits;
    return j;
}

}  // namespace rh::accept
