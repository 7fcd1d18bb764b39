// rocehealth_data_path_bench: CPU cost of the stream/probe data path with no NIC (bench/README.md).
//
// For message sizes 4 KiB, 64 KiB and 1 MiB it times, on one core:
//   - the checksum kernels alone over a payload: FNV-1a-64 byte by byte (slot layout 1, before
//     protocol 4), xxh3-64 (libxxhash, layout 2), CRC32C with SSE4.2 _mm_crc32_u64, and memcmp
//     against the expected copy (what the stream receiver did before);
//   - the sender's per-message stamp (stream::Patterns::stamp);
//   - the receiver's per-message work over a ring of stream::ring_slots(16) slots: take a
//     simulated completion, check the slot (trailer always, whole payload for the sampled share),
//     count, write a receive descriptor for the slot recv_depth ahead. The "NIC" (the bench)
//     writes each slot's 16-byte trailer before its completion; the payloads were written once,
//     so the ring (3 MiB at 64 KiB, 48 MiB at 1 MiB) is read from wherever the caches left it.
//     ibv_poll_cq/ibv_post_recv themselves are not included (driver cost, ~tens of ns each);
//   - the latency probe's per-iteration slot work (stamp + load_seq + full verify).
// Prints ns per message and the Gb/s (10^9 bit/s) that one core sustains, beside 100/200/400.
#include <nmmintrin.h>

#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <functional>
#include <vector>

#include "probes/wire/slot.h"
#include "probes/wire/stream_slots.h"

using namespace rh;
using Clock = std::chrono::steady_clock;

namespace {

volatile std::uint64_t g_sink;  // keeps results alive

std::uint64_t fnv1a(const std::byte* p, std::size_t n) {
    std::uint64_t h = 0xcbf29ce484222325ull;
    for (std::size_t i = 0; i < n; ++i) {
        h ^= static_cast<std::uint8_t>(p[i]);
        h *= 0x100000001b3ull;
    }
    return h;
}

// Three independent CRC streams would hide the 3-cycle latency of crc32; one stream is what a
// simple implementation gets (and what the figure below shows), combining lanes needs
// carry-less multiplication (PCLMUL) shifts.
__attribute__((target("sse4.2"))) std::uint32_t crc32c(const std::byte* p, std::size_t n) {
    std::uint64_t c = 0xffffffffu;
    std::size_t i = 0;
    for (; i + 8 <= n; i += 8) {
        std::uint64_t w;
        std::memcpy(&w, p + i, 8);
        c = _mm_crc32_u64(c, w);
    }
    for (; i < n; ++i) c = _mm_crc32_u8(static_cast<std::uint32_t>(c), std::uint8_t(p[i]));
    return static_cast<std::uint32_t>(c) ^ 0xffffffffu;
}

/// ns per call of `f(i)`, run for at least `min_s` seconds (after one warm-up call).
double time_ns(const std::function<void(std::uint64_t)>& f, double min_s = 0.25) {
    f(0);
    std::uint64_t n = 0, batch = 1;
    const auto t0 = Clock::now();
    double el = 0;
    do {
        for (std::uint64_t k = 0; k < batch; ++k) f(n + k);
        n += batch;
        batch *= 2;
        el = std::chrono::duration<double>(Clock::now() - t0).count();
    } while (el < min_s);
    return el * 1e9 / static_cast<double>(n);
}

double gbps(std::size_t bytes, double ns) {
    return static_cast<double>(bytes) * 8.0 / ns;  // bits per ns = Gb/s
}

void row(const char* what, std::size_t size, double ns) {
    const double g = gbps(size, ns);
    std::printf("  %-40s %10.1f ns/msg %8.1f Gb/s  (%5.2fx 100G, %5.2fx 200G, %5.2fx 400G)\n", what,
                ns, g, g / 100, g / 200, g / 400);
}

/// The receive path over a ring: per message, a simulated completion, the check with the
/// given verify fraction, counting and a receive descriptor write. Returns ns per message.
double receive_path(const stream::Patterns& pat, std::vector<std::byte>& ring, unsigned slots,
                    unsigned depth, double fraction, std::uint64_t& bad) {
    const std::size_t size = pat.size();
    struct Wqe {
        std::uint64_t addr, wr_id;
        std::uint32_t length, lkey;
    };
    std::vector<Wqe> rq(depth);
    // The sender's trailers for each message, as the NIC would write them: precomputed per
    // message modulo a period so that writing them is a 16-byte copy, not a hash.
    const unsigned period = slots * 64;
    std::vector<std::byte> trailers(std::size_t(period) * slot::kTrailerBytes);
    std::vector<std::byte> tx(size);
    for (unsigned m = 0; m < period; ++m) {
        pat.fill(tx, m % pat.depth());
        pat.stamp(tx, m);
        std::memcpy(trailers.data() + std::size_t(m) * slot::kTrailerBytes,
                    tx.data() + size - slot::kTrailerBytes, slot::kTrailerBytes);
    }
    slot::Sampler sampler(fraction, 12345);
    std::uint64_t verified = 0, good_bytes = 0;
    // Message n's payload is pattern n % depth; ring slot n % slots, slots a multiple of depth.
    for (unsigned j = 0; j < slots; ++j)
        pat.fill(std::span(ring).subspan(std::size_t(j) * size, size), j % pat.depth());
    const double ns = time_ns([&](std::uint64_t n) {
        n %= period;  // seqs repeat every period messages; the check only needs n % depth
        auto s = std::span(ring).subspan((n % slots) * size, size);
        std::memcpy(s.data() + size - slot::kTrailerBytes,
                    trailers.data() + n * slot::kTrailerBytes, slot::kTrailerBytes);  // "NIC"
        const bool full = sampler.next();
        const stream::Bad b = pat.check(s, n, size, full);
        verified += full;
        if (b == stream::Bad::none)
            good_bytes += size;
        else
            ++bad;
        Wqe& w = rq[n % depth];  // re-post for the slot recv_depth ahead
        w = {reinterpret_cast<std::uint64_t>(ring.data() + ((n + depth) % slots) * size), n + depth,
             static_cast<std::uint32_t>(size), 0};
    });
    g_sink = verified + good_bytes + rq[0].wr_id;
    return ns;
}

}  // namespace

