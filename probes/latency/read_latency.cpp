// RDMA READ latency (as perftest's ib_read_lat): time from ibv_post_send to the completion being
// polled, on the client alone ("post to completion"). Up to queue_depth READs are outstanding;
// with depth > 1 each latency includes queueing behind earlier READs. The client clears each
// slot's trailer before reading into it and verifies seq + checksum after the completion.
#include <sched.h>

#include <array>
#include <chrono>
#include <cstring>

#include "probes/latency/latency_phases.h"
#include "probes/wire/slot.h"

namespace rh {

namespace {
using Clock = std::chrono::steady_clock;
}

void fill_read_slots(std::span<std::byte> buffer, const PhaseSpec& p) {
    for (unsigned j = 0; j < p.queue_depth; ++j) {
        auto s = buffer.subspan(j * p.size, p.size);
        const std::uint32_t seq = p.seq_base + j;
        slot::stamp(s, slot::fill_payload(s, seq), seq);
    }
}

PhaseResult read_client(RcConnection& c, const RemoteBuffer& peer, const PhaseSpec& p) {
    PhaseResult r;
    r.samples_us.reserve(p.count);
    const unsigned q = p.queue_depth;
    auto buf = c.buffer();
    std::vector<Clock::time_point> posted_at(q);
    std::uint32_t posted = 0, done = 0;
    Clock::time_point start{}, end{};
    auto deadline = Clock::now() + std::chrono::milliseconds(p.timeout_ms);
    std::array<ibv_wc, 16> wc{};
    auto next_check = Clock::now();
    while (done < p.count) {
        while (posted < p.count && posted - done < q) {
            const unsigned j = posted % q;
            slot::clear_trailer(buf.subspan(j * p.size, p.size));
            posted_at[j] = Clock::now();
            if (posted == p.warmup) start = posted_at[j];
            if (auto s = c.post(IBV_WR_RDMA_READ, j * p.size, peer.addr + j * p.size, peer.rkey,
                                p.size, posted);
                !s) {
                r.fail("READ", p, posted, s.error());
                return r;
            }
            ++posted;
        }
        auto n = c.poll(wc);
        if (!n) {
            r.fail("READ", p, done, n.error());
            return r;
        }
        const auto now = Clock::now();
        if (*n == 0) {
            sched_yield();  // see write_latency.cpp: lets Soft-RoCE's kernel work run
            if (now >= next_check) {
                next_check = now + std::chrono::milliseconds(5);
                if (auto e = control_closed(p, "READ", done)) {
                    r.fail("READ", p, done, *e);
                    return r;
                }
            }
            if (now > deadline) {
                r.fail("READ", p, done,
                       Error{"wait", "READ completion", ETIMEDOUT,
                             "none within " + std::to_string(p.timeout_ms) + " ms"});
                return r;
            }
            continue;
        }
        deadline = now + std::chrono::milliseconds(p.timeout_ms);
        for (int i = 0; i < *n; ++i) {
            const std::uint64_t id = wc[i].wr_id;
            const unsigned j = static_cast<unsigned>(id % q);
            if (id >= p.warmup) {
                r.samples_us.push_back(
                    std::chrono::duration<double, std::micro>(now - posted_at[j]).count());
                end = now;
            }
            if (slot::verify(buf.subspan(j * p.size, p.size), p.seq_base + j) != slot::Check::ok)
                ++r.checksum_errors;
            ++done;
        }
    }
    if (!r.samples_us.empty()) r.wall_seconds = std::chrono::duration<double>(end - start).count();
    return r;
}

}  // namespace rh
