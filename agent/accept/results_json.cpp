#include "agent/accept/results_json.h"

namespace rh::accept {

namespace {

using nlohmann::json;

template <typename T>
json nullable(const std::optional<T>& v) {
    return v ? json(*v) : json(nullptr);
}

/// A host name in the results must be one of the report's hosts.
std::string host_field(const JsonReader& in, const char* key, const std::set<std::string>& hosts) {
    std::string h = in.req_string(key);
    if (!h.empty() && !hosts.count(h)) in.error_at(key, "host \"" + h + "\" is not in hosts[]");
    return h;
}

/// A fraction 0..1 (a little over 1 is allowed: rates are measured on both ends).
std::optional<double> fraction_field(const JsonReader& in, const char* key) {
    auto f = in.opt_number(key);
    if (f && (*f < 0 || *f > 1.5)) in.error_at(key, "expected a fraction from 0 to 1.5");
    return f;
}

std::optional<std::vector<unsigned>> priorities_field(const JsonReader& in, const char* key) {
    if (!in.has(key)) return std::nullopt;
    std::vector<unsigned> out;
    in.each(key, true, [&](const JsonReader& e) {
        if (!e.json().is_number_unsigned() || e.json().get<std::uint64_t>() > 7)
            e.error("expected a priority 0..7, got " + JsonReader::type_text(e.json()));
        else
            out.push_back(e.json().get<unsigned>());
    });
    return out;
}

// ---- inventory ----

InventoryResults inventory_from(const JsonReader& in, const std::set<std::string>& hosts) {
    InventoryResults r;
    in.each("hosts", true, [&](const JsonReader& h) {
        if (!h.expect_object()) return;
        InventoryHost ih;
        ih.host = host_field(h, "host", hosts);
        ih.kernel = h.opt_string("kernel");
        ih.memlock_limit_bytes = h.opt_uint("memlock_limit_bytes");
        ih.memlock_unlimited = h.opt_bool("memlock_unlimited", false);
        h.each("nics", false, [&](const JsonReader& n) {
            if (!n.expect_object()) return;
            InventoryNic nic;
            nic.device = n.req_string("device");
            nic.port = static_cast<unsigned>(n.req_uint("port"));
            nic.netdev = n.opt_string("netdev");
            nic.model = n.opt_string("model");
            nic.firmware = n.opt_string("firmware");
            nic.pcie_current = n.opt_string("pcie_current");
            nic.pcie_max = n.opt_string("pcie_max");
            nic.pcie_limited_by = n.opt_string("pcie_limited_by");
            nic.numa_node = n.opt_int("numa_node");
            nic.netdev_mtu_bytes = n.opt_uint("netdev_mtu_bytes");
            nic.active_mtu_bytes = n.opt_uint("active_mtu_bytes");
            nic.link_gbps = n.opt_number("link_gbps");
            nic.roce_version = n.opt_string("roce_version");
            nic.gid_index = n.opt_uint("gid_index");
            nic.pfc_priorities = priorities_field(n, "pfc_priorities");
            nic.ecn_priorities = priorities_field(n, "ecn_priorities");
            nic.trust = n.opt_string("trust");
            ih.nics.push_back(std::move(nic));
        });
        r.hosts.push_back(std::move(ih));
    });
    in.each("consistency", false, [&](const JsonReader& c) {
        if (!c.expect_object()) return;
        ConsistencyRow row;
        row.fact = c.req_string("fact");
        row.must_match = c.opt_bool("must_match", true);
        c.each("values", true, [&](const JsonReader& g) {
            if (!g.expect_object()) return;
            ConsistencyRow::Group grp;
            grp.value = g.req_string("value");
            grp.hosts = g.opt_string_list("hosts");
            for (const auto& h : grp.hosts)
                if (!hosts.count(h)) g.error_at("hosts", "host \"" + h + "\" is not in hosts[]");
            row.values.push_back(std::move(grp));
        });
        row.differing_hosts = c.opt_string_list("differing_hosts");
        row.consistent = c.req_bool("consistent");
        if (row.consistent != (row.values.size() <= 1))
            c.error_at("consistent", row.consistent ? "true, but the hosts have different values"
                                                    : "false, but all hosts have one value");
        r.consistency.push_back(std::move(row));
    });
    return r;
}

json inventory_to(const InventoryResults& r) {
    json hosts = json::array();
    for (const auto& h : r.hosts) {
        json nics = json::array();
        for (const auto& n : h.nics)
            nics.push_back({{"device", n.device},
                            {"port", n.port},
                            {"netdev", n.netdev},
                            {"model", n.model},
                            {"firmware", n.firmware},
                            {"pcie_current", n.pcie_current},
                            {"pcie_max", n.pcie_max},
                            {"pcie_limited_by", n.pcie_limited_by},
                            {"numa_node", nullable(n.numa_node)},
                            {"netdev_mtu_bytes", nullable(n.netdev_mtu_bytes)},
                            {"active_mtu_bytes", nullable(n.active_mtu_bytes)},
                            {"link_gbps", nullable(n.link_gbps)},
                            {"roce_version", n.roce_version},
                            {"gid_index", nullable(n.gid_index)},
                            {"pfc_priorities", nullable(n.pfc_priorities)},
                            {"ecn_priorities", nullable(n.ecn_priorities)},
                            {"trust", n.trust}});
        hosts.push_back({{"host", h.host},
                         {"kernel", h.kernel},
                         {"memlock_limit_bytes", nullable(h.memlock_limit_bytes)},
                         {"memlock_unlimited", h.memlock_unlimited},
                         {"nics", std::move(nics)}});
    }
    json consistency = json::array();
    for (const auto& c : r.consistency) {
        json values = json::array();
        for (const auto& g : c.values) values.push_back({{"value", g.value}, {"hosts", g.hosts}});
        consistency.push_back({{"fact", c.fact},
                               {"must_match", c.must_match},
                               {"values", std::move(values)},
                               {"differing_hosts", c.differing_hosts},
                               {"consistent", c.consistent}});
    }
    return {{"hosts", std::move(hosts)}, {"consistency", std::move(consistency)}};
}

// ---- idle latency ----

IdleLatencyResults latency_from(const JsonReader& in, const std::set<std::string>& hosts) {
    IdleLatencyResults r;
    r.sampled = in.opt_bool("sampled", false);
    r.pairs_total = in.req_uint("pairs_total");
    r.sampling = in.opt_string("sampling");
    in.each("latency", true, [&](const JsonReader& e) {
        if (!e.expect_object()) return;
        LatencyResult l;
        l.src = host_field(e, "src", hosts);
        l.dst = host_field(e, "dst", hosts);
        l.op = e.req_enum("op", {"write", "read", "send"});
        l.size_bytes = e.req_uint("size_bytes");
        l.iterations = e.req_uint("iterations");
        l.min_us = e.opt_number("min_us");
        l.p50_us = e.opt_number("p50_us");
        l.p99_us = e.opt_number("p99_us");
        l.p999_us = e.opt_number("p999_us");
        l.max_us = e.opt_number("max_us");
        l.mean_us = e.opt_number("mean_us");
        l.checksum_errors = e.opt_uint("checksum_errors");
        l.error = e.opt_string("error");
        double last_us = 0, last_f = 0;
        e.each("cdf", false, [&](const JsonReader& p) {
            const auto& pj = p.json();
            if (!pj.is_array() || pj.size() != 2 || !pj[0].is_number() || !pj[1].is_number()) {
                p.error("expected [latency_us, fraction]");
                return;
            }
            const double us = pj[0].get<double>(), f = pj[1].get<double>();
            if (us < last_us || f < last_f || f > 1)
                p.error("expected latency and fraction ascending, fraction <= 1");
            last_us = us;
            last_f = f;
            l.cdf.emplace_back(us, f);
        });
        r.latency.push_back(std::move(l));
    });
    return r;
}

json latency_to(const IdleLatencyResults& r) {
    json a = json::array();
    for (const auto& l : r.latency) {
        json cdf = json::array();
        for (const auto& [us, f] : l.cdf) cdf.push_back({us, f});
        a.push_back({{"src", l.src},
                     {"dst", l.dst},
                     {"op", l.op},
                     {"size_bytes", l.size_bytes},
                     {"iterations", l.iterations},
                     {"min_us", nullable(l.min_us)},
                     {"p50_us", nullable(l.p50_us)},
                     {"p99_us", nullable(l.p99_us)},
                     {"p999_us", nullable(l.p999_us)},
                     {"max_us", nullable(l.max_us)},
                     {"mean_us", nullable(l.mean_us)},
                     {"checksum_errors", nullable(l.checksum_errors)},
                     {"error", l.error},
                     {"cdf", std::move(cdf)}});
    }
    return {{"sampled", r.sampled},
            {"pairs_total", r.pairs_total},
            {"sampling", r.sampling},
            {"latency", std::move(a)}};
}

// ---- flows: bandwidth, concurrency ----

FlowResult flow_from(const JsonReader& e, const std::set<std::string>& hosts) {
    FlowResult f;
    if (!e.expect_object()) return f;
    f.src = host_field(e, "src", hosts);
    f.dst = host_field(e, "dst", hosts);
    f.op = e.req_enum("op", {"write", "read", "send"});
    f.gbps = e.opt_number("gbps");
    f.link_gbps = e.opt_number("link_gbps");
    f.fraction = fraction_field(e, "fraction");
    f.duration_s = e.req_number("duration_s");
    f.error = e.opt_string("error");
    return f;
}

json flows_to(const std::vector<FlowResult>& flows) {
    json a = json::array();
    for (const auto& f : flows)
        a.push_back({{"src", f.src},
                     {"dst", f.dst},
                     {"op", f.op},
                     {"gbps", nullable(f.gbps)},
                     {"link_gbps", nullable(f.link_gbps)},
                     {"fraction", nullable(f.fraction)},
                     {"duration_s", f.duration_s},
                     {"error", f.error}});
    return a;
}

// ---- incast ----

Percentiles percentiles_from(const JsonReader& in) {
    Percentiles p;
    if (!in.expect_object()) return p;
    p.p50_us = in.opt_number("p50_us");
    p.p99_us = in.opt_number("p99_us");
    p.p999_us = in.opt_number("p999_us");
    return p;
}

json percentiles_to(const Percentiles& p) {
    return {{"p50_us", nullable(p.p50_us)},
            {"p99_us", nullable(p.p99_us)},
            {"p999_us", nullable(p.p999_us)}};
}

IncastResults incast_from(const JsonReader& in, const std::set<std::string>& hosts) {
    IncastResults r;
    r.receiver = host_field(in, "receiver", hosts);
    r.message_size_bytes = in.req_uint("message_size_bytes");
    r.duration_s = in.req_number("duration_s");
    in.each("senders", true, [&](const JsonReader& s) {
        if (!s.expect_object()) return;
        IncastSender snd;
        snd.host = host_field(s, "host", hosts);
        snd.goodput_gbps = s.opt_number("goodput_gbps");
        snd.goodput_mib_s = s.opt_number("goodput_mib_s");
        if (s.has("errors_by_status")) {
            const JsonReader e = s.member("errors_by_status");
            if (!e.expect_object()) return;
            for (const auto& [status, n] : e.json().items()) {
                if (!n.is_number_unsigned())
                    e.error_at(status, "expected a count, got " + JsonReader::type_text(n));
                else
                    snd.errors_by_status[status] = n.get<std::uint64_t>();
            }
        }
        r.senders.push_back(std::move(snd));
    });
    if (in.has("aggregate")) {
        const JsonReader a = in.member("aggregate");
        if (a.expect_object()) {
            r.aggregate_goodput_gbps = a.opt_number("goodput_gbps");
            r.aggregate_goodput_mib_s = a.opt_number("goodput_mib_s");
            r.link_gbps = a.opt_number("link_gbps");
            r.fraction = fraction_field(a, "fraction");
        }
    }
    r.jain_index = in.opt_number("jain_index");
    if (r.jain_index && (*r.jain_index < 0 || *r.jain_index > 1.000001))
        in.error_at("jain_index", "expected 0..1");
    r.bad_slots = in.opt_uint("bad_slots");
    r.verified_messages = in.opt_uint("verified_messages");
    r.verified_bytes = in.opt_uint("verified_bytes");
    r.verified_fraction = in.opt_number("verified_fraction");  // a share of counts: 0..1 exactly
    if (r.verified_fraction && (*r.verified_fraction < 0 || *r.verified_fraction > 1))
        in.error_at("verified_fraction", "expected 0..1");
    if (in.has("victim")) {
        const JsonReader v = in.member("victim");
        if (v.expect_object()) {
            IncastResults::Victim vic;
            vic.src = host_field(v, "src", hosts);
            vic.dst = host_field(v, "dst", hosts);
            vic.op = v.req_enum("op", {"write", "read", "send"});
            vic.size_bytes = v.req_uint("size_bytes");
            vic.before = percentiles_from(v.member("before"));
            vic.during = percentiles_from(v.member("during"));
            r.victim = std::move(vic);
        }
    }
    return r;
}

/// The incast results every report has.
json incast_core_to(const IncastResults& r) {
    json senders = json::array();
    for (const auto& s : r.senders)
        senders.push_back({{"host", s.host},
                           {"goodput_gbps", nullable(s.goodput_gbps)},
                           {"goodput_mib_s", nullable(s.goodput_mib_s)},
                           {"errors_by_status", s.errors_by_status}});
    json victim = nullptr;
    if (r.victim)
        victim = {{"src", r.victim->src},
                  {"dst", r.victim->dst},
                  {"op", r.victim->op},
                  {"size_bytes", r.victim->size_bytes},
                  {"before", percentiles_to(r.victim->before)},
                  {"during", percentiles_to(r.victim->during)}};
    return {{"receiver", r.receiver},
            {"message_size_bytes", r.message_size_bytes},
            {"duration_s", r.duration_s},
            {"senders", std::move(senders)},
            {"aggregate",
             {{"goodput_gbps", nullable(r.aggregate_goodput_gbps)},
              {"goodput_mib_s", nullable(r.aggregate_goodput_mib_s)},
              {"link_gbps", nullable(r.link_gbps)},
              {"fraction", nullable(r.fraction)}}},
            {"jain_index", nullable(r.jain_index)},
            {"victim", std::move(victim)}};
}

json incast_to(const IncastResults& r) {
    json out = incast_core_to(r);
    // Written only when known, so that reports from before protocol 4 read back unchanged.
    if (r.bad_slots) out["bad_slots"] = *r.bad_slots;
    if (r.verified_messages) {
        out["verified_messages"] = *r.verified_messages;
        out["verified_bytes"] = nullable(r.verified_bytes);
        out["verified_fraction"] = nullable(r.verified_fraction);
    }
    return out;
}

// ---- fault, rkey ----

FaultResults fault_from(const JsonReader& in, const std::set<std::string>& hosts) {
    FaultResults r;
    r.host = host_field(in, "host", hosts);
    r.device = in.opt_string("device");
    r.netdev = in.opt_string("netdev");
    r.traffic_src = in.has("traffic_src") ? host_field(in, "traffic_src", hosts) : "";
    r.traffic_dst = in.has("traffic_dst") ? host_field(in, "traffic_dst", hosts) : "";
    r.link_down_s = in.opt_number("link_down_s");
    r.link_up_s = in.opt_number("link_up_s");
    r.link_recovery_s = in.opt_number("link_recovery_s");
    r.traffic_recovery_s = in.opt_number("traffic_recovery_s");
    r.traffic_attempts = in.opt_number("traffic_attempts");
    r.baseline_p50_us = in.opt_number("baseline_p50_us");
    r.recovered_p50_us = in.opt_number("recovered_p50_us");
    r.restored = in.opt_string_list("restored");
    r.setup_changes = in.opt_string_list("setup_changes");
    return r;
}

json fault_to(const FaultResults& r) {
    return {{"host", r.host},
            {"device", r.device},
            {"netdev", r.netdev},
            {"traffic_src", r.traffic_src},
            {"traffic_dst", r.traffic_dst},
            {"link_down_s", nullable(r.link_down_s)},
            {"link_up_s", nullable(r.link_up_s)},
            {"link_recovery_s", nullable(r.link_recovery_s)},
            {"traffic_recovery_s", nullable(r.traffic_recovery_s)},
            {"traffic_attempts", nullable(r.traffic_attempts)},
            {"baseline_p50_us", nullable(r.baseline_p50_us)},
            {"recovered_p50_us", nullable(r.recovered_p50_us)},
            {"restored", r.restored},
            {"setup_changes", r.setup_changes}};
}

RkeyResults rkey_from(const JsonReader& in, const std::set<std::string>& hosts) {
    RkeyResults r;
    in.each("attempts", true, [&](const JsonReader& a) {
        if (!a.expect_object()) return;
        RkeyAttempt at;
        at.src = host_field(a, "src", hosts);
        at.dst = host_field(a, "dst", hosts);
        at.op = a.req_enum("op", {"write", "read"});
        at.expected_status = a.req_string("expected_status");
        at.got_status = a.req_string("got_status");
        at.pass = a.req_bool("pass");
        if (at.pass != (at.got_status == at.expected_status))
            a.error_at("pass", at.pass ? "true, but got_status is not expected_status"
                                       : "false, but got_status is expected_status");
        r.attempts.push_back(std::move(at));
    });
    return r;
}

json rkey_to(const RkeyResults& r) {
    json a = json::array();
    for (const auto& at : r.attempts)
        a.push_back({{"src", at.src},
                     {"dst", at.dst},
                     {"op", at.op},
                     {"expected_status", at.expected_status},
                     {"got_status", at.got_status},
                     {"pass", at.pass}});
    return {{"attempts", std::move(a)}};
}

}  // namespace

StageResults results_from_json(StageId id, const JsonReader& in,
                               const std::set<std::string>& hosts) {
    if (!in.expect_object()) return {};
    switch (id) {
        case StageId::inventory:
            return inventory_from(in, hosts);
        case StageId::idle_latency:
            return latency_from(in, hosts);
        case StageId::bandwidth: {
            BandwidthResults r;
            in.each("pairs", true,
                    [&](const JsonReader& e) { r.pairs.push_back(flow_from(e, hosts)); });
            return r;
        }
        case StageId::concurrency: {
            ConcurrencyResults r;
            r.concurrent_pairs = in.req_uint("concurrent_pairs");
            r.duration_s = in.req_number("duration_s");
            in.each("flows", true,
                    [&](const JsonReader& e) { r.flows.push_back(flow_from(e, hosts)); });
            r.aggregate_gbps = in.opt_number("aggregate_gbps");
            r.jain_index = in.opt_number("jain_index");
            return r;
        }
        case StageId::incast:
            return incast_from(in, hosts);
        case StageId::fault:
            return fault_from(in, hosts);
        case StageId::rkey_revocation:
            return rkey_from(in, hosts);
    }
    return {};
}

nlohmann::json results_to_json(const StageResults& r) {
    struct Visitor {
        json operator()(const std::monostate&) const { return nullptr; }
        json operator()(const InventoryResults& x) const { return inventory_to(x); }
        json operator()(const IdleLatencyResults& x) const { return latency_to(x); }
        json operator()(const BandwidthResults& x) const { return {{"pairs", flows_to(x.pairs)}}; }
        json operator()(const ConcurrencyResults& x) const {
            return {{"concurrent_pairs", x.concurrent_pairs},
                    {"duration_s", x.duration_s},
                    {"flows", flows_to(x.flows)},
                    {"aggregate_gbps", nullable(x.aggregate_gbps)},
                    {"jain_index", nullable(x.jain_index)}};
        }
        json operator()(const IncastResults& x) const { return incast_to(x); }
        json operator()(const FaultResults& x) const { return fault_to(x); }
        json operator()(const RkeyResults& x) const { return rkey_to(x); }
    };
    return std::visit(Visitor{}, r);
}

std::optional<std::size_t> results_array_size(const StageResults& r, const std::string& key) {
    const json j = results_to_json(r);
    if (!j.is_object() || !j.contains(key) || !j[key].is_array()) return std::nullopt;
    return j[key].size();
}

}  // namespace rh::accept
