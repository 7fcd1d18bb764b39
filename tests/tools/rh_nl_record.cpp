// rh_nl_record: dumps a live netlink reply payload as hex (nl::from_hex format) to record
// replay fixtures under tests/fixtures/recordings/.
//   rh_nl_record rdma <dev> <port>   RDMA_NLDEV_CMD_STAT_GET reply (attributes)
//   rh_nl_record dcb <ifname>        RTM_GETDCB DCB_CMD_IEEE_GET reply (dcbmsg + attributes)
#include <cstdio>
#include <cstdlib>
#include <string>

#include "collectors/sources/dcb_netlink.h"
#include "collectors/sources/rdma_netlink.h"

int main(int argc, char** argv) {
    const std::string what = argc > 1 ? argv[1] : "";
    rh::Result<rh::nl::Bytes> payload =
        rh::Error{"usage", {}, 0, "rh_nl_record rdma <dev> <port> | rh_nl_record dcb <ifname>"};
    std::string title;
    if (what == "rdma" && argc == 4) {
        const unsigned port = static_cast<unsigned>(std::strtoul(argv[3], nullptr, 10));
        payload = rh::make_rdma_netlink_source()->stat_get(argv[2], port);
        title =
            std::string("RDMA_NLDEV_CMD_STAT_GET reply payload, ") + argv[2] + " port " + argv[3];
    } else if (what == "dcb" && argc == 3) {
        payload = rh::make_dcb_netlink_source()->ieee_get(argv[2]);
        title = std::string("RTM_GETDCB DCB_CMD_IEEE_GET reply payload, ") + argv[2];
    }
    if (!payload) {
        std::fprintf(stderr, "rh_nl_record: %s\n", payload.error().message().c_str());
        return 1;
    }
    std::printf("# %s (recorded by tests/tools/rh_nl_record)\n%s", title.c_str(),
                rh::nl::to_hex(*payload).c_str());
    return 0;
}
