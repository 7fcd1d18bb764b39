#include "agent/reports/note_text.h"

namespace rh {

void print_note_list(std::ostream& out, std::string_view heading, const nlohmann::json& notes) {
    if (notes.empty()) return;
    out << "\n" << heading << ":\n";
    for (const auto& n : notes)
        out << "  " << n["subject"].get<std::string>() << ": " << n["text"].get<std::string>()
            << "\n";
}

}  // namespace rh
