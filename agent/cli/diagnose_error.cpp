#include "agent/cli/diagnose_error.h"

#include <sstream>

namespace rh::cli {

int StderrCopy::overflow(int c) {
    if (c == traits_type::eof()) return traits_type::not_eof(c);
    if (text_.size() < kKeep) text_.push_back(static_cast<char>(c));
    return to_->sputc(static_cast<char>(c));
}

std::streamsize StderrCopy::xsputn(const char* s, std::streamsize n) {
    if (text_.size() < kKeep) text_.append(s, static_cast<std::size_t>(n));
    return to_->sputn(s, n);
}

nlohmann::json diagnose_error_json(const std::string& messages) {
    nlohmann::json doc{{"schema", 1}, {"verdict", "error"}};
    std::string error;
    auto notes = nlohmann::json::array(), lines = nlohmann::json::array();
    std::istringstream in(messages);
    const std::string prefix = "rocehealth diagnose: ";
    for (std::string line; std::getline(in, line);) {
        if (line.empty()) continue;
        lines.push_back(line);
        if (line.rfind(prefix, 0) != 0) continue;
        const std::string text = line.substr(prefix.size());
        if (text.rfind("note: ", 0) == 0)
            notes.push_back(text.substr(6));
        else if (error.empty())
            error = text;
    }
    doc["error"] = error.empty() ? "could not run (no message)" : error;
    doc["notes"] = std::move(notes);
    doc["messages"] = std::move(lines);
    return doc;
}

}  // namespace rh::cli
