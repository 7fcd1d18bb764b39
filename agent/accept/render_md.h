// report.md: the acceptance report as a Markdown summary to paste into a ticket — verdict,
// stage table, failing criteria with measured vs required and their evidence, error and warning
// findings, key numbers per stage. All report text is escaped (md_escape), so a host name cannot
// open a link, an HTML tag or a new table cell.
#pragma once

#include <string>

#include "agent/accept/report_model.h"

namespace rh::accept {

/// The Markdown summary of a validated report. Pure: no I/O.
std::string render_md(const Report& r);

}  // namespace rh::accept
