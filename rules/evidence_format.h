// How evidence values read: one formatting function per kind of unit, used by every evidence
// producer (the inventory rules in rules/*.cpp and the time rules in rules/engine/evidence.cpp),
// so a person reads "port rate = 100 Gb/s", "state = 4 (ACTIVE)", "PFC on priority 3 = off"
// and never a bare number or a field name with its unit glued on ("pfc_off = 0 bool").
//
// Evidence::value holds the text as read, unit included; Evidence::unit repeats the unit alone
// for machines (empty for on/off, states and text).
#pragma once

#include <cstdint>
#include <string>

#include "core/sample.h"

namespace rh {

/// "4096 bytes" (whole bytes; a fraction is rounded).
std::string format_bytes(double bytes);
/// "100 Gb/s", "2.5 Gb/s", "12.5 Gb/s" (10^9 bit/s, up to 4 significant digits).
std::string format_gbps(double gbps);
/// "on" / "off": a bool gauge (1 / 0); any non-zero value is on.
std::string format_on_off(double v);
/// "4 (ACTIVE)", the IB port state code with its sysfs name; "7 (unknown state)" otherwise.
std::string format_port_state(unsigned code);
/// "5 (LinkUp)", the IB physical port state code with its sysfs name.
std::string format_phys_state(unsigned code);
/// "335.5 us" (microseconds, up to 4 significant digits).
std::string format_us(double us);
/// A count in its unit: "1532 frames", "1 event", "0 packets"; `unit` empty: the bare number.
/// Units are plural in the series ("frames", "events"); a count of 1 reads singular.
std::string format_count(double v, const std::string& unit);

/// The one dispatch by unit: "bool" -> on/off, "state" -> port state, "phys_state" -> physical
/// state, "bytes", "Gb/s", "us", a count unit ("frames", "packets", "events", ...) -> count,
/// anything else -> "<v> <unit>". The unit strings are the store's series units
/// (store/README.md) and NormalizedCounter::unit.
std::string format_value(double v, const std::string& unit);

/// Whether label `k` names where a finding or a series is (device, port, netdev); the rest
/// (priority, direction, level) say what.
bool is_location_label(const std::string& k);

/// What a gauge series means to a person, with its labels: "pfc_enabled" {priority 3} ->
/// "PFC on priority 3", "ecn_np_enabled" -> "ECN notification point (roce_np) on priority 3",
/// "port_state_code" -> "port state", "port_rate_gbps" -> "port rate". Other series: the series
/// name and its labels other than device/port/netdev, "pfc_pause_frames (priority 3, rx)".
std::string series_display_name(const std::string& series, const Labels& labels);

/// An evidence value as a report prints it: `value` itself when it carries its unit already
/// ("4096 bytes", "off", "12.3 frames/s"), or a bare number followed by `unit` ("100" + "Gb/s"
/// -> "100 Gb/s"), so no renderer prints a number without its unit nor a unit twice.
std::string evidence_text(const std::string& value, const std::string& unit);

/// A sysfs path as the report cites it: under the default root "/sys" the path itself (the
/// operator can `cat` it on that host); under another --sysfs-root (a fixture or a copied tree)
/// the path relative to that root, ".../class/infiniband/mlx5_0/ports/1/state", so no path of
/// the machine that ran the tool leaks into the report. Paths outside the root are returned as
/// given.
std::string cite_sysfs(const std::string& sysfs_root, const std::string& path);

}  // namespace rh
