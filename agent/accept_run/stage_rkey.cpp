#include "agent/accept_run/stages.h"
#include "probes/responder/rkey_revocation.h"

namespace rh::accept {

Stage run_rkey_stage(RunContext& cx) {
    Stage st = begin_stage(StageId::rkey_revocation, cx);
    const std::string self = cx.self_name();
    RkeyResults res;
    double wrong = 0;
    std::vector<std::string> not_run;  // attempts that could not run: not measured
    std::vector<std::string> ptr;
    nlohmann::json raw = nlohmann::json::array();
    const auto& hosts = cx.spec.hosts;
    for (std::size_t i = 0; i < hosts.size(); ++i)
        for (bool write : {true, false}) {
            if (cx.stopping()) break;  // each attempt takes about a second: not cut mid-way
            cx.progress.update("rkey_revocation", hosts[i].name + (write ? " write" : " read"),
                               100.0 * (2 * i + !write) / (2 * hosts.size()));
            RkeyOptions o;
            o.peer = hosts[i].address;
            o.write = write;
            o.device = cx.spec.device;
            o.gid_index = cx.spec.gid_index;
            RkeyAttempt a;
            a.src = self;
            a.dst = hosts[i].name;
            a.op = write ? "write" : "read";
            a.expected_status = "IBV_WC_REM_ACCESS_ERR";
            auto r = run_rkey_revocation(o);
            nlohmann::json entry{{"dst", a.dst}, {"op", a.op}};
            if (r) {
                a.got_status = r->got_status;
                entry["control_status"] = r->control_status;
                entry["got_status"] = r->got_status;
                entry["detail"] = r->detail;
            } else {
                a.got_status = "could not run: " + r.error().message();
                entry["error"] = r.error().message();
            }
            a.pass = a.got_status == a.expected_status;
            if (!r) {
                not_run.push_back(a.dst + " " + a.op + ": " + r.error().message());
            } else if (!a.pass) {
                ++wrong;
                ptr.push_back("/results/attempts/" + std::to_string(res.attempts.size()));
            }
            raw.push_back(std::move(entry));
            res.attempts.push_back(std::move(a));
        }
    if (cx.save("raw/rkey_revocation.json", raw.dump(2)))
        st.evidence_links.push_back(
            {"rkey revocation attempts (JSON)", "raw/rkey_revocation.json"});
    st.reason = "from " + (self.empty() ? std::string("this host") : self) +
                " to every host's responder: one READ with the valid rkey must succeed, then the "
                "MR is deregistered and the access must end IBV_WC_REM_ACCESS_ERR";
    st.criteria.push_back(make_criterion(
        "remote accesses with a revoked rkey that did not end IBV_WC_REM_ACCESS_ERR", "==", 0.0,
        "count", wrong, ptr.empty() ? std::vector<std::string>{"/results/attempts"} : ptr));
    if (!not_run.empty() && wrong == 0) {
        // Nothing wrong was seen, but not every access could be tried: incomplete, not a pass.
        st.criteria.clear();
        end_stage_in_error(
            st, cx, std::move(res),
            "could not run: " + not_run.front() +
                (not_run.size() > 1 ? " (and " + std::to_string(not_run.size() - 1) + " more)"
                                    : ""));
        return st;
    }
    finish_stage(st, cx, std::move(res));
    return st;
}

}  // namespace rh::accept
