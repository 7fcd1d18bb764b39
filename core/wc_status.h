// Work completion statuses and mlx5 CQE syndromes by number, name and words, from rdma-core's
// own headers (enum ibv_wc_status in infiniband/verbs.h, MLX5_CQE_SYNDROME_* in
// infiniband/mlx5dv.h), so the numbers are the library's, not a copied list.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace rh {

/// "IBV_WC_REM_ACCESS_ERR"; "IBV_WC_<n>" for a value this build does not know.
std::string wc_status_name(int status);

/// The status in words as rdma-core prints it (ibv_wc_status_str: 12 -> "transport retry counter
/// exceeded"); "unknown status N" outside the enum.
std::string wc_status_words(int status);

/// The status number of an enum name as NCCL >= 2.29 and newer perftest print it
/// ("IBV_WC_RETRY_EXC_ERR" -> 12); nullopt for a name the enum does not have.
std::optional<int> wc_status_from_name(std::string_view name);

/// The status number of rdma-core's words ("transport retry counter exceeded" -> 12, as UCX and
/// perftest print them; case-insensitive); nullopt for words no status has.
std::optional<int> wc_status_from_words(std::string_view words);

/// The ibv_wc_status an mlx5 CQE syndrome is reported as (0x15 -> 12, 0x16 -> 13, 0x05 -> 5),
/// as the mlx5 provider maps them; nullopt for a syndrome outside MLX5_CQE_SYNDROME_*.
std::optional<int> wc_status_of_mlx5_syndrome(std::uint32_t syndrome);

/// The MLX5_CQE_SYNDROME_* name without its prefix ("TRANSPORT_RETRY_EXC_ERR"), "" if unknown.
std::string mlx5_syndrome_name(std::uint32_t syndrome);

}  // namespace rh
