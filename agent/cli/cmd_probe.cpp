// rocehealth probe PEER[:PORT]: RDMA WRITE/READ and SEND/RECV latency to a peer's
// `rocehealth responder`. Options and their checks: agent/cli/probe_options.h; the text:
// agent/reports/probe_text.h; the JSON: the ProbeReport's own (probes/latency/probe.h).

#include <cstdio>
#include <fstream>
#include <iostream>

#include "agent/cli/commands.h"
#include "agent/cli/key_option.h"
#include "agent/cli/options.h"
#include "agent/cli/probe_args.h"
#include "agent/cli/probe_options.h"
#include "agent/reports/probe_text.h"
#include "core/clock.h"
#include "core/hostname.h"
#include "core/recording/sample_json.h"
#include "probes/latency/probe.h"
#include "probes/latency/probe_samples.h"
#include "probes/latency/probe_session.h"
#include "probes/wire/oob_protocol.h"
#include "probes/wire/tcp.h"

namespace rh::cli {

namespace {

/// --record: appends `r`'s samples, stamped `when`, to the open recording.
void record_probe(std::ofstream& record, const ProbeArgs& a, const ProbeReport& r,
                  const ProbeRunTimes& when) {
    const auto hp = tcp::parse_host_port(a.o.peer, oob::kDefaultPort);
    const std::string peer_host = hp ? hp->host : a.o.peer;
    for (const Sample& s : samples_from_probe(r, a.host, peer_host, when)) write_sample(record, s);
    record.flush();
    if (!record) std::cerr << "rocehealth probe: writing " << a.record_path << " failed\n";
}

}  // namespace

int run_probe(const std::vector<std::string>& args) {
    ProbeArgs a;
    const auto desc = probe_options(a);
    po::positional_options_description pos;
    pos.add("peer", -1);
    po::variables_map vm;
    if (auto exit = parse_options(
            "probe", kProbeUsage,
            "RDMA WRITE, READ and SEND/RECV latency over one RC QP to a peer running `rocehealth\n"
            "responder`. WRITE and SEND latency are half the round trip of a ping-pong (as\n"
            "ib_write_lat, ib_send_lat); READ latency is post to completion on this host (as\n"
            "ib_read_lat). A phase that fails stops the probe: its figures are not shown and the\n"
            "phases after it are listed as skipped.\n"
            "Exit: 0 ok, 1 measured with errors (checksum, failed phase), 2 could not run.",
            args, desc, vm, &pos))
        return *exit;
    if (auto e = check_probe_args(a, vm)) return usage_error("probe", kProbeUsage, *e);
    if (vm.count("sysfs-root"))
        if (auto e = live_sysfs_error("probe", a.sysfs_root)) {
            std::cerr << "rocehealth probe: " << *e << "\n";
            return kExitCannotRun;
        }
    std::ofstream record;
    if (!a.record_path.empty()) {
        record.open(a.record_path, std::ios::app);
        if (!record) {
            std::cerr << "rocehealth probe: cannot open " << a.record_path << " for appending\n";
            return kExitCannotRun;
        }
        if (a.host.empty()) a.host = host_name();
    }
    // A probe past a responder's unauthenticated budget (probes/latency/probe_session.h) proves
    // the fabric key first; only then is the key read, so a user who cannot read it still
    // probes within the budget.
    if (needs_fabric_key(a.o) || !a.key_file.empty() || host_key_options_given())
        if (auto exit = install_fabric_key("probe", a.key_file)) return *exit;
    ProbeRunTimes when{monotonic_now_s(), 0, wall_now_ms(), 0};
    auto r = rh::run_probe(a.o);
    when.end_t_s = monotonic_now_s();
    when.end_wall_ms = wall_now_ms();
    if (r && record.is_open()) record_probe(record, a, *r, when);
    if (!r) {
        std::fprintf(stderr, "rocehealth probe: %s\n", r.error().message().c_str());
        if (a.json)
            std::cout << nlohmann::json{{"ok", false}, {"error", r.error().message()}}.dump(2)
                      << "\n";
        return kExitCannotRun;
    }
    if (a.json)
        std::cout << to_json(*r).dump(2) << "\n";
    else
        print_probe_text(*r);
    for (const auto& e : r->errors) std::fprintf(stderr, "rocehealth probe: %s\n", e.c_str());
    return r->ok() ? kExitOk : kExitFindings;
}

}  // namespace rh::cli
