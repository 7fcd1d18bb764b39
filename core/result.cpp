#include "core/result.h"

#include <cstring>

namespace rh {

std::string Error::message() const {
    std::string m = op;
    if (!subject.empty()) m += (m.empty() ? "" : " ") + subject;
    if (err_no != 0) m += std::string(m.empty() ? "" : ": ") + std::strerror(err_no);
    if (!detail.empty()) m += (m.empty() ? "" : ": ") + detail;
    return m;
}

Error errno_error(std::string op, std::string subject, std::string detail) {
    return Error{std::move(op), std::move(subject), errno, std::move(detail)};
}

}  // namespace rh
