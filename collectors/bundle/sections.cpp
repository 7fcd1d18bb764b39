// Cutting a pasted file into parts at its section markers (sections.h).
#include "collectors/bundle/sections.h"

#include <algorithm>
#include <cctype>

#include "core/hostname.h"
#include "core/sysfs.h"

namespace rh::bundle {

/// The command of a shell prompt line, nullopt when `line` is not one. Prompts start at column
/// 0: "[root@gpu01 ~]# ethtool -S ens1f0np0", "user@host:~$ cmd", "root@h:/tmp# cmd", "$ cmd",
/// "# cmd" (also a comment line: its text is then the "command"). A prompt with no command
/// gives "".
std::optional<std::string> prompt_command(std::string_view line) {
    line = trim(line);
    auto rest = [&](std::size_t at) { return std::string(trim(line.substr(at))); };
    if (line.empty()) return std::nullopt;
    if (line == "$" || line == "#") return std::string{};
    if (starts_with(line, "$ ") || starts_with(line, "# ")) return rest(2);
    if (line[0] == '[') {
        const auto close = line.find(']');
        if (close == std::string_view::npos || close + 1 >= line.size()) return std::nullopt;
        const std::string_view inside = line.substr(1, close - 1);
        const char mark = line[close + 1];
        if ((mark == '#' || mark == '$') && inside.find('@') != std::string_view::npos &&
            (close + 2 == line.size() || line[close + 2] == ' '))
            return rest(close + 2);
        return std::nullopt;
    }
    // user@host[:path]$ / #
    const auto ws = line.find(' ');
    const std::string_view tok = line.substr(0, ws);
    if (tok.size() < 4 || (tok.back() != '$' && tok.back() != '#')) return std::nullopt;
    const std::string_view who = tok.substr(0, std::min(tok.find(':'), tok.size() - 1));
    const auto at = who.find('@');
    if (at == 0 || at == std::string_view::npos || at + 1 == who.size()) return std::nullopt;
    for (std::size_t i = 0; i < who.size(); ++i) {
        const char c = who[i];
        if (!std::isalnum(static_cast<unsigned char>(c)) && c != '_' && c != '.' && c != '-' &&
            !(c == '@' && i == at))
            return std::nullopt;
    }
    return ws == std::string_view::npos ? std::string{} : rest(ws);
}

/// The host a prompt line names ("[root@gpu01 ~]# ..." and "user@gpu01:~$ ..." -> "gpu01"),
/// "" for a prompt without one ("$ cmd", "# cmd"), a placeholder ("localhost", "hostname",
/// "host") or a line that is not a prompt.
std::string prompt_host(std::string_view line) {
    if (!prompt_command(line)) return {};
    line = trim(line);
    std::string_view who;
    if (line[0] == '[') {
        who = line.substr(1, line.find(']') - 1);  // "root@gpu01 ~"
        who = who.substr(0, who.find(' '));
    } else {
        who = line.substr(0, line.find(' '));  // "user@gpu01:~$"
        who = who.substr(0, std::min(who.find(':'), who.size() - 1));
    }
    const auto at = who.find('@');
    if (at == std::string_view::npos) return {};
    const std::string host(who.substr(at + 1));
    // Placeholders of redacted or template prompts name no host.
    for (const char* placeholder : {"localhost", "localhost.localdomain", "hostname", "host"})
        if (host == placeholder) return {};
    return check_host_name(host).empty() ? host : std::string{};
}

namespace {

/// "text" of a banner "<fill> text [<fill>]": `fill` repeated at least `min` times, a space,
/// the text, optionally a space and the fill again ("---- free -m ----", "### ethtool -S eth2",
/// "=== lspci -vv ==="); nullopt otherwise.
std::optional<std::string> banner_text(std::string_view line, char fill, std::size_t min) {
    std::size_t n = 0;
    while (n < line.size() && line[n] == fill) ++n;
    if (n < min || n >= line.size() || (line[n] != ' ' && line[n] != '\t')) return std::nullopt;
    std::string_view text = trim(line.substr(n));
    std::size_t tail = 0;
    while (tail < text.size() && text[text.size() - 1 - tail] == fill) ++tail;
    if (tail > 0) {
        if (tail == text.size()) return std::nullopt;
        const char before = text[text.size() - 1 - tail];
        if (before != ' ' && before != '\t') return std::nullopt;  // "--x--" is one word
        text = trim(text.substr(0, text.size() - tail));
    }
    if (text.empty()) return std::nullopt;
    return std::string(text);
}

/// A file header whose section is one value: part of a `tail -n +1 <dir>/*` counter listing.
bool value_header(const SectionMarker& m, std::size_t body_lines) {
    if (m.kind != SectionMarker::Kind::file_header || body_lines > 1) return false;
    const std::string_view base = std::string_view(m.text).substr(m.text.rfind('/') + 1);
    for (const char* ext : {".txt", ".log", ".out"})
        if (base.size() > 4 && base.substr(base.size() - 4) == ext) return false;
    return true;
}

bool names_sysfs_counters(std::string_view path) {
    return path.find("infiniband/") != std::string_view::npos ||
           path.find("counters/") != std::string_view::npos;
}

}  // namespace

std::optional<std::string> watch_command(std::string_view line) {
    // procps watch.c: "Every %.1fs: %s" on the left, "%s: %s" (host name, ctime) on the right.
    if (!starts_with(line, "Every ")) return std::nullopt;
    const auto colon = line.find("s: ", 6);
    if (colon == std::string_view::npos || !to_double(line.substr(6, colon - 6)))
        return std::nullopt;
    std::string_view cmd = line.substr(colon + 3);
    // The right-hand "host: date" follows the command after a run of spaces.
    for (auto gap = cmd.rfind("  "); gap != std::string_view::npos && gap > 0;
         gap = cmd.rfind("  ", gap - 1)) {
        const std::string_view right = trim(cmd.substr(gap));
        const auto host_end = right.find(": ");
        if (host_end != std::string_view::npos && tokens(right.substr(0, host_end)).size() == 1) {
            cmd = cmd.substr(0, gap);
            break;
        }
    }
    cmd = trim(cmd);
    if (cmd.empty()) return std::nullopt;
    return std::string(cmd);
}

std::optional<SectionMarker> section_marker(std::string_view line) {
    using K = SectionMarker::Kind;
    while (!line.empty() && (line.back() == ' ' || line.back() == '\t')) line.remove_suffix(1);
    if (line.empty() || line[0] == ' ' || line[0] == '\t') return std::nullopt;
    if (auto c = prompt_command(line)) return SectionMarker{K::prompt, std::move(*c)};
    if (starts_with(line, "==> ") && line.size() > 8 && line.substr(line.size() - 4) == " <==") {
        const auto name = trim(line.substr(4, line.size() - 8));
        if (!name.empty()) return SectionMarker{K::file_header, std::string(name)};
        return std::nullopt;
    }
    if (auto c = watch_command(line)) return SectionMarker{K::watch, std::move(*c)};
    if (line[0] == '+') {
        std::size_t n = 0;
        while (n < line.size() && line[n] == '+') ++n;
        if (n < line.size() && line[n] == ' ' && !trim(line.substr(n)).empty())
            return SectionMarker{K::trace, std::string(trim(line.substr(n)))};
        return std::nullopt;
    }
    // journalctl's own separators ("-- Boot <id> --", "-- Logs begin at ... --", "-- Reboot
    // --") are part of its output (the boot id is reboot evidence), not banners.
    if (line.rfind("-- ", 0) == 0)
        for (const char* j : {"Boot ", "Logs begin", "Journal begins", "No entries", "Reboot"})
            if (line.substr(3).rfind(j, 0) == 0) return std::nullopt;
    // "# cmd" is a prompt (above); banners use at least two '#', '-' or '=', or ">>>".
    for (const auto& [fill, min] : {std::pair{'#', 2u}, {'-', 2u}, {'=', 2u}, {'>', 3u}})
        if (line[0] == fill)
            if (auto t = banner_text(line, fill, min)) return SectionMarker{K::banner, *t};
    return std::nullopt;
}

std::vector<TextFile> split_sections(const TextFile& f) {
    struct Cut {
        std::size_t line;
        SectionMarker marker;
        std::size_t body = 0;  // non-blank lines up to the next cut
    };
    std::vector<Cut> cuts;
    for (std::size_t i = 0; i < f.lines.size(); ++i)
        if (auto m = section_marker(f.lines[i])) cuts.push_back({i, std::move(*m)});
    if (cuts.empty()) return {f};
    for (std::size_t k = 0; k < cuts.size(); ++k) {
        const std::size_t end = k + 1 < cuts.size() ? cuts[k + 1].line : f.lines.size();
        for (std::size_t i = cuts[k].line + 1; i < end; ++i)
            cuts[k].body += !trim(f.lines[i]).empty();
    }
    std::vector<TextFile> parts;
    // Lines [from, to) as one part, with the marker's command.
    auto part = [&](std::size_t from, std::size_t to, const SectionMarker* marker) {
        TextFile p{f.name, std::vector<std::string>(f.lines.size()), f.dir, {}};
        if (marker) p.command = p.label = marker->text;
        // The host of the nearest prompt above that names one ("$ cmd" keeps the last host).
        for (std::size_t i = from; i-- > 0;)
            if (auto h = prompt_host(f.lines[i]); !h.empty()) {
                p.prompt_host = std::move(h);
                break;
            }
        bool content = false;
        for (std::size_t i = from; i < to; ++i) {
            p.lines[i] = f.lines[i];
            content = content || !trim(f.lines[i]).empty();
        }
        if (content) parts.push_back(std::move(p));
    };
    part(0, cuts[0].line, nullptr);
    for (std::size_t k = 0; k < cuts.size(); ++k) {
        const auto end = [&](std::size_t j) {
            return j + 1 < cuts.size() ? cuts[j + 1].line : f.lines.size();
        };
        const Cut& c = cuts[k];
        if (value_header(c.marker, c.body)) {
            // A run of "==> path <==" + value: one counter listing, headers kept.
            std::size_t last = k;
            while (last + 1 < cuts.size() &&
                   value_header(cuts[last + 1].marker, cuts[last + 1].body))
                ++last;
            if (last > k || names_sysfs_counters(c.marker.text)) {
                part(c.line, end(last), nullptr);
                k = last;
                continue;
            }
        }
        // A watch header stays in its part: it is also the capture's clock.
        part(c.marker.kind == SectionMarker::Kind::watch ? c.line : c.line + 1, end(k), &c.marker);
    }
    return parts;
}

std::string part_lines(const TextFile& part) {
    std::size_t first = part.lines.size(), last = 0;
    for (std::size_t i = 0; i < part.lines.size(); ++i)
        if (!trim(part.lines[i]).empty()) {
            first = std::min(first, i);
            last = i;
        }
    if (first == part.lines.size()) return part.name;
    std::string at = part.name + ":" + std::to_string(first + 1);
    if (last > first) at += "-" + std::to_string(last + 1);
    return at;
}

std::string skipped_part_text(const TextFile& part) {
    return (part.command.empty() ? std::string("text") : "output of `" + part.command + "`") +
           " is not a format rocehealth reads; ignored";
}

}  // namespace rh::bundle
