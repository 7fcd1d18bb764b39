// Internal to collectors/bundle: how one pasted file is cut into the parts that are recognised
// one by one. Operators paste a collection script's concatenated output as often as one
// command's output: shell prompts, `tail -n +1 *` headers ("==> FILE <=="), echo'd banners
// ("### ethtool -S eth2", "---- cmd ----", "=== cmd ===", ">>> cmd"), `set -x` trace lines
// ("+ ethtool -S eth2") and `watch` headers separate the commands, with unrelated output (sar,
// free, top, ...) between them. Each part is read on its own; what no format reads is a note
// naming the file and its lines.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "collectors/bundle/bundle_model.h"

namespace rh::bundle {

/// The command of a shell prompt line, nullopt when `line` is not one. Prompts start at column
/// 0: "[root@gpu01 ~]# ethtool -S ens1f0np0", "user@host:~$ cmd", "root@h:/tmp# cmd", "$ cmd",
/// "# cmd" (also a comment line: its text is then the "command"). A prompt with no command
/// gives "".
std::optional<std::string> prompt_command(std::string_view line);

/// The host a prompt line names ("[root@gpu01 ~]# ..." -> "gpu01", "user@gpu01:~$" ->
/// "gpu01"); "" when the line is not such a prompt or names a placeholder ("localhost").
std::string prompt_host(std::string_view line);

/// What a section marker line says.
struct SectionMarker {
    enum class Kind {
        prompt,       ///< a shell prompt (prompt_command)
        file_header,  ///< "==> NAME <==" (`tail -n +1` / `head` of several files)
        banner,       ///< "### cmd", "## cmd", "---- cmd ----", "=== cmd ===", ">>> cmd"
        trace,        ///< "+ cmd" / "++ cmd" (`set -x`)
        watch,        ///< "Every 5.0s: cmd    host: Wed Jan 14 16:20:05 2026" (`watch`)
    };
    Kind kind;
    std::string text;  ///< the command, or the file name / path of a file header
};

/// The marker `line` is, nullopt for any other line. Markers start at column 0 and carry text
/// ("----" alone, `dstat`'s "----total-cpu-usage----" and "###" are not markers).
std::optional<SectionMarker> section_marker(std::string_view line);

/// The command a `watch` header names ("Every 5.0s: ethtool -S eth2 | grep pause   gpu01: Wed
/// Jan 14 16:20:05 2026" -> "ethtool -S eth2 | grep pause"), nullopt when `line` is not one.
std::optional<std::string> watch_command(std::string_view line);

/// Cuts a file at its section markers (section_marker). Each part holds the lines after one
/// marker up to the next (the lines before the first marker are a part of their own) and
/// the marker's text as TextFile::command and TextFile::label (an interface name in it is
/// evidence like one in a file name); the marker lines and other parts' lines are blanked, so line
/// numbers stay the file's. A `watch` header stays the first line of its part (it is also
/// the capture's clock). Runs of file headers followed by one value line each (`tail -n +1
/// .../hw_counters/*`: "==> path <==" then the counter's value) are one part with their
/// headers kept: a counter listing (parse_hw_counters.cpp). Parts with no content are
/// dropped; a file without markers is one part.
std::vector<TextFile> split_sections(const TextFile& f);

/// "collect.txt:120-164" (1-based lines of the first and last non-blank line of `part`), or
/// "collect.txt:120" for one line: where a part that no format reads sits.
std::string part_lines(const TextFile& part);

/// The note for a part no format reads: "output of `free -m` is not a format rocehealth
/// reads; ignored" (subject part_lines).
std::string skipped_part_text(const TextFile& part);

}  // namespace rh::bundle
