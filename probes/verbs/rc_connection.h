// One RC queue pair with its registered buffer: open device -> PD -> buffer -> MR -> CQ -> QP
// (INIT), then connect() to a peer (RTR -> RTS). Members are declared in creation order so
// destruction releases QP, CQ, MR, buffer, PD, context in reverse on every path.
//
// Transport timers: timeout from configured_qp_timeout() (probes/verbs/qp_timeout.h; default 14 ->
// local ACK timeout 4.096 us * 2^14 = 67 ms); retry_cnt = 7 -> a dead peer gives
// IBV_WC_RETRY_EXC_ERR after about (7 + 1) * 67 ms = 0.54 s (hardware may round the timer up). RNR:
// a SEND that finds no receive WQE posted at the peer gets an RNR NAK carrying the PEER's
// min_rnr_timer (kMinRnrTimer = 12 -> 0.64 ms wait) and is retried Config::rnr_retry times (7 =
// forever, as the IB spec and perftest); then the SEND completes with IBV_WC_RNR_RETRY_EXC_ERR.
// WRITE and READ never meet RNR.
#pragma once

#include <array>
#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string>

#include <infiniband/verbs.h>

#include "core/result.h"
#include "core/verbs_handles.h"
#include "probes/verbs/device_select.h"
#include "probes/verbs/qp_timeout.h"
#include "probes/wire/probe_limits.h"

namespace rh {

inline constexpr unsigned kQpRetryCnt = 7;
inline constexpr unsigned kMaxRdAtomic = 16;
inline constexpr unsigned kMinRnrTimer = 12;                        ///< IB encoding: 12 = 0.64 ms
inline constexpr unsigned kRnrRetryForever = limits::kMaxRnrRetry;  ///< rnr_retry 7: no limit

/// What connect() needs to know about the other side (from the OOB handshake).
struct RemoteQp {
    std::uint32_t qpn = 0;
    std::uint32_t psn = 0;
    std::array<std::uint8_t, 16> gid{};
};

/// 256..4096 -> IBV_MTU_*, anything else -> nullopt.
std::optional<ibv_mtu> mtu_from_bytes(unsigned bytes);
/// IBV_MTU_* -> bytes (0 for an unknown value).
unsigned mtu_to_bytes(int mtu);

/// Opens `device` and returns the active_mtu of `port` in bytes (no PD/QP).
Result<unsigned> query_active_mtu(const std::string& device, unsigned port);

class RcConnection {
  public:
    struct Config {
        PortChoice where;
        std::uint64_t buffer_bytes = 0;
        int mr_access = 0;         ///< IBV_ACCESS_* for the probe buffer
        unsigned max_send_wr = 2;  ///< outstanding send-queue work requests
        unsigned max_recv_wr = 1;  ///< outstanding receive WQEs (>= 1; the CQ holds both)
        unsigned rnr_retry = kRnrRetryForever;  ///< 0..7, retries of a SEND after an RNR NAK
    };
    /// Errors name the verbs call and device; also an invalid ROCEHEALTH_QP_TIMEOUT.
    static Result<std::unique_ptr<RcConnection>> open(const Config& cfg);

    std::uint32_t qpn() const { return qp_->qp_num; }
    std::uint32_t psn() const { return psn_; }
    std::uint32_t rkey() const { return mr_->rkey; }
    std::uint64_t addr() const { return reinterpret_cast<std::uintptr_t>(mr_->addr); }
    std::span<std::byte> buffer() { return {buf_.get(), buf_len_}; }
    unsigned active_mtu_bytes() const { return active_mtu_; }
    /// Local ACK timeout (IB encoding) connect() sets: configured_qp_timeout() at open().
    unsigned qp_timeout() const { return qp_timeout_; }
    /// Outstanding RDMA READs this device supports as initiator and target (<= kMaxRdAtomic).
    unsigned rd_atomic() const { return rd_atomic_; }
    const PortChoice& where() const { return where_; }

    /// Deregisters the buffer's MR (ibv_dereg_mr) while the QP stays up: remote accesses with
    /// the old rkey then fail (IBV_WC_REM_ACCESS_ERR at the requester). For the rkey revocation
    /// test (probes/responder/rkey_revocation.h); rkey() and addr() must not be called afterwards,
    /// and posts that use the buffer fail.
    void deregister_buffer() { mr_.reset(); }

    /// INIT -> RTR -> RTS. `rd_atomic` is used for both max_rd_atomic and max_dest_rd_atomic.
    Status connect(const RemoteQp& remote, unsigned path_mtu_bytes, unsigned rd_atomic);

    /// Posts one signaled RDMA WRITE or READ of `len` bytes between buffer()[local_off] and
    /// remote_addr, or a SEND of buffer()[local_off, +len) (remote_addr and rkey unused).
    Status post(ibv_wr_opcode op, std::size_t local_off, std::uint64_t remote_addr,
                std::uint32_t rkey, std::size_t len, std::uint64_t wr_id);

    /// Posts one receive WQE for up to `len` bytes at buffer()[local_off].
    Status post_recv(std::size_t local_off, std::size_t len, std::uint64_t wr_id);

    /// Non-blocking poll of up to out.size() completions. An error completion becomes an Error
    /// whose detail names the status (see describe_wc); when a batch holds several, the first
    /// that is not IBV_WC_WR_FLUSH_ERR (flushes only follow the error that broke the QP).
    Result<int> poll(std::span<ibv_wc> out);

  private:
    RcConnection() = default;
    struct FreeDeleter {
        void operator()(std::byte* p) const { std::free(p); }
    };

    PortChoice where_;
    std::uint32_t psn_ = 0;
    unsigned active_mtu_ = 0;
    unsigned rd_atomic_ = 1;
    unsigned rnr_retry_ = kRnrRetryForever;
    unsigned qp_timeout_ = kQpTimeout;
    std::uint64_t buf_len_ = 0;
    // Creation order; destroyed in reverse.
    verbs::ContextPtr ctx_;
    verbs::PdPtr pd_;
    std::unique_ptr<std::byte, FreeDeleter> buf_;
    verbs::MrPtr mr_;
    verbs::CqPtr cq_;
    verbs::QpPtr qp_;
};

}  // namespace rh
