#include "agent/daemon/healthz.h"

#include <algorithm>

namespace rh::agent {

HealthReply healthz(const BoardView& v, double now_s) {
    HealthReply r;
    r.body = {{"passes", v.passes}, {"devices", v.devices}};
    // Which host key this agent signs with: compare it with the known_hosts line clients hold.
    if (!v.host_key_fingerprint.empty()) r.body["host_key_fingerprint"] = v.host_key_fingerprint;
    if (v.last_pass_mono_s == 0) {
        r.body["status"] = "starting";
        r.status = 503;
        return r;
    }
    const double age = now_s - v.last_pass_mono_s;
    r.body["last_pass_age_s"] = age;
    if (age > std::max(3 * v.collect_interval_s, 10.0)) {
        r.body["status"] = "stale";
        r.status = 503;
    } else if (v.devices == 0) {
        r.body["status"] = "no_device";
        r.body["reason"] = "no RDMA device found at the last inventory (" + v.sysfs_root +
                           "/class/infiniband is empty)";
        r.status = 503;
    } else {
        r.body["status"] = "ok";
    }
    return r;
}

}  // namespace rh::agent
