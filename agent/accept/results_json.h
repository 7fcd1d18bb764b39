// Reading and writing the stage-specific "results" object of each stage (agent/accept/README.md,
// "Stage results"). Internal to the report model (report_model.cpp).
#pragma once

#include <set>
#include <string>

#include <nlohmann/json.hpp>

#include "agent/accept/report_model.h"
#include "core/json/json_reader.h"

namespace rh::accept {

/// The results of stage `id` at `in` (an object). `hosts` are the report's host names: a host
/// named in the results but not there is reported. Problems go to in's error list.
StageResults results_from_json(StageId id, const JsonReader& in,
                               const std::set<std::string>& hosts);

/// The results as JSON; null for std::monostate.
nlohmann::json results_to_json(const StageResults& r);

/// Number of elements of the array `key` in these results (for evidence pointers
/// "/results/KEY/N"); nullopt when the results have no such array.
std::optional<std::size_t> results_array_size(const StageResults& r, const std::string& key);

}  // namespace rh::accept