int main() {
    const unsigned qd = 16;
    const unsigned slots = stream::ring_slots(qd), depth = stream::recv_depth(qd);
    std::printf(
        "rocehealth_data_path_bench: one core, queue depth %u (%u ring slots, %u receives "
        "posted); Gb/s = 10^9 bit/s\n",
        qd, slots, depth);
    for (std::size_t size : {std::size_t(4096), std::size_t(65536), std::size_t(1) << 20}) {
        std::printf("\nmessage %zu bytes (ring %zu KiB)\n", size, slots * size / 1024);
        stream::Patterns pat(size, qd, 7);
        std::vector<std::byte> ring(std::size_t(slots) * size);
        std::vector<std::byte> one(size);
        pat.fill(one, 0);
        pat.stamp(one, 0);
        const std::byte* body = one.data();
        const std::size_t n = size - slot::kTrailerBytes;
        const auto expect = pat.payload(0);

        std::printf(" checksum kernels over one payload (in cache):\n");
        row("FNV-1a-64 (layout 1, old)", size,
            time_ns([&](std::uint64_t) { g_sink = fnv1a(body, n); }, 0.15));
        row("xxh3-64 (layout 2)", size,
            time_ns([&](std::uint64_t) { g_sink = slot::payload_hash(one); }));
        row("CRC32C SSE4.2 _mm_crc32_u64", size,
            time_ns([&](std::uint64_t) { g_sink = crc32c(body, n); }));
        row("memcmp against expected copy", size,
            time_ns([&](std::uint64_t) { g_sink = std::memcmp(body, expect.data(), n); }));

        std::printf(" per message:\n");
        row("sender stamp (Patterns::stamp)", size,
            time_ns([&](std::uint64_t i) { pat.stamp(one, i * qd); }));
        pat.stamp(one, 0);
        row("latency probe: stamp+load_seq+verify", size, time_ns([&](std::uint64_t i) {
                const std::uint32_t seq = static_cast<std::uint32_t>(i + 1);
                slot::stamp(one, 7, seq);
                g_sink = slot::load_seq(one) + static_cast<int>(slot::verify(one, seq));
            }));
        std::uint64_t bad = 0;
        std::vector<std::byte> ring_fnv = ring;
        // The old receive path: FNV-1a over every slot (what slot::verify cost before).
        for (unsigned j = 0; j < slots; ++j)
            pat.fill(std::span(ring_fnv).subspan(std::size_t(j) * size, size), j % qd);
        row("receive, old FNV-1a verify of every slot", size,
            time_ns(
                [&](std::uint64_t i) { g_sink = fnv1a(ring_fnv.data() + (i % slots) * size, n); },
                0.15));
        row("receive, trailer only (fraction 0)", size,
            receive_path(pat, ring, slots, depth, 0.0, bad));
        const double def = slot::default_verify_fraction(size);
        char label[64];
        std::snprintf(label, sizeof label, "receive, default sampling (fraction %.2f)", def);
        row(label, size, receive_path(pat, ring, slots, depth, def, bad));
        row("receive, full verification (fraction 1)", size,
            receive_path(pat, ring, slots, depth, 1.0, bad));
        if (bad != 0) std::printf("  BUG: %llu bad slots\n", static_cast<unsigned long long>(bad));
    }
    return 0;
}
