// Pure parsers for the kernel's sysfs text formats used by the collectors. No I/O: each takes
// the text of one file (trailing newline already stripped or not) and returns a value or
// nullopt/error. Unit-tested table-driven in tests/collectors/test_parse.cpp.
#pragma once

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace rh {

/// `ports/<p>/state` and `phys_state`: "%d: %s" (e.g. "4: ACTIVE", "5: LinkUp",
/// "7: Phy Test"). Only "<decimal>: <NAME>" is accepted (surrounding whitespace and a missing
/// space after the colon tolerated; NAME is non-empty [A-Za-z0-9 _<>-]). Anything else (no
/// number, binary junk, empty) -> nullopt: the caller records the text as unparsable.
struct CodedState {
    unsigned code = 0;
    std::string name;
};
std::optional<CodedState> parse_port_state(std::string_view text);
/// IB port state / physical state names as sysfs prints them ("ACTIVE", "LinkUp") by code;
/// empty for an unknown code (the bundle parsers and the rules' evidence text use them).
std::string port_state_name(unsigned code);
std::string phys_state_name(unsigned code);

/// Netdev MTU bounds accepted: 68 (IPv4 minimum) .. 65536 (64 KiB, loopback).
inline constexpr std::uint64_t kMtuMin = 68, kMtuMax = 65536;
/// A netdev MTU text ("1500"): parsed as u64, accepted only within kMtuMin..kMtuMax. The error
/// text (for a note) is e.g. "4294967296 is not a valid MTU (68..65536)".
struct MtuParse {
    std::optional<unsigned> mtu;
    std::string error;
};
MtuParse parse_mtu(std::string_view text);
/// Same bounds check for a numeric MTU (rtnetlink IFLA_MTU).
MtuParse check_mtu(std::uint64_t mtu);

/// `current_link_speed` / `max_link_speed` in GT/s: the leading float of "16.0 GT/s PCIe"
/// (kernel >= 5.5) or "8 GT/s" (older). "Unknown", "Unknown speed", "" and anything not starting
/// with a positive number -> nullopt.
std::optional<double> parse_pcie_speed_gts(std::string_view text);
/// Fastest PCIe link a sysfs value may claim (Gen 7 is 128 GT/s); above it, or inf/nan: nullopt.
inline constexpr double kMaxPcieGts = 256;

/// `current_link_width` / `max_link_width`: plain decimal lanes ("16"); a leading "x" is
/// tolerated. 0, garbage or "" -> nullopt (0 is what the kernel prints for an unknown width).
std::optional<unsigned> parse_pcie_width(std::string_view text);

/// `numa_node`: signed decimal, -1 = no NUMA affinity. Garbage -> nullopt.
std::optional<int> parse_numa_node(std::string_view text);

/// True for a PCI function name "dddd:bb:dd.f" (hex domain:bus:device.function),
/// e.g. "0000:3b:00.0"; false for "pci0000:00", "infiniband", "virtual".
bool is_pci_bdf(std::string_view name);

/// True for a GID made only of zero groups ("0000:0000:...:0000", "::"): an unused table entry.
bool is_zero_gid(std::string_view gid);

/// ibv_mtu enum (1..5) to bytes (128 << v): 1 -> 256 ... 5 -> 4096. Out of range -> nullopt.
std::optional<unsigned> ibv_mtu_to_bytes(int mtu_enum);

/// UTC ISO 8601 with seconds and "Z", e.g. "2026-06-01T12:34:56Z".
std::string utc_iso8601(std::chrono::system_clock::time_point t);

/// Port rate in Gb/s from `ports/<p>/rate` ("100 Gb/sec (4X EDR)", "2.5 Gb/sec (1X SDR)");
/// nullopt when it does not start with a number followed by "Gb/sec", or the number is not in
/// 0 < v <= kMaxPortRateGbps (inf, nan and overflow included: a peer's reply carries rates too).
inline constexpr double kMaxPortRateGbps = 10000;
std::optional<double> parse_port_rate_gbps(std::string_view rate);

}  // namespace rh
