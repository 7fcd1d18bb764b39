#include "probes/verbs/rc_connection.h"

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <random>

#include "probes/verbs/wc_status.h"

namespace rh {

namespace {

Result<verbs::ContextPtr> open_device(const std::string& name) {
    int n = 0;
    verbs::DeviceListPtr list(ibv_get_device_list(&n));
    if (!list) return errno_error("ibv_get_device_list", name);
    for (int i = 0; i < n; ++i) {
        if (name != ibv_get_device_name(list.get()[i])) continue;
        verbs::ContextPtr ctx(ibv_open_device(list.get()[i]));
        if (!ctx) return errno_error("ibv_open_device", name);
        return ctx;
    }
    return Error{"ibv_open_device", name, ENODEV, "not in ibv_get_device_list"};
}

Error modify_error(const char* step, int rc, const std::string& dev) {
    return Error{std::string("ibv_modify_qp(") + step + ")", dev, rc, ""};
}

}  // namespace

std::optional<ibv_mtu> mtu_from_bytes(unsigned bytes) {
    switch (bytes) {
        case 256:
            return IBV_MTU_256;
        case 512:
            return IBV_MTU_512;
        case 1024:
            return IBV_MTU_1024;
        case 2048:
            return IBV_MTU_2048;
        case 4096:
            return IBV_MTU_4096;
        default:
            return std::nullopt;
    }
}

unsigned mtu_to_bytes(int mtu) {
    switch (mtu) {
        case IBV_MTU_256:
            return 256;
        case IBV_MTU_512:
            return 512;
        case IBV_MTU_1024:
            return 1024;
        case IBV_MTU_2048:
            return 2048;
        case IBV_MTU_4096:
            return 4096;
        default:
            return 0;
    }
}

Result<unsigned> query_active_mtu(const std::string& device, unsigned port) {
    auto ctx = open_device(device);
    if (!ctx) return ctx.error();
    ibv_port_attr pa{};
    if (const int rc = ibv_query_port(ctx->get(), static_cast<std::uint8_t>(port), &pa); rc != 0)
        return Error{"ibv_query_port", device + " port " + std::to_string(port), rc, ""};
    return mtu_to_bytes(pa.active_mtu);
}

Result<std::unique_ptr<RcConnection>> RcConnection::open(const Config& cfg) {
    std::unique_ptr<RcConnection> c(new RcConnection());
    const std::string& dev = cfg.where.device;
    c->where_ = cfg.where;
    c->psn_ = std::random_device{}() & 0xFFFFFF;
    auto timeout = configured_qp_timeout();
    if (!timeout) return timeout.error();
    c->qp_timeout_ = *timeout;

    auto ctx = open_device(dev);
    if (!ctx) return ctx.error();
    c->ctx_ = std::move(*ctx);

    ibv_port_attr pa{};
    if (const int rc =
            ibv_query_port(c->ctx_.get(), static_cast<std::uint8_t>(cfg.where.port), &pa))
        return Error{"ibv_query_port", dev, rc, ""};
    c->active_mtu_ = mtu_to_bytes(pa.active_mtu);
    ibv_device_attr da{};
    if (const int rc = ibv_query_device(c->ctx_.get(), &da))
        return Error{"ibv_query_device", dev, rc, ""};
    c->rd_atomic_ = static_cast<unsigned>(std::max(
        1, std::min({static_cast<int>(kMaxRdAtomic), da.max_qp_rd_atom, da.max_qp_init_rd_atom})));

    c->pd_.reset(ibv_alloc_pd(c->ctx_.get()));
    if (!c->pd_) return errno_error("ibv_alloc_pd", dev);

    const std::size_t page = 4096;
    c->buf_len_ = cfg.buffer_bytes;
    const std::size_t alloc = (cfg.buffer_bytes + page - 1) / page * page;
    c->buf_.reset(static_cast<std::byte*>(std::aligned_alloc(page, alloc ? alloc : page)));
    if (!c->buf_) return Error{"aligned_alloc", dev, ENOMEM, std::to_string(alloc) + " bytes"};
    std::memset(c->buf_.get(), 0, alloc ? alloc : page);

    c->mr_.reset(ibv_reg_mr(c->pd_.get(), c->buf_.get(), cfg.buffer_bytes, cfg.mr_access));
    if (!c->mr_)
        return errno_error("ibv_reg_mr", dev,
                           std::to_string(cfg.buffer_bytes) + " bytes (memlock limit: ulimit -l?)");

    if (cfg.rnr_retry > kRnrRetryForever)
        return Error{"open", dev, EINVAL, "rnr_retry " + std::to_string(cfg.rnr_retry) + " > 7"};
    c->rnr_retry_ = cfg.rnr_retry;
    const unsigned max_recv_wr = std::max(1u, cfg.max_recv_wr);
    const int cqe = static_cast<int>(cfg.max_send_wr + max_recv_wr) + 4;
    c->cq_.reset(ibv_create_cq(c->ctx_.get(), cqe, nullptr, nullptr, 0));
    if (!c->cq_) return errno_error("ibv_create_cq", dev);

    ibv_qp_init_attr ia{};
    ia.send_cq = c->cq_.get();
    ia.recv_cq = c->cq_.get();
    ia.qp_type = IBV_QPT_RC;
    ia.sq_sig_all = 0;
    ia.cap.max_send_wr = cfg.max_send_wr;
    ia.cap.max_recv_wr = max_recv_wr;
    ia.cap.max_send_sge = 1;
    ia.cap.max_recv_sge = 1;
    c->qp_.reset(ibv_create_qp(c->pd_.get(), &ia));
    if (!c->qp_) return errno_error("ibv_create_qp", dev);

    ibv_qp_attr a{};
    a.qp_state = IBV_QPS_INIT;
    a.pkey_index = 0;
    a.port_num = static_cast<std::uint8_t>(cfg.where.port);
    a.qp_access_flags = cfg.mr_access & (IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_REMOTE_READ);
    if (const int rc = ibv_modify_qp(
            c->qp_.get(), &a, IBV_QP_STATE | IBV_QP_PKEY_INDEX | IBV_QP_PORT | IBV_QP_ACCESS_FLAGS))
        return modify_error("INIT", rc, dev);
    return c;
}

Status RcConnection::connect(const RemoteQp& remote, unsigned path_mtu_bytes, unsigned rd_atomic) {
    const std::string& dev = where_.device;
    const auto mtu = mtu_from_bytes(path_mtu_bytes);
    if (!mtu) return Error{"connect", dev, EINVAL, "path_mtu " + std::to_string(path_mtu_bytes)};
    ibv_qp_attr a{};
    a.qp_state = IBV_QPS_RTR;
    a.path_mtu = *mtu;
    a.dest_qp_num = remote.qpn;
    a.rq_psn = remote.psn;
    a.max_dest_rd_atomic = static_cast<std::uint8_t>(rd_atomic);
    a.min_rnr_timer = kMinRnrTimer;
    a.ah_attr.is_global = 1;
    std::memcpy(a.ah_attr.grh.dgid.raw, remote.gid.data(), 16);
    a.ah_attr.grh.sgid_index = static_cast<std::uint8_t>(where_.gid_index);
    a.ah_attr.grh.hop_limit = 64;
    a.ah_attr.port_num = static_cast<std::uint8_t>(where_.port);
    if (const int rc =
            ibv_modify_qp(qp_.get(), &a,
                          IBV_QP_STATE | IBV_QP_AV | IBV_QP_PATH_MTU | IBV_QP_DEST_QPN |
                              IBV_QP_RQ_PSN | IBV_QP_MAX_DEST_RD_ATOMIC | IBV_QP_MIN_RNR_TIMER))
        return modify_error("RTR", rc, dev);
    a = {};
    a.qp_state = IBV_QPS_RTS;
    a.timeout = static_cast<std::uint8_t>(qp_timeout_);
    a.retry_cnt = kQpRetryCnt;
    a.rnr_retry = static_cast<std::uint8_t>(rnr_retry_);
    a.sq_psn = psn_;
    a.max_rd_atomic = static_cast<std::uint8_t>(rd_atomic);
    if (const int rc =
            ibv_modify_qp(qp_.get(), &a,
                          IBV_QP_STATE | IBV_QP_TIMEOUT | IBV_QP_RETRY_CNT | IBV_QP_RNR_RETRY |
                              IBV_QP_SQ_PSN | IBV_QP_MAX_QP_RD_ATOMIC))
        return modify_error("RTS", rc, dev);
    return ok_status();
}

Status RcConnection::post(ibv_wr_opcode op, std::size_t local_off, std::uint64_t remote_addr,
                          std::uint32_t rkey, std::size_t len, std::uint64_t wr_id) {
    if (local_off > buf_len_ || len > buf_len_ - local_off)
        return Error{"ibv_post_send", where_.device, EINVAL, "local range outside the buffer"};
    if (!mr_) return Error{"ibv_post_send", where_.device, EINVAL, "the buffer was deregistered"};
    ibv_sge sge{};
    sge.addr = addr() + local_off;
    sge.length = static_cast<std::uint32_t>(len);
    sge.lkey = mr_->lkey;
    ibv_send_wr wr{};
    wr.wr_id = wr_id;
    wr.sg_list = &sge;
    wr.num_sge = 1;
    wr.opcode = op;
    wr.send_flags = IBV_SEND_SIGNALED;
    wr.wr.rdma.remote_addr = remote_addr;
    wr.wr.rdma.rkey = rkey;
    ibv_send_wr* bad = nullptr;
    if (const int rc = ibv_post_send(qp_.get(), &wr, &bad))
        return Error{"ibv_post_send", where_.device, rc, ""};
    return ok_status();
}

Status RcConnection::post_recv(std::size_t local_off, std::size_t len, std::uint64_t wr_id) {
    if (local_off > buf_len_ || len > buf_len_ - local_off)
        return Error{"ibv_post_recv", where_.device, EINVAL, "local range outside the buffer"};
    if (!mr_) return Error{"ibv_post_recv", where_.device, EINVAL, "the buffer was deregistered"};
    ibv_sge sge{};
    sge.addr = addr() + local_off;
    sge.length = static_cast<std::uint32_t>(len);
    sge.lkey = mr_->lkey;
    ibv_recv_wr wr{};
    wr.wr_id = wr_id;
    wr.sg_list = &sge;
    wr.num_sge = 1;
    ibv_recv_wr* bad = nullptr;
    if (const int rc = ibv_post_recv(qp_.get(), &wr, &bad))
        return Error{"ibv_post_recv", where_.device, rc, ""};
    return ok_status();
}

Result<int> RcConnection::poll(std::span<ibv_wc> out) {
    const int n = ibv_poll_cq(cq_.get(), static_cast<int>(out.size()), out.data());
    if (n < 0) return Error{"ibv_poll_cq", where_.device, EIO, ""};
    const ibv_wc* failed = nullptr;
    for (int i = 0; i < n; ++i) {
        if (out[i].status == IBV_WC_SUCCESS) continue;
        if (!failed ||
            (failed->status == IBV_WC_WR_FLUSH_ERR && out[i].status != IBV_WC_WR_FLUSH_ERR))
            failed = &out[i];
    }
    if (failed)
        return Error{"completion", where_.device, 0, describe_wc(*failed),
                     wc_status_name(failed->status)};
    return n;
}

}  // namespace rh
