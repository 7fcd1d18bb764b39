// rocehealth mesh --peers H1,H2,...: latency to every peer's responder on a schedule
// (probes/mesh/mesh.h), each round's results appended as samples to a recording (--out) for
// `rocehealth diagnose --replay`; at the end a summary per peer and the CPU the mesh used.
// Exit: 0 every round of every peer measured, 1 some failed, 2 could not run. Options and their
// checks: agent/cli/mesh_options.h; the summary: agent/reports/mesh_summary.h.
#include <sys/resource.h>

#include <csignal>
#include <fstream>
#include <iostream>

#include "agent/cli/commands.h"
#include "agent/cli/mesh_options.h"
#include "agent/cli/options.h"
#include "agent/reports/mesh_summary.h"
#include "core/hostname.h"
#include "core/recording/sample_json.h"
#include "probes/mesh/mesh.h"
#include "probes/verbs/device_select.h"

namespace rh::cli {

namespace {

double cpu_seconds() {
    rusage u{};
    getrusage(RUSAGE_SELF, &u);
    return static_cast<double>(u.ru_utime.tv_sec + u.ru_stime.tv_sec) +
           static_cast<double>(u.ru_utime.tv_usec + u.ru_stime.tv_usec) / 1e6;
}

}  // namespace

int run_mesh(const std::vector<std::string>& args) {
    MeshArgs a;
    const auto desc = mesh_options(a);
    po::variables_map vm;
    if (auto exit = parse_options(
            "mesh", kMeshUsage,
            "Probe every peer every interval over a kept QP (re-established with backoff after\n"
            "an error); samples probe_latency_us and probe_errors to --out for diagnose.\n"
            "Exit: 0 every round measured, 1 some rounds failed, 2 could not run.",
            args, desc, vm))
        return *exit;
    if (auto e = check_mesh_args(a)) return usage_error("mesh", kMeshUsage, *e);
    if (auto e = check_host_arg(vm, a.host)) return usage_error("mesh", kMeshUsage, *e);
    // A host without a usable RDMA port cannot probe anyone: say so now, not per round.
    if (auto where = choose_port(SysfsRoot(a.s.sysfs_root), a.s.device, a.s.gid_index); !where) {
        std::cerr << "rocehealth mesh: " << where.error().message() << "\n";
        return kExitCannotRun;
    }
    if (a.host.empty()) a.host = host_name();
    std::ofstream out;
    if (!a.out_path.empty()) {
        out.open(a.out_path, std::ios::app);
        if (!out) {
            std::cerr << "rocehealth mesh: cannot open " << a.out_path << " for appending\n";
            return kExitCannotRun;
        }
    }
    std::atomic<bool>& stop = stop_on_signals();
    std::size_t samples = 0;
    Mesh mesh(a.s, a.host, [&](std::vector<Sample> round) {
        samples += round.size();
        if (!out.is_open()) return;
        for (const auto& x : round) write_sample(out, x);
        out.flush();
    });
    const auto t0 = Mesh::Clock::now();
    const double cpu0 = cpu_seconds();
    mesh.run(stop, t0 + std::chrono::duration_cast<Mesh::Clock::duration>(
                            std::chrono::duration<double>(a.duration_s)));
    const double wall = std::chrono::duration<double>(Mesh::Clock::now() - t0).count();
    const auto doc = mesh_summary_json(mesh.status(), wall, cpu_seconds() - cpu0, samples);
    if (a.json)
        std::cout << doc.dump(2) << "\n";
    else
        print_mesh_summary(std::cout, doc);
    bool failed = false;
    for (const auto& p : mesh.status()) failed |= p.rounds_failed > 0;
    return failed ? kExitFindings : kExitOk;
}

}  // namespace rh::cli
