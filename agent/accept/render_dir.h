// Renders an existing report directory: reads DIR/report.json, validates it (report_model.h) and
// writes DIR/report.html and DIR/report.md beside it (each through a temporary file renamed into
// place, so a reader never sees half a file).
#pragma once

#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "agent/accept/report_model.h"

namespace rh::accept {

struct RenderOutcome {
    std::optional<Verdict> verdict;   ///< set when both files were written
    std::vector<std::string> errors;  ///< "DIR/report.json: stages[2].verdict: ..." otherwise
    std::filesystem::path html, md;   ///< the files written
};

RenderOutcome render_report_dir(const std::filesystem::path& dir);

/// Writes `text` to `path` through `path.tmp` + rename; "" on success, else the reason.
std::string write_file_atomically(const std::filesystem::path& path, const std::string& text);

}  // namespace rh::accept
