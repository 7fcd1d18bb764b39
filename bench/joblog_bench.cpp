// rocehealth_joblog_bench: throughput of the job and kernel log readers (collectors/joblog:
// NCCL, UCX, perftest and kernel, all four through read_logs, as the bundle reader calls them)
// over a realistic NCCL_DEBUG=INFO log, against issue 28's goal: 1 GB read at >= 200 MB/s on
// one core.
//
// The log is generated in memory as NCCL 2.2x prints it for a 16-host job (8 GPUs a host):
// init lines (NET/IB : Using, settings, Channel ... via P2P/IPC and NET/IB, Trees, Connected all
// rings/trees, Init COMPLETE) and, as in a long job with NCCL_DEBUG_SUBSYS=COLL, half of them
// per-collective lines (AllReduce: opCount ... count ... datatype ...), with a WARN line
// (completion error, async event) every ~50,000 lines. A pool of chunks (default 32 MiB in 2 MiB
// chunks of lines) is read again and again until the requested size is read, so memory stays
// small; only read_logs is timed. Usage: rocehealth_joblog_bench [MiB to read, default 1024]
// [pool MiB, default 32]. Prints MB/s (10^6 bytes), the ratio to the goal, events found, and
// each reader's share of one pass over the pool.
#include <time.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "collectors/joblog/job_logs.h"

