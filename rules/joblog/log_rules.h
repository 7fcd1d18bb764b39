// The log rules: what a job's own errors (NCCL, UCX, perftest) and the kernel's messages say,
// joined with the counters and the findings of the same hosts (issue 28). A work completion
// error is a symptom; the finding names the evidence that explains it, in the order the field
// checks it, and says so when the data holds none:
//  - status 12 (transport retry counter exceeded) towards a peer: the peer's process or host
//    gone (OOM kill, segfault, GPU Xid, reboot; several hosts failing towards one peer),
//    physical-layer errors, a link flap, a pause storm, transport counters (ack timeouts,
//    sequence errors) — looked for from (retry_cnt + 1) x 4.096 us x 2^timeout before the error;
//  - status 13 (RNR retry exceeded): the receiver ran out of receive WQEs (its out_of_buffer /
//    rnr_nak_sent);
//  - status 10 (remote access) and 4 (local protection): host side, not the link;
//  - status 5 (flushed): a consequence, pointed at the first cause before it, or benign alone
//    after the process was killed;
//  - async port errors, kernel link downs, firmware command timeouts, PCIe AER errors;
//  - the traffic class or GID index the job set against the port's QoS and GID table.
// Rule ids start with "job_" (the job's log) or "kernel_" (the kernel's).
#pragma once

#include "rules/engine/engine.h"

namespace rh {

/// Appends to `result` the findings of the log events of `store` (SeriesStore::log_events),
/// reading the counters of `store` and the findings already in `result` (the time rules'), and
/// copies every event into result.log_events so none is dropped. Never throws for data content.
void judge_log_events(const SeriesStore& store, EngineResult& result);

}  // namespace rh
