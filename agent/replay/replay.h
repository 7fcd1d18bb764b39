// The setup every analysis of recorded data shares — `diagnose` (recordings, captures, a --live
// span), `rules test` (scenarios) and the incast analysis (the participants' samples of one run):
// the store keeps everything, the engine judges lifetime counters too, and the verdict maps to
// the exit code one way. One place, so a scenario's expected exit is what diagnose would exit.
#pragma once

#include "rules/engine/engine.h"
#include "store/series_store.h"

namespace rh {

/// Limits of a store that holds recorded data: analysed whole, so no retention limit (seconds)
/// and no cap on points per series.
StoreLimits replay_store_limits();

/// EngineOptions of a diagnosis of recorded data: lifetime rules on (one capture's counts since
/// the last reset are evidence too). Callers add required_ports and counters_expected.
EngineOptions replay_engine_options();

/// The exit code of a diagnosis (core/exit_codes.h): kExitFindings with any finding; else
/// kExitOk when every applicable rule judged; else kExitCannotRun ("no findings" from data too
/// short to judge would read as healthy).
int diagnosis_exit_code(const EngineResult& result);

}  // namespace rh