namespace {

constexpr double kGoalMBps = 200.0;

struct Rng {
    unsigned long long s = 0x9e3779b97f4a7c15ULL;
    unsigned next(unsigned n) {
        s ^= s << 13;
        s ^= s >> 7;
        s ^= s << 17;
        return static_cast<unsigned>(s % n);
    }
};

/// One log line of host `h` (0..15), GPU `g` (0..7), in NCCL 2.2x's INFO/WARN shapes.
std::string nccl_line(Rng& r, unsigned h, unsigned g, unsigned long long& op) {
    char head[64];
    std::snprintf(head, sizeof head, "gpu%02u:%u:%u [%u] ", h + 1, 41000 + h * 8 + g,
                  41100 + h * 8 + g + r.next(4), g);
    const unsigned rank = h * 8 + g;
    char body[400];
    const unsigned pick = r.next(10000);  // per 10,000 lines
    if (pick < 5000) {                    // the bulk of a long job's log: one line per collective
        std::snprintf(
            body, sizeof body,
            "NCCL INFO AllReduce: opCount %llx sendbuff 0x7f%08x recvbuff 0x7f%08x count "
            "%u datatype 7 op 0 root 0 comm 0x55d4c8a0%04x [nranks=128] stream 0x55d4c9b0",
            op++, r.next(1u << 30), r.next(1u << 30), 1u << (10 + r.next(16)), rank);
    } else if (pick < 8000) {
        const unsigned ch = r.next(32);
        if (g < 7)
            std::snprintf(body, sizeof body,
                          "NCCL INFO Channel %02u/0 : %u[%u] -> %u[%u] via P2P/IPC", ch, rank, g,
                          rank + 1, g + 1);
        else
            std::snprintf(body, sizeof body,
                          "NCCL INFO Channel %02u/0 : %u[%u] -> %u[0] [send] via NET/IB/%u/GDRDMA",
                          ch, rank, g, (rank + 1) % 128, ch % 4);
    } else if (pick < 8500) {
        std::snprintf(body, sizeof body,
                      "NCCL INFO Trees [0] %u/-1/-1->%u->%u [1] %u/-1/-1->%u->%u", rank + 1, rank,
                      rank ? rank - 1 : 127, rank + 1, rank, rank ? rank - 1 : 127);
    } else if (pick < 8550) {  // once a rank at init: rare in a long log
        std::snprintf(body, sizeof body,
                      "NCCL INFO NET/IB : Using [0]mlx5_0:1/RoCE [1]mlx5_1:1/RoCE [2]mlx5_2:1/RoCE "
                      "[3]mlx5_3:1/RoCE ; OOB eth0:10.0.%u.%u<0>",
                      h / 8, h + 1);
    } else if (pick < 8850) {
        std::snprintf(body, sizeof body, "NCCL INFO Connected all %s",
                      r.next(2) ? "rings" : "trees");
    } else if (pick < 9050) {
        std::snprintf(body, sizeof body,
                      "NCCL INFO comm 0x55d4c8a0%04x rank %u nranks 128 cudaDev %u busId %x000 - "
                      "Init COMPLETE",
                      rank, rank, g, 0x1b + g * 0x20);
    } else if (pick < 9100) {
        std::snprintf(body, sizeof body, "NCCL INFO NCCL_IB_%s set by environment to %u.",
                      r.next(2) ? "TC" : "GID_INDEX", r.next(2) ? 106 : 3);
    } else if (pick < 9500) {
        std::snprintf(body, sizeof body,
                      "NCCL INFO threadThresholds 8/8/64 | 1024/8/64 | 512 | 512");
    } else {
        std::snprintf(body, sizeof body,
                      "NCCL INFO %u coll channels, 32 collnet channels, 0 nvls channels, 32 p2p "
                      "channels, 32 p2p channels per peer",
                      16 + r.next(17));
    }
    return std::string(head) + body;
}

std::string warn_line(Rng& r, unsigned h, unsigned g) {
    char buf[400];
    if (r.next(2))
        std::snprintf(
            buf, sizeof buf,
            "gpu%02u:%u:%u [%u] transport/net_ib.cc:2345 NCCL WARN NET/IB: Got completion "
            "from peer 10.0.0.%u<54321> with status=12 opcode=0 len=0 vendor err 129 (Send) "
            "localGid ::ffff:10.0.0.%u remoteGids ::ffff:10.0.0.%u hca mlx5_%u",
            h + 1, 41000 + h * 8 + g, 41200 + g, g, (h + 1) % 16 + 1, h + 1, (h + 1) % 16 + 1,
            g / 2);
    else
        std::snprintf(buf, sizeof buf,
                      "gpu%02u:%u:%u [%u] transport/net_ib.cc:99 NCCL WARN NET/IB : mlx5_%u:1 Got "
                      "non-fatal async event: port error(10)",
                      h + 1, 41000 + h * 8 + g, 41300 + g, g, g / 2);
    return buf;
}

/// Chunks of lines, each about `chunk_bytes` of text (line ends counted).
std::vector<std::vector<std::string>> make_pool(std::size_t pool_bytes, std::size_t chunk_bytes,
                                                std::size_t& bytes) {
    Rng r;
    unsigned long long op = 1;
    std::vector<std::vector<std::string>> pool;
    bytes = 0;
    while (bytes < pool_bytes) {
        std::vector<std::string> chunk;
        std::size_t b = 0;
        while (b < chunk_bytes) {
            const unsigned h = r.next(16), g = r.next(8);
            std::string l = r.next(50000) == 0 ? warn_line(r, h, g) : nccl_line(r, h, g, op);
            b += l.size() + 1;
            chunk.push_back(std::move(l));
        }
        bytes += b;
        pool.push_back(std::move(chunk));
    }
    return pool;
}

double seconds_since(std::chrono::steady_clock::time_point t0) {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

/// CPU time of this thread, seconds: the goal is "on one core", and the machine is shared.
double thread_cpu_s() {
    timespec ts{};
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return static_cast<double>(ts.tv_sec) + static_cast<double>(ts.tv_nsec) * 1e-9;
}

}  // namespace

int main(int argc, char** argv) {
    const double want_mib = argc > 1 ? std::atof(argv[1]) : 1024;
    const double pool_mib = argc > 2 ? std::atof(argv[2]) : 32;
    if (want_mib <= 0 || pool_mib <= 0) {
        std::fprintf(stderr, "usage: rocehealth_joblog_bench [MiB to read] [pool MiB]\n");
        return 2;
    }
    std::size_t pool_bytes = 0;
    const auto pool = make_pool(static_cast<std::size_t>(pool_mib * 1048576), 2 << 20, pool_bytes);
    std::size_t lines_in_pool = 0;
    for (const auto& c : pool) lines_in_pool += c.size();
    std::printf("pool: %zu chunks, %zu lines, %.1f MiB (mean line %.0f bytes)\n", pool.size(),
                lines_in_pool, pool_bytes / 1048576.0,
                static_cast<double>(pool_bytes) / static_cast<double>(lines_in_pool) - 1);

    const std::size_t want = static_cast<std::size_t>(want_mib * 1048576);
    std::size_t read = 0, lines = 0, events = 0, notes = 0;
    double busy_s = 0, cpu_s = 0;
    rh::joblog::LogRead out;
    for (std::size_t k = 0; read < want; ++k) {
        const auto& chunk = pool[k % pool.size()];
        std::size_t b = 0;
        for (const auto& l : chunk) b += l.size() + 1;
        const auto t0 = std::chrono::steady_clock::now();
        const double c0 = thread_cpu_s();
        rh::joblog::read_logs({"bench", "nccl.log", chunk}, out);
        cpu_s += thread_cpu_s() - c0;
        busy_s += seconds_since(t0);
        events += out.events.size();
        notes += out.notes.size();
        out.events.clear();
        out.notes.clear();
        read += b;
        lines += chunk.size();
    }
    const double mbps = static_cast<double>(read) / 1e6 / cpu_s;
    std::printf(
        "read_logs (all four readers): %.1f MiB, %zu lines in %.2f s CPU (%.2f s wall): %.1f MB/s "
        "of CPU (%.1f wall), %.2fx the %.0f MB/s goal (%s); %zu events, %zu notes\n",
        read / 1048576.0, lines, cpu_s, busy_s, mbps, static_cast<double>(read) / 1e6 / busy_s,
        mbps / kGoalMBps, kGoalMBps, mbps >= kGoalMBps ? "met" : "NOT met", events, notes);

    // Each reader alone over one pass of the pool: where the time goes.
    struct One {
        const char* name;
        void (*fn)(const rh::joblog::LogText&, rh::joblog::LogRead&);
    };
    const One readers[] = {{"nccl", rh::joblog::read_nccl},
                           {"ucx", rh::joblog::read_ucx},
                           {"perftest", rh::joblog::read_perftest},
                           {"kernel", rh::joblog::read_kernel}};
    for (const One& r : readers) {
        double s = 0;
        std::size_t ev = 0;
        for (const auto& chunk : pool) {
            const double c0 = thread_cpu_s();
            r.fn({"bench", "nccl.log", chunk}, out);
            s += thread_cpu_s() - c0;
            ev += out.events.size();
            out.events.clear();
            out.notes.clear();
        }
        std::printf("  %-8s alone: %8.1f MB/s of CPU (%zu events in one pass)\n", r.name,
                    static_cast<double>(pool_bytes) / 1e6 / s, ev);
    }
    std::printf("key=value joblog_mb_per_s=%.1f goal_ratio=%.2f events=%zu\n", mbps,
                mbps / kGoalMBps, events);
    return 0;
}
