// report.html: the acceptance report as one self-contained page — inline CSS, inline SVG
// charts, no scripts and no external fetches (a Content-Security-Policy forbids both). The
// summary verdict comes first, then each stage with its criteria (failing rows highlighted and
// linked to their evidence by #anchors), results, findings with their timelines, counter
// timelines and links to the raw files. All text from the report is escaped.
#pragma once

#include <string>

#include "agent/accept/report_model.h"

namespace rh::accept {

/// The page for a validated report (report_from_json). Pure: no I/O.
std::string render_html(const Report& r);

}  // namespace rh::accept
