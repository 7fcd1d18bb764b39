// What the HTTP endpoint serves, published by the run loop after each pass and rules run. The
// loop replaces whole immutable parts; a request copies the pointers under a short lock and
// renders from them, so a slow or stalled client never holds anything the loop needs. The
// documents are built on the first request for them (LazyDoc), not by the loop: a pass nobody
// scrapes costs no rendering (issue 13 §2).
#pragma once

#include <cstdint>
#include <memory>
#include <mutex>
#include <string>

#include <nlohmann/json.hpp>

#include "agent/daemon/lazy_doc.h"
#include "store/series_store.h"

namespace rh::agent {

/// Seconds between the copies of the inventory /api/v1/snapshot serves (besides one after each
/// inventory read): its counters move every pass, copying them every pass would cost the idle
/// agent for nobody.
inline constexpr double kSnapshotRefreshS = 5;

/// The run loop's store, shared with the /metrics document: the loop's adds and a render (in an
/// HTTP thread) take `mu`; the loop's rules run only reads, so it runs without it. Shared, so
/// a render in progress keeps a store a reload replaced alive.
struct SharedStore {
    explicit SharedStore(StoreLimits limits) : store(limits) {}
    std::mutex mu;
    SeriesStore store;
};

struct BoardView {
    /// /metrics body (Prometheus text), rendered at the first scrape after a pass from the store
    /// as it is then (at most one pass newer than the published findings and self metrics).
    std::shared_ptr<const LazyDoc<std::string>> metrics;
    /// /api/v1/findings body: the `diagnose --json` document of the last rules run (schema 1,
    /// agent/reports/diagnose_report.h), plus "agent": {"host", "rules_runs", "t"}.
    std::shared_ptr<const LazyDoc<nlohmann::json>> findings;
    /// /api/v1/snapshot body (snapshot --json) of a copy of the inventory taken after each
    /// inventory read and at most kSnapshotRefreshS apart (its counters that old at most).
    std::shared_ptr<const LazyDoc<std::string>> snapshot;
    std::uint64_t passes = 0;
    double last_pass_mono_s = 0;    ///< CLOCK_MONOTONIC seconds of the last pass; 0: none yet
    double collect_interval_s = 1;  ///< for /healthz staleness
    std::size_t devices = 0;        ///< RDMA devices the sampler found at its last inventory
    std::string sysfs_root;         ///< where it looked (for /healthz's reason)
    /// "SHA256:..." of responder.host_key_file's public key (auth::host_key_fingerprint), for
    /// /healthz; empty: no host key configured.
    std::string host_key_fingerprint;
};

class Board {
  public:
    BoardView get() const {
        std::lock_guard<std::mutex> l(m_);
        return v_;
    }
    /// Applies `f(BoardView&)` under the lock.
    template <typename F>
    void update(F&& f) {
        std::lock_guard<std::mutex> l(m_);
        f(v_);
    }

  private:
    mutable std::mutex m_;
    BoardView v_;
};

}  // namespace rh::agent
