#include "probes/verbs/wc_status.h"

#include <cctype>

#include <cstdio>

namespace rh {

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
    for (int status = IBV_WC_SUCCESS; status <= IBV_WC_TM_RNDV_INCOMPLETE; ++status) {
        const std::string name = wc_status_name(status);
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
