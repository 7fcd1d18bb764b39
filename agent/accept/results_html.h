// HTML for each stage's "results" (tables and charts), and the anchor ids that criteria link to.
// Internal to the HTML renderer (render_html.cpp).
#pragma once

#include <set>
#include <string>

#include "agent/accept/report_model.h"

namespace rh::accept {

/// Element id of a stage section: "stage-incast".
std::string stage_anchor(StageId id);

/// Element id of what an evidence pointer of stage `id` names: "/results/senders/2" ->
/// "stage-incast-results-senders-2", "/findings/0" -> "stage-incast-findings-0". Pointers are
/// validated by the model (digits, lowercase names and '_'), so ids need no escaping.
std::string evidence_anchor(StageId id, const std::string& pointer);

/// Pointers named as evidence by the stage's failing criteria: the renderers mark those rows.
std::set<std::string> failing_evidence(const Stage& s);

/// The stage's results: tables whose rows carry evidence anchors (flagged rows highlighted),
/// and charts. `hosts` orders the heat maps. "" when the stage has no results.
std::string results_html(const Stage& s, const std::vector<std::string>& hosts);

}  // namespace rh::accept
