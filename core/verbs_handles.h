// Owner types for every verbs object rocehealth creates. The ONLY place where ibv_destroy_*,
// ibv_dealloc_*, ibv_dereg_*, ibv_close_device and ibv_free_device_list are called. Deleters log
// a non-zero return (e.g. EBUSY from ibv_dealloc_pd while children exist) to stderr.
// Users declare members in creation order (context -> pd -> buffer -> mr -> cq -> qp) so that
// destruction runs in reverse automatically.
#pragma once

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <memory>

#include <infiniband/verbs.h>

namespace rh::verbs {

namespace detail {
inline void report(const char* what, int rc) {
    if (rc != 0) std::fprintf(stderr, "rocehealth: %s failed: %s\n", what, std::strerror(rc));
}
}  // namespace detail

struct DeviceListDeleter {
    void operator()(ibv_device** l) const { ibv_free_device_list(l); }
};
struct ContextDeleter {
    // Unlike the others, ibv_close_device returns -1 and sets errno (ibv_open_device(3)).
    void operator()(ibv_context* c) const {
        if (ibv_close_device(c) != 0) detail::report("ibv_close_device", errno);
    }
};
struct PdDeleter {
    void operator()(ibv_pd* p) const { detail::report("ibv_dealloc_pd", ibv_dealloc_pd(p)); }
};
struct MrDeleter {
    void operator()(ibv_mr* m) const { detail::report("ibv_dereg_mr", ibv_dereg_mr(m)); }
};
struct CompChannelDeleter {
    void operator()(ibv_comp_channel* c) const {
        detail::report("ibv_destroy_comp_channel", ibv_destroy_comp_channel(c));
    }
};
struct CqDeleter {
    void operator()(ibv_cq* c) const { detail::report("ibv_destroy_cq", ibv_destroy_cq(c)); }
};
struct QpDeleter {
    void operator()(ibv_qp* q) const { detail::report("ibv_destroy_qp", ibv_destroy_qp(q)); }
};

using DeviceListPtr = std::unique_ptr<ibv_device*, DeviceListDeleter>;
using ContextPtr = std::unique_ptr<ibv_context, ContextDeleter>;
using PdPtr = std::unique_ptr<ibv_pd, PdDeleter>;
using MrPtr = std::unique_ptr<ibv_mr, MrDeleter>;
using CompChannelPtr = std::unique_ptr<ibv_comp_channel, CompChannelDeleter>;
using CqPtr = std::unique_ptr<ibv_cq, CqDeleter>;
using QpPtr = std::unique_ptr<ibv_qp, QpDeleter>;

}  // namespace rh::verbs
