// Names for ibv_wc_status values ("IBV_WC_RETRY_EXC_ERR") and a one-line description of a failed
// work completion, for error reports.
#pragma once

#include <string>

#include <infiniband/verbs.h>

namespace rh {

/// "IBV_WC_REM_ACCESS_ERR"; "IBV_WC_<n>" for a value this build does not know.
std::string wc_status_name(int status);

/// "IBV_WC_RETRY_EXC_ERR (transport retry counter exceeded), wr_id 17, vendor_err 0x81"
std::string describe_wc(const ibv_wc& wc);

/// The completion status a phase error names (describe_wc puts it there): the longest
/// IBV_WC_* name of this build found as a whole token in `error_text`, e.g.
/// "IBV_WC_RNR_RETRY_EXC_ERR"; "timeout" for a wait that expired without a completion;
/// "other" otherwise (a closed control connection, a checksum failure).
std::string wc_status_of_error(const std::string& error_text);

}  // namespace rh
