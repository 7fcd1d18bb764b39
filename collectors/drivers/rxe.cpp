// Soft-RoCE (rxe): software atomic64 counters, per port. Names from
// drivers/infiniband/sw/rxe/rxe_hw_counters.c.
// rxe has no netdev-side table: the netdev is whatever it is bound to (virtio, mlx5e, ...).
#include "collectors/drivers/table.h"

namespace rh {

namespace {

using namespace nt;

constexpr MapEntry kRxe[] = {
    hw("roce_rx_packets", "rcvd_pkts", "packets"),
    hw("roce_tx_packets", "sent_pkts", "packets"),
    hw("rnr_nak_received", "rcvd_rnr_err", "packets"),
    hw("rnr_nak_sent", "send_rnr_err", "packets"),
    hw("sequence_errors", "rcvd_seq_err", "packets"),
    hw("out_of_sequence", "out_of_seq_request", "packets"),
    hw("duplicate_requests", "duplicate_request", "packets"),
    hw("retry_exceeded", "retry_exceeded_err", "events"),
    hw("rnr_retry_exceeded", "retry_rnr_exceeded_err", "events"),
    hw("link_down_events", "link_downed", "events"),
    // no equivalent: ECN/CNP (rxe has no congestion control), ack_timeouts
    // (completer_retry_err also counts NAK-driven retries), PFC/pause, bytes
};

// Matching: kernel names rxe<n>; a renamed rxe has no PCI device but a `parent` link and the
// rxe-only counter rcvd_rnr_err. rxe binds to any netdev, so it brings no netdev rows.
constexpr std::string_view kRxePrefixes[] = {"rxe"};

}  // namespace

extern const Driver rxe_driver;
constinit const Driver rxe_driver{
    .name = "rxe",
    .table = kRxe,
    .rdma_name_prefixes = kRxePrefixes,
    .own_netdev = false,
    .renamed_device =
        [](const SysfsRoot& sysfs, const std::string& dir) {
            return sysfs.exists(dir + "/parent") &&
                   sysfs.exists(dir + "/ports/1/hw_counters/rcvd_rnr_err");
        },
};

}  // namespace rh
