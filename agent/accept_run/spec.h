// The acceptance spec (`rocehealth accept --spec FILE`, agent/accept/README.md "Spec"): which
// hosts, which stages, their sizes and durations, and the pass/fail criteria, with every default
// stated here. Parsing collects every problem, each naming its field ("hosts[1].address: ...").
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "agent/accept/report_model.h"

namespace rh::accept {

struct SpecHost {
    std::string name;     ///< unique; default: the address without the port
    std::string address;  ///< HOST[:PORT] of the host's `rocehealth responder`
};

struct LatencySpec {
    std::vector<std::string> ops{"write", "read"};
    std::vector<std::uint64_t> sizes{64, 4096, 65536, 1048576};
    unsigned iterations = 1000;  ///< timed messages per (op, size); p99.9 needs >= 1000
    unsigned warmup = 10;
    unsigned timeout_ms = 5000;  ///< per message
};

struct TrafficSpec {  ///< bandwidth and concurrency pairs, and the incast
    std::uint64_t size_bytes = 65536;
    double duration_s = 10;
    unsigned queue_depth = 16;
    unsigned qps = 1;
};

struct IncastSpec {
    std::string receiver;  ///< a host name; default: the first host
    unsigned senders = 0;  ///< N; 0 (default) = every other host
    TrafficSpec traffic;
};

/// Stage `fault` (runs only when `stages` lists it): `host` takes its own RDMA link down for
/// down_s and up again, then measures link and traffic recovery to `peer`
/// (probes/responder/control_fault.h). The host's responder must allow it (`--allow-fault`).
struct FaultSpec {
    std::string host;   ///< a host name; default: the last host
    std::string peer;   ///< a host name, where the traffic goes; default: the first other host
    double down_s = 5;  ///< 0.1..600
    double recovery_timeout_s = 60;  ///< 1..600: wait for the link and traffic to come back
};

struct Criteria {
    /// p99 bound per message size (µs), for every op; a size without a bound is reported only.
    std::map<std::uint64_t, double> p99_latency_us{
        {64, 20}, {4096, 30}, {65536, 100}, {1048576, 1000}};
    double min_bandwidth_fraction = 0.9;  ///< per pair, of the slower end's link rate
    double min_incast_fraction = 0.9;     ///< incast aggregate, of the receiver's link rate
    double min_jain_index = 0.9;          ///< fairness of the incast senders
    std::uint64_t max_checksum_errors = 0;
    std::uint64_t max_error_findings = 0;  ///< findings of severity error per stage
    double max_link_recovery_s = 10;       ///< fault: link up -> port ACTIVE
    double max_traffic_recovery_s = 15;    ///< fault: link up -> RDMA traffic flowing again
};

struct Spec {
    std::string name = "RoCE fabric acceptance";
    std::vector<SpecHost> hosts;
    /// Stages to run; default every stage but `fault` (taking a link down needs explicit
    /// consent).
    std::vector<StageId> stages{StageId::inventory, StageId::idle_latency,
                                StageId::bandwidth, StageId::concurrency,
                                StageId::incast,    StageId::rkey_revocation};
    LatencySpec latency;
    TrafficSpec bandwidth{65536, 10, 16, 1};
    IncastSpec incast;
    FaultSpec fault;
    Criteria criteria;
    std::string device;                 ///< this host's device for rkey/victim; "" = auto
    std::optional<unsigned> gid_index;  ///< this host's GID index; nullopt = auto
    /// `stage_time_limit_s`: a stage still running after this many seconds is cut short and the
    /// run ends `incomplete`. Stages not given here get default_time_limit_s.
    std::map<StageId, double> time_limit_s;

    bool runs(StageId id) const;
    /// fault.host / fault.peer with their defaults applied (names of hosts[]).
    std::string fault_host() const;
    std::string fault_peer() const;
    /// Seconds a stage may run: the spec's stage_time_limit_s, else default_time_limit_s.
    double stage_time_limit_s(StageId id) const;
    /// The default limit, from the stage's own work plus a margin for set-up on a loaded host:
    /// inventory 30 + 10 per host; idle_latency 180 per ordered pair (the lab's 50-iteration
    /// pairs take 7-20 s, up to 100 s on a host running 9 guests on 2 cores); bandwidth (duration_s
    /// + 30) per ring pair; concurrency and incast duration_s + 60; fault 15 + down_s +
    /// recovery_timeout_s + 60 (what its own wait allows, plus a margin); rkey_revocation 30 + 10
    /// per host.
    double default_time_limit_s(StageId id) const;
};

struct ParsedSpec {
    std::optional<Spec> spec;
    std::vector<std::string> errors;  ///< "FIELD: what is wrong"
};

/// Reads a spec document; unknown members are errors (a typo would silently use a default).
ParsedSpec spec_from_json(const nlohmann::json& j);
/// Reads FILE; errors name the file.
ParsedSpec spec_from_file(const std::string& path);
/// The spec with every default filled in (what report.json's `spec` holds).
nlohmann::json spec_to_json(const Spec& s);

}  // namespace rh::accept
