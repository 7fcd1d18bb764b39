// rocehealth accept: the acceptance report of a RoCE fabric (agent/accept/README.md).
// `accept --render DIR` renders an existing DIR/report.json into DIR/report.html (one
// self-contained page) and DIR/report.md (a summary for tickets). Running the acceptance stages
// from a spec (`accept --spec FILE --out DIR`) is not implemented yet.
// Exit: 0 the report's verdict is pass, 1 fail, 2 could not run (unreadable or invalid
// report.json — each problem names its JSON path — or an incomplete report).
#include <iostream>

#include "agent/accept/render_dir.h"
#include "agent/commands.h"
#include "agent/options.h"

namespace rh::cli {

int run_accept(const std::vector<std::string>& args) {
    po::options_description desc("options");
    std::string render_dir;
    desc.add_options()("help,h", "show this help")(
        "render", po::value(&render_dir),
        "render DIR/report.json into DIR/report.html and DIR/report.md");
    po::variables_map vm;
    if (auto exit =
            parse_options("accept", "rocehealth accept --render DIR",
                          "Render an acceptance report (report.json) as HTML and Markdown.\n"
                          "Exit: 0 pass, 1 fail, 2 could not run or incomplete.",
                          args, desc, vm))
        return *exit;
    if (render_dir.empty()) {
        std::cerr << "rocehealth accept: give --render DIR (running the stages from a spec is "
                     "not implemented yet)\n";
        return kExitCannotRun;
    }
    const auto out = accept::render_report_dir(render_dir);
    if (!out.verdict) {
        for (const auto& e : out.errors) std::cerr << "rocehealth accept: " << e << "\n";
        return kExitCannotRun;
    }
    std::cout << "acceptance " << accept::to_string(*out.verdict) << ": wrote " << out.html.string()
              << " and " << out.md.string() << "\n";
    switch (*out.verdict) {
        case accept::Verdict::pass:
            return kExitOk;
        case accept::Verdict::fail:
            return kExitFindings;
        case accept::Verdict::incomplete:
            return kExitCannotRun;
    }
    return kExitCannotRun;
}

}  // namespace rh::cli
