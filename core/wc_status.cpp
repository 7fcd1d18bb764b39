#include "core/wc_status.h"

#include <infiniband/mlx5dv.h>
#include <infiniband/verbs.h>

#include <algorithm>
#include <cctype>
#include <iterator>

namespace rh {

namespace {

struct StatusName {
    const char* name;
    ibv_wc_status status;
};

// The enum's spelling; the numbers are the header's.
constexpr StatusName kStatusNames[] = {
    {"IBV_WC_SUCCESS", IBV_WC_SUCCESS},
    {"IBV_WC_LOC_LEN_ERR", IBV_WC_LOC_LEN_ERR},
    {"IBV_WC_LOC_QP_OP_ERR", IBV_WC_LOC_QP_OP_ERR},
    {"IBV_WC_LOC_EEC_OP_ERR", IBV_WC_LOC_EEC_OP_ERR},
    {"IBV_WC_LOC_PROT_ERR", IBV_WC_LOC_PROT_ERR},
    {"IBV_WC_WR_FLUSH_ERR", IBV_WC_WR_FLUSH_ERR},
    {"IBV_WC_MW_BIND_ERR", IBV_WC_MW_BIND_ERR},
    {"IBV_WC_BAD_RESP_ERR", IBV_WC_BAD_RESP_ERR},
    {"IBV_WC_LOC_ACCESS_ERR", IBV_WC_LOC_ACCESS_ERR},
    {"IBV_WC_REM_INV_REQ_ERR", IBV_WC_REM_INV_REQ_ERR},
    {"IBV_WC_REM_ACCESS_ERR", IBV_WC_REM_ACCESS_ERR},
    {"IBV_WC_REM_OP_ERR", IBV_WC_REM_OP_ERR},
    {"IBV_WC_RETRY_EXC_ERR", IBV_WC_RETRY_EXC_ERR},
    {"IBV_WC_RNR_RETRY_EXC_ERR", IBV_WC_RNR_RETRY_EXC_ERR},
    {"IBV_WC_LOC_RDD_VIOL_ERR", IBV_WC_LOC_RDD_VIOL_ERR},
    {"IBV_WC_REM_INV_RD_REQ_ERR", IBV_WC_REM_INV_RD_REQ_ERR},
    {"IBV_WC_REM_ABORT_ERR", IBV_WC_REM_ABORT_ERR},
    {"IBV_WC_INV_EECN_ERR", IBV_WC_INV_EECN_ERR},
    {"IBV_WC_INV_EEC_STATE_ERR", IBV_WC_INV_EEC_STATE_ERR},
    {"IBV_WC_FATAL_ERR", IBV_WC_FATAL_ERR},
    {"IBV_WC_RESP_TIMEOUT_ERR", IBV_WC_RESP_TIMEOUT_ERR},
    {"IBV_WC_GENERAL_ERR", IBV_WC_GENERAL_ERR},
    {"IBV_WC_TM_ERR", IBV_WC_TM_ERR},
    {"IBV_WC_TM_RNDV_INCOMPLETE", IBV_WC_TM_RNDV_INCOMPLETE},
};

struct Syndrome {
    const char* name;
    std::uint32_t syndrome;
    ibv_wc_status status;  // what the mlx5 provider reports it as (providers/mlx5/cq.c)
};

constexpr Syndrome kSyndromes[] = {
    {"LOCAL_LENGTH_ERR", MLX5_CQE_SYNDROME_LOCAL_LENGTH_ERR, IBV_WC_LOC_LEN_ERR},
    {"LOCAL_QP_OP_ERR", MLX5_CQE_SYNDROME_LOCAL_QP_OP_ERR, IBV_WC_LOC_QP_OP_ERR},
    {"LOCAL_PROT_ERR", MLX5_CQE_SYNDROME_LOCAL_PROT_ERR, IBV_WC_LOC_PROT_ERR},
    {"WR_FLUSH_ERR", MLX5_CQE_SYNDROME_WR_FLUSH_ERR, IBV_WC_WR_FLUSH_ERR},
    {"MW_BIND_ERR", MLX5_CQE_SYNDROME_MW_BIND_ERR, IBV_WC_MW_BIND_ERR},
    {"BAD_RESP_ERR", MLX5_CQE_SYNDROME_BAD_RESP_ERR, IBV_WC_BAD_RESP_ERR},
    {"LOCAL_ACCESS_ERR", MLX5_CQE_SYNDROME_LOCAL_ACCESS_ERR, IBV_WC_LOC_ACCESS_ERR},
    {"REMOTE_INVAL_REQ_ERR", MLX5_CQE_SYNDROME_REMOTE_INVAL_REQ_ERR, IBV_WC_REM_INV_REQ_ERR},
    {"REMOTE_ACCESS_ERR", MLX5_CQE_SYNDROME_REMOTE_ACCESS_ERR, IBV_WC_REM_ACCESS_ERR},
    {"REMOTE_OP_ERR", MLX5_CQE_SYNDROME_REMOTE_OP_ERR, IBV_WC_REM_OP_ERR},
    {"TRANSPORT_RETRY_EXC_ERR", MLX5_CQE_SYNDROME_TRANSPORT_RETRY_EXC_ERR, IBV_WC_RETRY_EXC_ERR},
    {"RNR_RETRY_EXC_ERR", MLX5_CQE_SYNDROME_RNR_RETRY_EXC_ERR, IBV_WC_RNR_RETRY_EXC_ERR},
    {"REMOTE_ABORTED_ERR", MLX5_CQE_SYNDROME_REMOTE_ABORTED_ERR, IBV_WC_REM_ABORT_ERR},
};

bool iequal(std::string_view a, std::string_view b) {
    return a.size() == b.size() && std::equal(a.begin(), a.end(), b.begin(), [](char x, char y) {
               return std::tolower(static_cast<unsigned char>(x)) ==
                      std::tolower(static_cast<unsigned char>(y));
           });
}

}  // namespace

std::string wc_status_name(int status) {
    for (const auto& s : kStatusNames)
        if (static_cast<int>(s.status) == status) return s.name;
    return "IBV_WC_" + std::to_string(status);
}

std::string wc_status_words(int status) {
    const bool known = std::any_of(std::begin(kStatusNames), std::end(kStatusNames),
                                   [&](const StatusName& s) { return s.status == status; });
    if (!known) return "unknown status " + std::to_string(status);
    return ibv_wc_status_str(static_cast<ibv_wc_status>(status));
}

std::optional<int> wc_status_from_name(std::string_view name) {
    for (const auto& s : kStatusNames)
        if (name == s.name) return static_cast<int>(s.status);
    return std::nullopt;
}

std::optional<int> wc_status_from_words(std::string_view words) {
    for (const auto& s : kStatusNames)
        if (iequal(words, ibv_wc_status_str(s.status))) return static_cast<int>(s.status);
    return std::nullopt;
}

std::optional<int> wc_status_of_mlx5_syndrome(std::uint32_t syndrome) {
    for (const auto& s : kSyndromes)
        if (s.syndrome == syndrome) return static_cast<int>(s.status);
    return std::nullopt;
}

std::string mlx5_syndrome_name(std::uint32_t syndrome) {
    for (const auto& s : kSyndromes)
        if (s.syndrome == syndrome) return s.name;
    return {};
}

}  // namespace rh
