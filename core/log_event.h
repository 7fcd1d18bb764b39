// LogEvent: one line of a job's or the kernel's log that says something about RDMA — a work
// completion with an error (NCCL, UCX, perftest), an async event, a link going down, a PCIe error
// — with what the line names: its time, device, port, peer and status. Produced by the log
// readers (collectors/joblog), placed on hosts and in time by agent/replay, kept by the store and
// joined with the counters by the log rules (rules/joblog). Lines that are recognised but cannot
// be placed in time keep clock "order" and are listed, never dropped.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>

#include <nlohmann/json.hpp>

namespace rh {

/// What a log line's time stamp is.
enum class LogClock {
    wall,   ///< UTC seconds since the epoch (UCX's "[1698765432.123456]", an ISO stamp with zone)
    local,  ///< wall-clock reading without a zone ("dmesg -T", NCCL >= 2.26 "[date time]",
            ///< journalctl "Jan 14 16:20:05"): seconds since the epoch as if UTC
    boot,   ///< seconds since boot (dmesg "[ 1234.567890]")
    order,  ///< no time: only the line's order in its file
};
const char* to_string(LogClock c);

/// Kinds of LogEvent::kind, one word each, so rules and reports switch on them:
///  completion_error  a work completion with an error status (NCCL "Got completion", UCX "<error>
///                    on mlx5_0:1/RoCE", perftest "Completion with error", bnxt/irdma verbs)
///  async_event       an RDMA async event (port error, GID table changed, QP/CQ/device fatal)
///  call_failed       a verbs call failed (NCCL misc/ibvwrap.cc "ibv_modify_qp failed")
///  connect_failed    a connection could not be made (perftest "Couldn't connect to", UCX
///                    "connection refused"/"Destination is unreachable")
///  setting           a setting the job printed (LogEvent::settings: NCCL_IB_TC=106, ...)
///  using_device      the devices the job chose ("NET/IB : Using [0]mlx5_0:1/RoCE ...")
///  qp_info           the QP a UCX error dump prints after the error (dgid, tc, sgid_index)
///  slow_result       a perftest result line far below the link rate (value in `value`, Gb/s)
///  link_down, link_up        the kernel's link messages (mlx5_core, bnxt_en, ice, irdma)
///  module_plugged, module_unplugged  mlx5 "Port module event: module N, Cable plugged"
///  insufficient_power        mlx5 "Detected insufficient power on the PCIe slot" (alone benign)
///  temperature               a NIC temperature warning
///  command_timeout           mlx5 firmware command timeouts ("wait_func ... timeout")
///  aer_corrected, aer_uncorrected   PCIe AER messages (both the pre- and post-6.8 wording)
///  process_killed    the kernel killed or lost a process (OOM kill, segfault)
///  gpu_error         an NVIDIA Xid line ("NVRM: Xid (PCI:0000:3b:00): 79, ...")
///  driver_message    another RDMA driver message worth listing (irdma, firmware reset)
struct LogEvent {
    std::string source;  ///< "<dir>/<file>:<line>" as every bundle source ("logs/nccl.log:42")
    std::string file;    ///< "<dir>/<file>"
    unsigned line = 0;   ///< 1-based line in the file
    std::string reader;  ///< "nccl", "ucx", "perftest", "kernel"
    std::string kind;    ///< see the list above
    LogClock clock = LogClock::order;
    double time_s = 0;  ///< by `clock`: epoch seconds (wall/local), seconds since boot
    /// The stamp has no year (journalctl's "Jan 14 16:20:05", syslog): time_s is counted from
    /// 1970-01-01 as if the year were 1970, and the placement (agent/replay) takes the year from
    /// the capture's clock.
    bool year_unknown = false;
    std::string host;  ///< host the line names ("gpu01" of "gpu01:1234:1250 [3] ..."), or ""
    std::optional<unsigned> pid;  ///< process id the line names, if any
    std::string device;  ///< RDMA device ("mlx5_0", "bnxt_re0"), or netdev for kernel lines
    std::string netdev;  ///< netdev the line names ("ens1f0np0"), or ""
    std::string pci;     ///< PCI function the line names ("0000:3b:00.0"), or ""
    unsigned port = 0;   ///< 1-based RDMA port, 0 = not named
    std::string local_gid, local_ip;
    std::string peer_ip;    ///< the peer's IP (NCCL: its out-of-band socket: names the host)
    std::string peer_gid;   ///< the peer's GID (NCCL remoteGids, UCX dgid): names the remote NIC
    std::string peer_name;  ///< the peer's host name where the line prints a name, not an IP
    std::string peer_mac;   ///< UCX DC dumps' rmac, lower case
    std::optional<std::uint32_t> qpn, peer_qpn;
    std::optional<int> wc_status;             ///< enum ibv_wc_status number (12 = retry exceeded)
    std::string status_text;                  ///< the status in words ("transport retry counter
                                              ///< exceeded", rdma-core's ibv_wc_status_str)
    std::optional<std::uint32_t> vendor_err;  ///< vendor syndrome (mlx5 0x81 = 129)
    std::optional<std::uint32_t> syndrome;    ///< mlx5 CQE syndrome (MLX5_CQE_SYNDROME_*, 0x15)
    std::optional<int> opcode;                ///< ibv_wc_opcode number, if printed
    std::string direction;                    ///< "send", "recv" or ""
    std::optional<unsigned> traffic_class, sl, gid_index;
    /// slow_result: Gb/s; temperature: degrees C; link_up: the speed printed, Gb/s (bnxt_en,
    /// ice); insufficient_power: the slot's watts; gpu_error: the Xid number.
    std::optional<double> value;
    /// Settings a line prints ("NCCL_IB_TC" -> "106"), for kind "setting" (and any line that
    /// carries one).
    std::map<std::string, std::string> settings;
    /// Advice the job printed about this event (NCCL >= 2.29 "HINT:" INFO lines after a
    /// completion error or a failed ibv_modify_qp, joined by " "), or "".
    std::string hint;
    std::string text;  ///< the line as printed (trimmed, at most 400 bytes), for the report
};

void to_json(nlohmann::json& j, const LogEvent& e);

}  // namespace rh
