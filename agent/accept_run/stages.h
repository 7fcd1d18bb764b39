// The acceptance stages `rocehealth accept --spec` runs (agent/accept/README.md). Each returns
// its Stage for report.json: criteria from the spec, results, findings, raw files saved under
// the output directory (linked from evidence_links), and recording lines added to cx.samples.
// A stage that cannot run at all returns verdict `error` with the reason.
#pragma once

#include "agent/accept_run/run_context.h"

namespace rh::accept {

/// Every host's facts through its responder's "inventory" command, and consistency across
/// hosts (a host that differs on a must-match fact is named; each such fact is a criterion).
Stage run_inventory_stage(RunContext& cx);

/// All ordered pairs: each source's responder probes the destination's ("probe" command), WRITE
/// and READ at the spec's sizes; p99 bound per size (worst pair), checksum errors, failed phases.
Stage run_latency_stage(RunContext& cx);

/// One sender at a time in a ring (host i -> host i+1), through the incast machinery: goodput as
/// a fraction of the slower end's link rate (worst pair), error findings.
Stage run_bandwidth_stage(RunContext& cx);

/// Every ring pair at once (each its own single-sender run, started together): per-flow
/// fraction of link rate (worst flow), Jain's index of the flows, error findings.
Stage run_concurrency_stage(RunContext& cx);

/// N -> 1 through the incast coordinator, with the victim probe, fairness, counters and findings.
Stage run_incast_stage(RunContext& cx);

/// The spec's fault host takes its RDMA link down and up (probes/responder/control_fault.h): link
/// and traffic recovery times, the rules must see the flap, other error findings.
Stage run_fault_stage(RunContext& cx);

/// From this host to every host: RDMA WRITE and READ with a deregistered rkey must end
/// IBV_WC_REM_ACCESS_ERR (probes/responder/rkey_revocation.h).
Stage run_rkey_stage(RunContext& cx);

}  // namespace rh::accept
