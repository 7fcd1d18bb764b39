#include "collectors/sources/qos_sysfs.h"

#include <algorithm>

namespace rh {

namespace {

constexpr std::uint8_t kSelDscp = 5;  // IEEE_8021QAZ_APP_SEL_DSCP

// `ecn/<algo>/enable/<prio>` for prio 0..7: "1"/"0"; absent/garbage stays nullopt.
void read_enable(const SysfsRoot& sysfs, const std::string& dir,
                 std::array<std::optional<bool>, 8>& out) {
    for (unsigned p = 0; p < out.size(); ++p)
        if (auto v = sysfs.read_u64(dir + "/enable/" + std::to_string(p)); v && *v <= 1)
            out[p] = *v == 1;
}

}  // namespace

void trust_from_dcb(const std::optional<DcbConfig>& dcb, QosConfig& q) {
    if (!dcb) return;
    const auto n = std::count_if(dcb->apps.begin(), dcb->apps.end(),
                                 [](const DcbApp& a) { return a.selector == kSelDscp; });
    if (n > 0) {
        q.trust = "dscp";
        q.trust_source = "DCB APP table (selector 5 entries)";
    } else {
        q.trust = "pcp";
        q.trust_source = "DCB APP table (no selector 5 entries)";
    }
}

void read_qos(const SysfsRoot& sysfs, const std::string& ifname,
              const std::optional<DcbConfig>& dcb, QosConfig& q) {
    const std::string net = "class/net/" + ifname;
    if (auto t = sysfs.read_text(net + "/qos/trust"); t && !t->empty()) {
        q.trust = *t;
        q.trust_source = sysfs.path_text(net + "/qos/trust");
    } else {
        trust_from_dcb(dcb, q);
    }

    const std::string ecn = net + "/ecn";
    if (!sysfs.exists(ecn)) {
        q.ecn_source =
            "not exposed by this kernel (upstream): evidence is the runtime ECN/CNP counters";
        return;
    }
    q.ecn_source = sysfs.path_text(ecn);
    read_enable(sysfs, ecn + "/roce_rp", q.ecn_rp_enabled);
    read_enable(sysfs, ecn + "/roce_np", q.ecn_np_enabled);
}

}  // namespace rh
