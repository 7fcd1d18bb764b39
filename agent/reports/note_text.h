// Notes as the text reports print them (check, diagnose): one shared layout.
#pragma once

#include <ostream>
#include <string_view>

#include <nlohmann/json.hpp>

namespace rh {

/// Prints "\n<heading>:" then "  <subject>: <text>" per Note JSON ({"subject", "text"}) in
/// `notes`; nothing when `notes` is empty.
void print_note_list(std::ostream& out, std::string_view heading, const nlohmann::json& notes);

}  // namespace rh
