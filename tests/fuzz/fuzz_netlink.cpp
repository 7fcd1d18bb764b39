// libFuzzer harness: the kernel's answers the collectors decode — DCB (DCB_CMD_IEEE_GET), RDMA
// netlink statistics, ethtool netlink pause statistics, ETHTOOL_GSTRINGS/GSTATS pairs, and the
// netlink attribute walk under them — plus `ethtool -S` text. The kernel is trusted more than a
// peer, but a driver's bug or a new kernel's layout must not crash the agent. The first byte
// picks the decoder, the rest is the payload.
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <span>
#include <string_view>
#include <vector>

#include "collectors/netlink/nl_raw.h"
#include "collectors/sources/dcb_netlink.h"
#include "collectors/sources/ethtool_pause.h"
#include "collectors/sources/ethtool_stats.h"
#include "collectors/sources/rdma_netlink.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    if (size < 1) return 0;
    const std::span<const std::uint8_t> payload(data + 1, size - 1);
    switch (data[0] % 6) {
        case 0:
            (void)rh::parse_dcb_ieee_reply(payload, "fuzz");
            break;
        case 1:
            (void)rh::parse_rdma_stat_reply(payload, "fuzz");
            break;
        case 2:
            (void)rh::parse_pause_reply(payload, "fuzz");
            break;
        case 3: {
            // Names and values split as the two ioctls return them: n x 32 name bytes, n x u64.
            const std::size_t n = payload.size() / (rh::kEthGstringLen + 8);
            std::vector<std::uint64_t> values(n);
            if (n) std::memcpy(values.data(), payload.data() + n * rh::kEthGstringLen, n * 8);
            (void)rh::parse_ethtool_gstats(payload.first(n * rh::kEthGstringLen), values, "fuzz");
            break;
        }
        case 4: {
            bool malformed = false;
            (void)rh::nl::attrs(payload, &malformed);
            break;
        }
        default:
            (void)rh::parse_ethtool_text(
                std::string_view(reinterpret_cast<const char*>(payload.data()), payload.size()),
                "fuzz");
    }
    return 0;
}
