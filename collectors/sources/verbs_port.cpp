#include "collectors/sources/verbs_port.h"

#include <cerrno>
#include <cstring>

#include <infiniband/verbs.h>

#include "core/inventory/parse.h"
#include "core/verbs_handles.h"

namespace rh {

namespace {

std::vector<VerbsPort> all_unavailable(std::size_t n, const std::string& why) {
    VerbsPort v;
    v.unavailable = why;
    return std::vector<VerbsPort>(n, v);
}

}  // namespace

std::vector<VerbsPort> query_verbs_ports(const std::string& dev,
                                         const std::vector<unsigned>& ports) {
    int n = 0;
    verbs::DeviceListPtr list(ibv_get_device_list(&n));
    if (!list)
        return all_unavailable(ports.size(),
                               std::string("ibv_get_device_list: ") + std::strerror(errno));
    ibv_device* found = nullptr;
    for (int i = 0; i < n; ++i)
        if (dev == ibv_get_device_name(list.get()[i])) found = list.get()[i];
    if (!found)
        return all_unavailable(ports.size(),
                               "no verbs device named " + dev + " (ibv_get_device_list)");
    verbs::ContextPtr ctx(ibv_open_device(found));
    if (!ctx)
        return all_unavailable(ports.size(),
                               "ibv_open_device(" + dev + "): " + std::strerror(errno));
    std::vector<VerbsPort> out;
    for (unsigned p : ports) {
        VerbsPort v;
        ibv_port_attr attr{};
        if (int e = ibv_query_port(ctx.get(), static_cast<uint8_t>(p), &attr); e != 0) {
            v.unavailable =
                "ibv_query_port(" + dev + ", " + std::to_string(p) + "): " + std::strerror(e);
        } else {
            v.active_mtu_bytes = ibv_mtu_to_bytes(attr.active_mtu);
            v.max_mtu_bytes = ibv_mtu_to_bytes(attr.max_mtu);
        }
        out.push_back(std::move(v));
    }
    return out;
}

}  // namespace rh
