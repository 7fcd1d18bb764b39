// RoCE MTU arithmetic. Pure, unit-tested.
#pragma once

#include <optional>

namespace rh {

/// Per-packet RoCE v2 overhead the kernel subtracts from the netdev MTU (iboe_get_mtu in
/// include/rdma/ib_addr.h): GRH 40 + UDP 8 + BTH 12 + XRC ext 4 + AtomicETH 28 + ICRC 4 bytes.
inline constexpr unsigned kRoceHeaderBytes = 96;
/// Largest IB MTU, bytes (IBV_MTU_4096).
inline constexpr unsigned kMaxIbMtuBytes = 4096;
/// Netdev MTU that yields the largest IB MTU: 4096 + 96.
inline constexpr unsigned kNetdevMtuFor4096 = kMaxIbMtuBytes + kRoceHeaderBytes;

/// Largest IB MTU (256..4096 bytes) that fits in a netdev MTU: 1500 → 1024, 2200 → 2048,
/// ≥ 4192 → 4096; nullopt below 352 bytes. (rxe subtracts 80 bytes instead of 96, which only
/// differs for netdev MTUs 336-351, 592-607, 1104-1119, 2128-2143 and 4176-4191.)
std::optional<unsigned> ib_mtu_for_netdev_mtu(unsigned netdev_mtu_bytes);

}  // namespace rh
