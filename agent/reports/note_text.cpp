#include "agent/reports/note_text.h"

#include "rules/evidence_format.h"

namespace rh {

void print_note_list(std::ostream& out, std::string_view heading, const std::vector<Note>& notes) {
    if (notes.empty()) return;
    out << "\n" << heading << ":\n";
    for (const Note& n : notes) out << "  " << n.subject << ": " << n.text << "\n";
}

void print_evidence(std::ostream& out, const std::vector<Evidence>& evidence) {
    for (const Evidence& e : evidence) {
        out << "    " << e.name << " = " << evidence_text(e.value, e.unit);
        if (!e.source.empty()) out << "  (" << e.source << ")";
        out << "\n";
    }
}

}  // namespace rh
