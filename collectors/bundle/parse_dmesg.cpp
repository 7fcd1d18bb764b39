// dmesg / journalctl -k: the PCIe lines of drivers/pci/pci.c __pcie_print_link_status, printed
// by NIC drivers at probe (mlx5_core, bnxt_en, ice call pcie_print_link_status):
//   "[    6.91] mlx5_core 0000:b3:00.0: 63.008 Gb/s available PCIe bandwidth, limited by
//    8.0 GT/s PCIe x8 link at 0000:b2:00.0 (capable of 252.048 Gb/s with 16.0 GT/s PCIe x16
//    link)"
// (older kernels print "8 GT/s" without "PCIe"), or, when nothing limits and the driver asks
// for it, "... 252.048 Gb/s available PCIe bandwidth (16.0 GT/s PCIe x16 link)". journalctl's
// boot separators "-- Boot <32 hex> --" give the capture's boot id (the last one: the boot
// the output ends in). Other lines are ignored: dmesg is mostly about other things.
#include <cctype>

#include "collectors/bundle/bundle_model.h"
#include "core/sysfs.h"

namespace rh::bundle {

namespace {

constexpr std::string_view kMarker = " available PCIe bandwidth";

/// "8.0 GT/s PCIe x8" / "8 GT/s x8" at the start of `v` -> speed, width.
std::pair<std::optional<double>, std::optional<unsigned>> speed_width(std::string_view v) {
    const auto t = tokens(v);
    std::optional<double> speed;
    std::optional<unsigned> width;
    for (std::size_t k = 0; k < t.size() && k < 4; ++k) {
        if (t[k] == "GT/s" && k > 0) speed = to_double(t[k - 1]);
        if (t[k].size() > 1 && t[k][0] == 'x') {
            std::string_view w = t[k].substr(1);
            while (!w.empty() && !std::isdigit(static_cast<unsigned char>(w.back())))
                w.remove_suffix(1);
            if (const auto n = to_u64(w); n && *n > 0 && *n <= 32)
                width = static_cast<unsigned>(*n);
            break;
        }
    }
    return {speed, width};
}

/// The PCI address just before ": <n> Gb/s available": "mlx5_core 0000:b3:00.0: 63.008 ...".
std::string function_of(std::string_view line, std::size_t marker) {
    const auto head = line.substr(0, marker);
    const auto colon = head.rfind(": ");
    if (colon == std::string_view::npos) return {};
    const auto before = head.substr(0, colon);
    const auto sp = before.find_last_of(' ');
    return canonical_bdf(before.substr(sp == std::string_view::npos ? 0 : sp + 1));
}

}  // namespace

/// The boot id of a journalctl boot separator "-- Boot 6d3f1a9e2c474b8e9d0a3f5e7c1b2a90 --"
/// (32 hex digits, lower case), else "".
std::string journal_boot(std::string_view line) {
    line = trim(line);
    if (!starts_with(line, "-- Boot ") || line.size() != 8 + 32 + 3 || line.substr(40) != " --")
        return {};
    std::string id(line.substr(8, 32));
    for (char& c : id) {
        if (!std::isxdigit(static_cast<unsigned char>(c))) return {};
        c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    }
    return id;
}

bool is_dmesg(const TextFile& f) {
    for (const auto& l : f.lines)
        if ((l.find(kMarker) != std::string::npos && !function_of(l, l.find(kMarker)).empty()) ||
            !journal_boot(l).empty())
            return true;
    return false;
}

std::string parse_dmesg(const TextFile& f, Model& m) {
    for (std::size_t i = 0; i < f.lines.size(); ++i) {
        const std::string_view line = f.lines[i];
        // journalctl's separator before each boot's lines: the last one is the boot the
        // output ends in, i.e. the boot of the capture (a boot_id file is kept over it).
        if (const std::string boot = journal_boot(line); !boot.empty()) {
            if (m.boot_id.empty() || m.boot_id_source.find("-- Boot") != std::string::npos) {
                m.boot_id = boot;
                m.boot_id_source = source_of(f, i) + " (-- Boot line)";
            }
            continue;
        }
        const auto marker = line.find(kMarker);
        if (marker == std::string_view::npos) continue;
        DmesgPcieLink d;
        d.source = source_of(f, i);
        d.function = function_of(line, marker);
        if (d.function.empty()) continue;
        const std::string_view rest = line.substr(marker + kMarker.size());
        if (const auto lim = rest.find("limited by "); lim != std::string_view::npos) {
            const auto body = rest.substr(lim + 11);
            std::tie(d.speed_gts, d.width) = speed_width(body);
            if (const auto at = body.find(" link at "); at != std::string_view::npos) {
                std::string_view bdf = body.substr(at + 9);
                bdf = bdf.substr(0, bdf.find_first_of(" (,"));
                d.limited_at = canonical_bdf(bdf);
            }
            if (const auto with = body.find("with "); with != std::string_view::npos)
                std::tie(d.cap_speed_gts, d.cap_width) = speed_width(body.substr(with + 5));
        } else if (const auto open = rest.find('('); open != std::string_view::npos) {
            std::tie(d.speed_gts, d.width) = speed_width(rest.substr(open + 1));
            d.cap_speed_gts = d.speed_gts;
            d.cap_width = d.width;
        }
        if (!d.speed_gts || !d.width) {
            m.note(f, i, "PCIe bandwidth line not understood: " + quote_value(trim(line)));
            continue;
        }
        m.dmesg_pcie.push_back(std::move(d));
    }
    return "dmesg (PCIe link status)";
}

}  // namespace rh::bundle
