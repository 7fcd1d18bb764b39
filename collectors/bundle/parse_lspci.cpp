// `lspci -vv` (pciutils lspci.c, ls-caps.c): one block per function, a header line at column 0
// "[dddd:]bb:dd.f <class>: <vendor and device>" (with -nn "<class> [0200]: ... [15b3:101d]"),
// then tab-indented lines, among them "NUMA node: 0", "LnkCap:\tPort #0, Speed 16GT/s,
// Width x16, ..." and "LnkSta:\tSpeed 8GT/s (downgraded), Width x8 (downgraded)" (lspci marks
// "(downgraded)" except on root and downstream ports), "LnkCtl2:\tTarget Link Speed: 8GT/s, ..."
// (a port set to train no faster). Without root, lspci prints
// "Capabilities: <access denied>" and no link lines. Plain `lspci` (headers only) is accepted.
#include <cctype>
#include <cstdio>

#include "collectors/bundle/bundle_model.h"
#include "core/sysfs.h"

namespace rh::bundle {

namespace {

/// The BDF at the start of a header line ("3b:00.0 " or "0000:3b:00.0 "), or empty.
std::string header_bdf(std::string_view line) {
    if (line.empty() || std::isspace(static_cast<unsigned char>(line[0]))) return {};
    const auto sp = line.find(' ');
    if (sp == std::string_view::npos || (sp != 7 && sp != 12)) return {};
    if (line.find(": ", sp) == std::string_view::npos) return {};
    return canonical_bdf(line.substr(0, sp));
}

/// "16GT/s" / "2.5GT/s" / "8 GT/s" -> GT/s; nullopt for "unknown" or anything else.
std::optional<double> speed_gts(std::string_view text) {
    const auto at = text.find("Speed ");
    if (at == std::string_view::npos) return std::nullopt;
    std::string_view v = text.substr(at + 6);
    v = v.substr(0, v.find_first_of(",("));
    const auto unit = v.find("GT/s");
    if (unit == std::string_view::npos) return std::nullopt;
    auto s = to_double(v.substr(0, unit));
    return s && *s > 0 ? s : std::nullopt;
}

/// "Width x16" -> 16; nullopt for x0 or anything else.
std::optional<unsigned> width_lanes(std::string_view text) {
    const auto at = text.find("Width x");
    if (at == std::string_view::npos) return std::nullopt;
    std::string_view v = text.substr(at + 7);
    std::size_t n = 0;
    while (n < v.size() && std::isdigit(static_cast<unsigned char>(v[n]))) ++n;
    auto w = to_u64(v.substr(0, n));
    return w && *w > 0 && *w <= 32 ? std::optional<unsigned>(static_cast<unsigned>(*w))
                                   : std::nullopt;
}

void header(const TextFile& f, std::size_t i, const std::string& bdf, PciFunction& fn) {
    const std::string_view line = f.lines[i];
    const auto sp = line.find(' ');
    const auto colon = line.find(": ", sp);
    std::string_view cls = trim(line.substr(sp + 1, colon - sp - 1));
    if (const auto code = cls.rfind(" ["); code != std::string_view::npos && cls.back() == ']')
        cls = cls.substr(0, code);  // -nn: "Ethernet controller [0200]"
    fn = PciFunction{};
    fn.file = f.name;
    fn.line = static_cast<unsigned>(i + 1);
    fn.bdf = bdf;
    fn.class_name = std::string(cls);
    fn.description = std::string(trim(line.substr(colon + 2)));
}

void link_line(const TextFile& f, std::size_t i, std::string_view body, bool cap, PciFunction& fn,
               Model& m) {
    const auto speed = speed_gts(body);
    const auto width = width_lanes(body);
    // "Speed unknown" / "Width x0": a link that is down; absent, not an error.
    if (body.find("Speed ") == std::string_view::npos ||
        body.find("Width x") == std::string_view::npos)
        m.note(f, i,
               std::string(cap ? "lspci LnkCap" : "lspci LnkSta")
                   .append(" line without Speed and Width: ")
                   .append(quote_value(body)));
    if (cap) {
        fn.cap_line = static_cast<unsigned>(i + 1);
        fn.cap_speed_gts = speed;
        fn.cap_width = width;
    } else {
        fn.sta_line = static_cast<unsigned>(i + 1);
        fn.sta_speed_gts = speed;
        fn.sta_width = width;
        fn.sta_downgraded = body.find("(downgraded)") != std::string_view::npos;
    }
}

}  // namespace

bool is_lspci(const TextFile& f) {
    for (const auto& l : f.lines)
        if (!header_bdf(l).empty()) return true;
    return false;
}

std::string parse_lspci(const TextFile& f, Model& m) {
    bool verbose = false, open = false;
    bool seen_cap = false, seen_sta = false;
    PciFunction fn;
    auto close = [&] {
        if (open) m.pci.push_back(std::move(fn));
        open = seen_cap = seen_sta = false;
    };
    for (std::size_t i = 0; i < f.lines.size(); ++i) {
        const std::string_view line = f.lines[i];
        if (const std::string bdf = header_bdf(line); !bdf.empty()) {
            close();
            header(f, i, bdf, fn);
            open = true;
            continue;
        }
        if (!open) continue;
        const std::string_view body = trim(line);
        if (body.empty()) continue;
        verbose = true;
        if (starts_with(body, "LnkCap:") && !seen_cap) {
            seen_cap = true;
            link_line(f, i, body.substr(7), true, fn, m);
        } else if (starts_with(body, "LnkSta:") && !seen_sta) {
            seen_sta = true;
            link_line(f, i, body.substr(7), false, fn, m);
        } else if (starts_with(body, "LnkCtl2:") && !fn.target_speed_gts) {
            // "LnkCtl2: Target Link Speed: 8GT/s, EnterCompliance- SpeedDis-"
            if (const auto at = body.find("Target Link Speed:"); at != std::string_view::npos) {
                std::string_view v = trim(body.substr(at + 18));
                v = v.substr(0, v.find_first_of(", "));
                if (const auto unit = v.find("GT/s"); unit != std::string_view::npos)
                    if (const auto t = to_double(v.substr(0, unit)); t && *t > 0)
                        fn.target_speed_gts = t;
            }
        } else if (starts_with(body, "NUMA node:")) {
            const auto v = trim(body.substr(10));
            const bool neg = !v.empty() && v[0] == '-';
            const auto n = to_u64(neg ? v.substr(1) : v);
            if (n && *n < 4096)
                fn.numa_node = neg ? -static_cast<int>(*n) : static_cast<int>(*n);
            else
                m.note(f, i, "lspci NUMA node not a number: " + quote_value(v));
        } else if (starts_with(body, "Capabilities: <access denied>")) {
            fn.caps_denied = true;
        } else if (starts_with(body, "Capabilities:") &&
                   body.find("] Express") != std::string_view::npos && fn.port_type.empty()) {
            // "Capabilities: [40] Express (v2) Root Port (Slot+), MSI 00"
            std::string_view t = body.substr(body.find("] Express") + 9);
            if (const auto v = t.find(") ");
                starts_with(trim(t), "(v") && v != std::string_view::npos)
                t = t.substr(v + 2);
            t = trim(t.substr(0, t.find_first_of(",(")));
            fn.port_type = std::string(t);
        } else if (starts_with(body, "Bus: primary=")) {
            // "Bus: primary=00, secondary=3b, subordinate=3b, sec-latency=0" (hex)
            auto hex = [&](std::string_view key) -> std::optional<unsigned> {
                const auto at = body.find(key);
                if (at == std::string_view::npos) return std::nullopt;
                const auto v = body.substr(at + key.size(), 2);
                unsigned out = 0;
                for (char c : v) {
                    if (!std::isxdigit(static_cast<unsigned char>(c))) return std::nullopt;
                    out =
                        out * 16 + static_cast<unsigned>(std::isdigit(static_cast<unsigned char>(c))
                                                             ? c - '0'
                                                             : std::tolower(c) - 'a' + 10);
                }
                return out;
            };
            fn.secondary_bus = hex("secondary=");
            fn.subordinate_bus = hex("subordinate=");
            if (!fn.secondary_bus)
                m.note(f, i, "lspci Bus line not understood: " + quote_value(body));
        }
    }
    close();
    return verbose ? "lspci -vv" : "lspci";
}

// `lspci -t` / `-tv` (pciutils ls-tree.c): "-[0000:00]-+-00.0  Intel ..." then per bridge
// "+-01.0-[01-02]--+-00.0" (its bus range), children after "--" or on the following lines at
// deeper columns ("|  " / "\\-"). Each "<dev>.<fn>-[<sec>[-<sub>]]" is a bridge whose bus is
// the one of the bracket that contains it: the column where a bracket starts opens that bus
// for everything drawn to its right on this and the following lines.
// A root bus bracket "-[dddd:bb]-": the first line of a one-root tree ("-[0000:00]-+-00.0"),
// or a branch of a many-root one (two-socket servers: "-+-[0000:80]-+-00.0" then
// " \-[0000:00]-+-00.0").
bool is_lspci_tree(const TextFile& f) {
    const auto hex = [](char c) { return std::isxdigit(static_cast<unsigned char>(c)) != 0; };
    for (const auto& l : f.lines) {
        for (std::size_t at = l.find("-["); at != std::string_view::npos;
             at = l.find("-[", at + 1)) {
            const std::string_view rest = std::string_view(l).substr(at + 2);
            if (rest.size() >= 9 && hex(rest[0]) && hex(rest[1]) && hex(rest[2]) && hex(rest[3]) &&
                rest[4] == ':' && hex(rest[5]) && hex(rest[6]) && rest[7] == ']' && rest[8] == '-')
                return true;
        }
    }
    return false;
}

std::string parse_lspci_tree(const TextFile& f, Model& m) {
    // column -> (domain, bus) of the bracket opened at that column, kept while lines go on.
    std::vector<std::pair<std::size_t, std::pair<unsigned, unsigned>>> open;  // (column, dom/bus)
    unsigned domain = 0;
    auto hexnum = [](std::string_view v) -> std::optional<unsigned> {
        if (v.empty() || v.size() > 4) return std::nullopt;
        unsigned out = 0;
        for (char c : v) {
            if (!std::isxdigit(static_cast<unsigned char>(c))) return std::nullopt;
            out = out * 16 + static_cast<unsigned>(std::isdigit(static_cast<unsigned char>(c))
                                                       ? c - '0'
                                                       : std::tolower(c) - 'a' + 10);
        }
        return out;
    };
    for (std::size_t i = 0; i < f.lines.size(); ++i) {
        const std::string_view line = f.lines[i];
        for (std::size_t at = line.find('['); at != std::string_view::npos;
             at = line.find('[', at + 1)) {
            const auto close = line.find(']', at);
            if (close == std::string_view::npos) break;
            const std::string_view inside = line.substr(at + 1, close - at - 1);
            // Tree brackets follow a '-' ("-[0000:00]-", "01.0-[01-02]--"); `-tv` / `-nn`
            // descriptions ("[ConnectX-6 Dx]", "[15b3:101d]") follow a space.
            if (at == 0 || line[at - 1] != '-') continue;
            // brackets opened at or right of this column on earlier lines are closed
            while (!open.empty() && open.back().first >= at) open.pop_back();
            std::optional<unsigned> sec, sub;
            if (const auto colon = inside.find(':'); colon != std::string_view::npos) {
                // "-[0000:00]-": a domain's root bus
                const auto d = hexnum(inside.substr(0, colon));
                sec = hexnum(inside.substr(colon + 1));
                if (d) domain = *d;
                sub = sec;
            } else {
                const auto dash = inside.find('-');
                sec = hexnum(inside.substr(0, dash));
                sub = dash == std::string_view::npos ? sec : hexnum(inside.substr(dash + 1));
                // the bridge: "<dd>.<f>" just left of "-["
                if (sec && at >= 5 && line[at - 1] == '-') {
                    const std::string_view devfn = line.substr(at - 5, 4);
                    const auto parent =
                        open.empty() ? std::nullopt : std::optional(open.back().second);
                    if (parent && devfn.size() == 4 && devfn[2] == '.') {
                        char buf[24];
                        std::snprintf(buf, sizeof buf, "%04x:%02x:%.4s", parent->first,
                                      parent->second, std::string(devfn).c_str());
                        const std::string bdf = canonical_bdf(buf);
                        if (!bdf.empty() && sub)
                            m.tree_bridges.push_back({bdf, *sec, *sub, source_of(f, i)});
                    }
                }
            }
            if (!sec) continue;
            open.emplace_back(at, std::pair{domain, *sec});
        }
    }
    if (m.tree_bridges.empty()) m.note(f.name, "lspci -t output with no bridge");
    return "lspci -t";
}

}  // namespace rh::bundle
