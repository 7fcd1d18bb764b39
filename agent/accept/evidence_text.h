// Words for an evidence pointer of a stage, shown as link text in report.html and report.md:
// "/findings/0" -> "finding retransmits on h2", "/results/latency/5" -> "h1 → h3 write 64 KiB",
// "/counter_timelines/1" -> "rx_discards on h3", "/results/consistency/2" ->
// "consistency of netdev_mtu_bytes".
#pragma once

#include <string>

#include "agent/accept/report_model.h"

namespace rh::accept {

/// A short description of what `pointer` (validated by the model) names in stage `s`.
std::string describe_evidence(const Stage& s, const std::string& pointer);

}  // namespace rh::accept
