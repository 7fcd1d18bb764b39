// Bundle import: a directory of plain-text captures of one host, as operators paste them
// (`ethtool -S`, hw_counters listings, `rdma statistic show`, `ibv_devinfo -v`, `lspci -vv`,
// `ip -d link`, `mlnx_qos -i`, `ethtool -i`; the boot: `uptime`, /proc/uptime, boot_id,
// /proc/stat btime, journalctl "-- Boot <id> --"), turned into the same rh::Snapshot the live
// collectors produce, so the same rules run on it. Files are recognised by their content, never
// by their names (the only names read are `timestamp` and `hostname`).
#pragma once

#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "collectors/bundle/capture_identity.h"
#include "collectors/bundle/parse_clock.h"
#include "core/inventory/inventory.h"
#include "core/log_event.h"
#include "core/result.h"

namespace rh {

/// One capture directory of one host, as an operator pasted it.
struct BundleCapture {
    std::string dir;
    std::optional<double> timestamp_s;  ///< from a `timestamp` file (seconds since epoch), if any
    /// The clock inside the capture's files (a `date` line, a `watch` header, approximate:
    /// `dmesg -T` / journal time stamps), with notes on disagreeing readings; see parse_clock.h.
    std::optional<bundle::CaptureClock> clock;
    std::optional<double> uptime_s;  ///< seconds since boot, from `uptime` or /proc/uptime output
    std::string uptime_source;       ///< "<dir>/<file>:<line>" of uptime_s
    double uptime_resolution_s = 0;  ///< 60 for `uptime` (minutes), 0.01 for /proc/uptime
    /// Boot identity (restart_evidence.h): `/proc/sys/kernel/random/boot_id` ("" if none) and
    /// `/proc/stat` btime (boot time, seconds since the epoch), with their sources.
    std::string boot_id, boot_id_source;
    std::optional<double> btime_s;
    std::string btime_source;
    Snapshot snapshot;                    ///< host from a `hostname` file, else the dir's basename
    std::vector<std::string> recognized;  ///< "<file>: <kind>" e.g. "eth0.txt: ethtool -S"
    std::vector<std::string> unrecognized;  ///< files whose content matched no known format
    /// Notes to show without --verbose ("c1/blob.bin: binary content, not a text capture; not
    /// read", two hosts' output in one file, PCIe facts kept by a vendor match).
    std::vector<std::string> warnings;
    /// Counter files tied to no RDMA port ("t0/ethtool-S-ens1f0np0.txt: ethtool -S of
    /// ens1f0np0 is tied to no RDMA port of the capture"): not judged, so not healthy.
    std::vector<std::string> unused_counters;
    /// What names the host (GUIDs, MACs, PCI slots, counter sets, the `hostname` file), for
    /// grouping captures of one host without a `hostname` file (capture_identity.h).
    CaptureIdentity identity;
    /// Job and kernel log lines of the capture's files (collectors/joblog: NCCL, UCX, perftest,
    /// dmesg / journalctl), in file and line order, as the lines name them: agent/replay places
    /// them on hosts and in time.
    std::vector<LogEvent> log_events = {};
    /// The host's IP addresses from `ip addr` output: they name it in other hosts' logs.
    std::vector<std::string> ip_addresses = {};
};

/// Reads every regular file in `dir` (not recursive, sorted by name) and imports them as
/// import_bundle_files does. Errors: `dir` missing, not a directory or unreadable; a file in it
/// that cannot be read (permission denied, I/O error, larger than 32 MiB without a job or kernel
/// log line in it (a larger file is read as a log only, line by line), a FIFO, device or
/// dangling/looping symlink, a directory named like a file "hw_counters.txt"): the Error's
/// message is "<base of dir>/<file>: <reason>" ("t1/hw_counters.txt: Permission denied");
/// and those of import_bundle_files. Other subdirectories are warnings (not read). Never throws.
Result<BundleCapture> import_bundle_dir(const std::string& dir);

/// The pure import (no file system): `files` are (file name, bytes) pairs of one capture
/// directory `dir`, in order. Each file is recognised by CONTENT (never by name; the only
/// names read are `timestamp` and `hostname`), parsed and merged into one Snapshot:
/// - Text is read as pasted: UTF-8 BOM, CRLF / CR line ends and terminal escape sequences
///   (colours, `watch -d` reverse video, cursor moves of a `script` log) removed,
///   Unicode spaces (U+00A0, U+2000..U+200A, U+202F, U+205F, U+3000) read as spaces, UTF-16
///   with a BOM decoded. Other binary content is a warning ("not a text capture").
/// - Prompts naming a host ("[root@gpu01 ~]#", "user@gpu01:~$") are hostname evidence when
///   there is no `hostname` file; a capture whose prompts name several hosts keeps only the
///   parts of the first host named, with a warning naming the others.
///   A file is cut at its section markers (sections.h): shell prompt lines ("[root@h ~]#
///   ethtool -S ens1f0np0", "u@h:~$ cmd", "$ cmd", "# cmd"), `tail -n +1 *` headers ("==> FILE
///   <=="), banners ("### cmd", "## cmd", "---- cmd ----", "=== cmd ===", ">>> cmd"), `set -x`
///   lines ("+ cmd") and `watch` headers ("Every 5.0s: cmd   host: date"); each part is
///   recognised on its own and its command is evidence (the interface of `ethtool -S|-i <if>` /
///   `mlnx_qos -i <if>`, the port of a `.../infiniband/<dev>/ports/<p>/...` path; an interface
///   name in a marker's text, like "==> ethtool-S-eth2.txt <==", as in a file name). A part no
///   format reads (sar, free, top, lsmod output between the sections) is a note naming the file
///   and its lines ("collect.txt:120-164: output of `free -m` is not a format rocehealth reads;
///   ignored"). `tail -n +1 .../hw_counters/*` ("==> path <==" then one value each) is a counter
///   listing. Line numbers stay those of the file. Tabs are read where the tools print spaces.
/// - Snapshot::host from a `hostname` file (first line that is not a prompt), else the base
///   name of `dir`; sysfs_root = "bundle:<dir>"; collected_at = the `timestamp` file as UTC
///   ISO 8601, else "". `timestamp` (or `timestamp.txt`): seconds since the epoch, or `date -u` /
///   `date -R` (C, en_US, en_GB locales) / ISO 8601 output (parse_timestamp.h).
/// - Clocks inside the files (parse_clock.h): a `date` line at the top of a file or of a
///   command's part, a `watch` header, `dmesg -T` / journal time stamps (approximate) go to
///   BundleCapture::clock with the file:line that gave them and notes on disagreement; the
///   `date` / `watch` lines are blanked before the part is recognised (a part that held only
///   them is recognised as "clock"). The capture's time is decided by the caller
///   (agent/replay/capture_time.h): a `timestamp` file outranks them.
/// - Formats: `ethtool -S` (with its "NIC statistics:" header, or without it as `ethtool -S
///   <if> | grep ...` prints it: indented or "name: value" lines, see parse_ethtool_s.cpp),
///   `ethtool -i`, `ibv_devinfo [-v]`, `mlnx_qos`, `ip [-d] [-s] link|addr`, `lspci [-vv]`,
///   `lspci -t[v]`, dmesg (pcie_print_link_status lines), `rdma statistic|link show`,
///   hw_counters listings (grep path:value) and "name value" counter lists.
/// - Job and kernel logs (collectors/joblog/job_logs.h): every part with a line a log reader
///   recognises (NCCL WARN, UCX ERROR, perftest errors, kernel link/AER/OOM lines) is also read
///   line by line into BundleCapture::log_events, whatever format the part is otherwise, so a
///   dmesg that also prints PCIe link status or an NCCL log with dmesg pasted below is read
///   whole. A part of log lines only is recognised as "job log".
/// - Devices and ports come from ibv_devinfo, hw_counters listings and `rdma` output; netdevs
///   from `ip link`. The links between them are made by content (bundle_merge.cpp has the
///   order of evidence): port -> netdev by `rdma link` / GID ndevs, else the MAC inside the
///   port's link-local GID (EUI-64) equal to one netdev's link/ether, else the PCI function;
///   device -> PCI function by its netdev's parentdev / `ethtool -i` bus-info, else by a
///   udev PCI name ("roceP2p1s0f1" = 0002:01:00.1), else by vendor when only one function
///   fits; netdev -> PCI function by parentdev, bus-info or a systemd name ("enp59s0f1np1").
///   `ethtool -S`, `ethtool -i`, `mlnx_qos` (which do not name their interface) go to the
///   netdev the prompt's command names, else the netdev whose name (or altname) the file name
///   contains, else by `ethtool -i` bus-info, else the only netdev, else, with one RDMA port,
///   to that port. A placement that is a guess is a note; what cannot be placed is a note
///   naming the file and the candidates, never dropped silently.
/// - PCIe: the device's function from `lspci -vv`, and its upstream chain (switch downstream
///   and upstream ports, root port) placed from the bridges' "Bus: primary=, secondary="
///   lines or an `lspci -t` tree, like the live collector's Device::pcie; dmesg "limited by
///   ... link at <bdf>" lines fill what lspci does not show. With no RDMA device at all, each
///   RDMA-capable NIC function in lspci (Mellanox/NVIDIA 15b3, Broadcom NetXtreme-E, Intel
///   E810) becomes a Device named by its BDF with no ports, so the PCIe rule runs.
/// - Port::normalized is filled (collectors/normalize.h) from the RDMA driver (device name
///   prefix) and the netdev driver (`ethtool -i`, else the one that goes with the RDMA driver).
/// - Port::gids_unavailable is set when no capture shows the port's GID table (ibv_devinfo
///   without -v). Port::sources and PcieLink::source name where a value was read.
/// Every value's source is "<base name of dir>/<file>:<line>" ("t1/ethtool-S.txt:42"), never
/// a sysfs path or an absolute path. What could not be placed or parsed is a Note in
/// Snapshot::notes: subject "<file>:<line>" for a malformed line inside a recognised file.
/// Errors: a `timestamp` file that is not a number (the Error names the file). Unrecognised
/// files (incl. empty or binary ones) are listed in `unrecognized`, never fatal. Never throws.
Result<BundleCapture> import_bundle_files(
    const std::string& dir, const std::vector<std::pair<std::string, std::string>>& files);

}  // namespace rh
