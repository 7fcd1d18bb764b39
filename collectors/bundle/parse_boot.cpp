// Which boot a capture was taken in, from the boot itself (never from counters): a host that
// rebooted between two captures has counters that restarted, and no rate may span the reboot
// (collectors/bundle/restart_evidence.h decides). Shapes read:
//   boot_id:     `cat /proc/sys/kernel/random/boot_id`: one UUID line
//                "6d3f1a9e-2c47-4b8e-9d0a-3f5e7c1b2a90", new at every boot;
//   /proc/stat:  "btime 1770717612" (boot time, seconds since the epoch), with the "cpu" lines
//                of `cat /proc/stat` or alone (`grep btime /proc/stat`).
// The uptime (`uptime`, /proc/uptime) is read by parse_uptime.cpp.
#include <cctype>

#include "collectors/bundle/bundle_model.h"

namespace rh::bundle {

namespace {

/// True for "xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx" (hex digits, either case).
bool is_uuid(std::string_view s) {
    if (s.size() != 36) return false;
    for (std::size_t i = 0; i < s.size(); ++i) {
        const bool dash = i == 8 || i == 13 || i == 18 || i == 23;
        if (dash ? s[i] != '-' : !std::isxdigit(static_cast<unsigned char>(s[i]))) return false;
    }
    return true;
}

/// The index of the only non-empty line when it is a UUID, else npos.
std::size_t boot_id_line(const TextFile& f) {
    std::size_t found = std::string::npos;
    for (std::size_t i = 0; i < f.lines.size(); ++i) {
        const std::string_view l = trim(f.lines[i]);
        if (l.empty()) continue;
        if (found != std::string::npos || !is_uuid(l)) return std::string::npos;
        found = i;
    }
    return found;
}

/// The index of a "btime <seconds>" line, else npos. Besides it, the file may hold only
/// /proc/stat lines ("cpu...", "intr", "ctxt", "processes", "procs_...", "softirq").
std::size_t btime_line(const TextFile& f) {
    std::size_t found = std::string::npos;
    for (std::size_t i = 0; i < f.lines.size(); ++i) {
        const std::string_view l = trim(f.lines[i]);
        if (l.empty()) continue;
        const auto t = tokens(l);
        if (t[0] == "btime" && t.size() == 2 && to_u64(t[1])) {
            if (found != std::string::npos) return std::string::npos;
            found = i;
            continue;
        }
        const bool stat = starts_with(t[0], "cpu") || t[0] == "intr" || t[0] == "ctxt" ||
                          t[0] == "processes" || starts_with(t[0], "procs_") || t[0] == "softirq";
        if (!stat) return std::string::npos;
    }
    return found;
}

}  // namespace

bool is_boot_facts(const TextFile& f) {
    return boot_id_line(f) != std::string::npos || btime_line(f) != std::string::npos;
}

std::string parse_boot_facts(const TextFile& f, Model& m) {
    if (const auto i = boot_id_line(f); i != std::string::npos) {
        // Kept without dashes, as journalctl prints boot ids ("-- Boot 6d3f1a9e2c47... --").
        std::string id;
        for (char c : trim(f.lines[i]))
            if (c != '-') id += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
        if (!m.boot_id.empty() && m.boot_id_source.find("-- Boot") == std::string::npos &&
            m.boot_id != id) {
            m.note(f, i,
                   "a second boot_id " + id + " differs from " + m.boot_id_source +
                       "'s; the first kept");
            return "boot_id";
        }
        m.boot_id = id;
        m.boot_id_source = source_of(f, i);
        return "boot_id";
    }
    const auto i = btime_line(f);
    const auto v = to_u64(tokens(trim(f.lines[i]))[1]);
    if (m.btime_s && *m.btime_s != static_cast<double>(*v)) {
        m.note(f, i, "a second btime differs from " + m.btime_source + "'s; the first kept");
        return "/proc/stat btime";
    }
    m.btime_s = static_cast<double>(*v);
    m.btime_source = source_of(f, i);
    return "/proc/stat btime";
}

}  // namespace rh::bundle
