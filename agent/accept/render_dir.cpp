#include "agent/accept/render_dir.h"

#include <cerrno>
#include <cstring>
#include <fstream>
#include <sstream>

#include "agent/accept/render_html.h"
#include "agent/accept/render_md.h"

namespace rh::accept {

std::string write_file_atomically(const std::filesystem::path& path, const std::string& text) {
    const std::filesystem::path tmp = path.string() + ".tmp";
    {
        std::ofstream out(tmp, std::ios::binary | std::ios::trunc);
        if (!out) return "cannot open " + tmp.string() + " for writing: " + std::strerror(errno);
        out << text;
        out.flush();
        if (!out) return "cannot write " + tmp.string() + ": " + std::strerror(errno);
    }
    std::error_code ec;
    std::filesystem::rename(tmp, path, ec);
    if (ec) {
        const std::string why = ec.message();  // before remove() reuses ec
        std::filesystem::remove(tmp, ec);
        return "cannot rename " + tmp.string() + " to " + path.string() + ": " + why;
    }
    return "";
}

RenderOutcome render_report_dir(const std::filesystem::path& dir) {
    RenderOutcome out;
    const std::filesystem::path json_path = dir / "report.json";
    std::ifstream in(json_path, std::ios::binary);
    if (!in) {
        out.errors.push_back(json_path.string() + ": cannot read: " + std::strerror(errno));
        return out;
    }
    std::ostringstream text;
    text << in.rdbuf();
    ParsedReport parsed = report_from_text(text.str());
    if (!parsed.report) {
        for (const auto& e : parsed.errors)
            out.errors.push_back(json_path.string() + ": " + e.text());
        return out;
    }
    out.html = dir / "report.html";
    out.md = dir / "report.md";
    for (const auto& [path, body] : {std::pair{out.html, render_html(*parsed.report)},
                                     std::pair{out.md, render_md(*parsed.report)}}) {
        const std::string problem = write_file_atomically(path, body);
        if (!problem.empty()) {
            out.errors.push_back(problem);
            return out;
        }
    }
    out.verdict = parsed.report->verdict;
    return out;
}

}  // namespace rh::accept
