// rocehealth_prom_decode_bench: memory and time to decode a ~20 MB /api/v1/query_range answer
// (issue 27 §6: a 20 MB answer cost 690 MB RSS when it was parsed as one document). Each
// decoder runs in a child process of its own, so that its peak RSS (VmHWM) is its own:
// - document: nlohmann::json::parse of the whole answer (what decode_matrix did before), then
//   the series copied out of the tree;
// - sax: decode_matrix today (agent/fabric/prom_response.cpp, a SAX reader keeping the series).
// Prints the answer's size, RSS before the decode (the answer held once) and the peak above it.
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <string>

#include <nlohmann/json.hpp>

#include "agent/fabric/prom_response.h"

namespace {

/// kB of "VmRSS:" or "VmHWM:" in /proc/self/status.
long status_kb(const char* field) {
    std::ifstream in("/proc/self/status");
    std::string line;
    while (std::getline(in, line))
        if (line.rfind(field, 0) == 0) return std::stol(line.substr(std::strlen(field)));
    return -1;
}

/// A matrix answer of `series` series of 250 points each, labelled as the agents' series are.
std::string answer(std::size_t series) {
    std::string s = R"({"status":"success","data":{"resultType":"matrix","result":[)";
    unsigned rnd = 1;
    for (std::size_t i = 0; i < series; ++i) {
        if (i) s += ',';
        s += R"({"metric":{"__name__":"rocehealth_port_pause_frames_total","instance":"10.7.)" +
             std::to_string(i / 250) + "." + std::to_string(i % 250) +
             R"(:9477","job":"rocehealth","device":"mlx5_)" + std::to_string(i % 8) +
             R"(","port":"1","direction":"rx"},"values":[)";
        for (int k = 0; k < 250; ++k) {
            rnd = rnd * 1103515245u + 12345u;
            char pt[64];
            std::snprintf(pt, sizeof pt, "%s[%d,\"%u.%03u\"]", k ? "," : "", 1700000000 + 15 * k,
                          (rnd >> 8) % 100000, rnd % 1000);
            s += pt;
        }
        s += "]}";
    }
    return s + "]}}";
}

void run(const char* name, bool sax) {
    const pid_t pid = ::fork();
    if (pid != 0) {
        int st = 0;
        ::waitpid(pid, &st, 0);
        return;
    }
    std::string body = answer(3300);
    const long before = status_kb("VmRSS:");
    const auto t0 = std::chrono::steady_clock::now();
    std::size_t points = 0;
    if (sax) {
        auto r = rh::fabric::decode_matrix(body, 100000);
        if (r)
            for (const auto& s : *r) points += s.points.size();
    } else {
        auto doc = nlohmann::json::parse(body);
        std::vector<rh::fabric::PromSeries> out;
        for (const auto& s : doc["data"]["result"]) {
            rh::fabric::PromSeries ps;
            for (const auto& [k, v] : s["metric"].items()) ps.labels[k] = v.get<std::string>();
            for (const auto& p : s["values"])
                ps.points.push_back({p[0].get<double>(), std::stod(p[1].get<std::string>())});
            points += ps.points.size();
            out.push_back(std::move(ps));
        }
    }
    const double ms =
        std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
    const long peak = status_kb("VmHWM:");
    std::printf(
        "%-9s answer %.1f MB, %zu points: RSS %ld MiB with the answer, peak %ld MiB "
        "(+%ld MiB = %.1fx the answer), %.0f ms\n",
        name, static_cast<double>(body.size()) / 1e6, points, before / 1024, peak / 1024,
        (peak - before) / 1024,
        static_cast<double>(peak - before) * 1024.0 / static_cast<double>(body.size()), ms);
    std::fflush(stdout);
    ::_exit(0);
}

}  // namespace

int main() {
    run("document", false);
    run("sax", true);
    return 0;
}
