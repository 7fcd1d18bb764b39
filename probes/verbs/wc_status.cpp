#include "probes/verbs/wc_status.h"

#include <cctype>

#include <cstdio>

namespace rh {

namespace {
struct StatusName {
    ibv_wc_status status;
    const char* name;
};
constexpr StatusName kNames[] = {
    {IBV_WC_SUCCESS, "IBV_WC_SUCCESS"},
    {IBV_WC_LOC_LEN_ERR, "IBV_WC_LOC_LEN_ERR"},
    {IBV_WC_LOC_QP_OP_ERR, "IBV_WC_LOC_QP_OP_ERR"},
    {IBV_WC_LOC_EEC_OP_ERR, "IBV_WC_LOC_EEC_OP_ERR"},
    {IBV_WC_LOC_PROT_ERR, "IBV_WC_LOC_PROT_ERR"},
    {IBV_WC_WR_FLUSH_ERR, "IBV_WC_WR_FLUSH_ERR"},
    {IBV_WC_MW_BIND_ERR, "IBV_WC_MW_BIND_ERR"},
    {IBV_WC_BAD_RESP_ERR, "IBV_WC_BAD_RESP_ERR"},
    {IBV_WC_LOC_ACCESS_ERR, "IBV_WC_LOC_ACCESS_ERR"},
    {IBV_WC_REM_INV_REQ_ERR, "IBV_WC_REM_INV_REQ_ERR"},
    {IBV_WC_REM_ACCESS_ERR, "IBV_WC_REM_ACCESS_ERR"},
    {IBV_WC_REM_OP_ERR, "IBV_WC_REM_OP_ERR"},
    {IBV_WC_RETRY_EXC_ERR, "IBV_WC_RETRY_EXC_ERR"},
    {IBV_WC_RNR_RETRY_EXC_ERR, "IBV_WC_RNR_RETRY_EXC_ERR"},
    {IBV_WC_LOC_RDD_VIOL_ERR, "IBV_WC_LOC_RDD_VIOL_ERR"},
    {IBV_WC_REM_INV_RD_REQ_ERR, "IBV_WC_REM_INV_RD_REQ_ERR"},
    {IBV_WC_REM_ABORT_ERR, "IBV_WC_REM_ABORT_ERR"},
    {IBV_WC_INV_EECN_ERR, "IBV_WC_INV_EECN_ERR"},
    {IBV_WC_INV_EEC_STATE_ERR, "IBV_WC_INV_EEC_STATE_ERR"},
    {IBV_WC_FATAL_ERR, "IBV_WC_FATAL_ERR"},
    {IBV_WC_RESP_TIMEOUT_ERR, "IBV_WC_RESP_TIMEOUT_ERR"},
    {IBV_WC_GENERAL_ERR, "IBV_WC_GENERAL_ERR"},
    {IBV_WC_TM_ERR, "IBV_WC_TM_ERR"},
    {IBV_WC_TM_RNDV_INCOMPLETE, "IBV_WC_TM_RNDV_INCOMPLETE"},
};
}  // namespace

std::string wc_status_name(int status) {
    for (const auto& n : kNames)
        if (static_cast<int>(n.status) == status) return n.name;
    return "IBV_WC_" + std::to_string(status);
}

std::string describe_wc(const ibv_wc& wc) {
    char tail[96];
    std::snprintf(tail, sizeof tail, "), wr_id %llu, vendor_err 0x%x",
                  static_cast<unsigned long long>(wc.wr_id), wc.vendor_err);
    return wc_status_name(wc.status) + " (" + ibv_wc_status_str(wc.status) + tail;
}

std::string cause_of(const Error& e) {
    if (!e.cause.empty()) return e.cause;
    if (e.err_no == ETIMEDOUT) return "timeout";
    return "other";
}

std::string wc_status_in_text(const std::string& text) {
    std::string best;
    for (const auto& n : kNames) {
        const std::string name = n.name;
        for (auto pos = text.find(name); pos != std::string::npos; pos = text.find(name, pos + 1)) {
            const auto end = pos + name.size();
            const bool token_end =
                end == text.size() ||
                !(std::isupper(static_cast<unsigned char>(text[end])) ||
                  std::isdigit(static_cast<unsigned char>(text[end])) || text[end] == '_');
            if (token_end && name.size() > best.size()) best = name;
        }
    }
    return best.empty() ? "other" : best;
}

}  // namespace rh
