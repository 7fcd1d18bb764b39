// Notes and evidence as the text reports print them (check, diagnose, incast): one shared layout.
#pragma once

#include <ostream>
#include <string_view>
#include <vector>

#include "core/finding.h"

namespace rh {

/// Prints "\n<heading>:" then "  <subject>: <text>" per note; nothing when `notes` is empty.
void print_note_list(std::ostream& out, std::string_view heading, const std::vector<Note>& notes);

/// A finding's evidence block: "    <name> = <value with unit>  (<source>)" per item (no
/// "(source)" when the source is empty; the value as rules/evidence_format.h evidence_text
/// prints it). Prints nothing for an empty list; the caller prints the "evidence:" heading.
void print_evidence(std::ostream& out, const std::vector<Evidence>& evidence);

}  // namespace rh
