// One poll() pass (collectors/poller/counter_poller.h) over a Plan: reads every kept file into
// the Snapshot it was given, asks the per-pass sources, and re-normalizes the ports whose raw
// values changed. It holds the pass's Snapshot and result for its own life only. Internal to
// collectors/poller/.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "collectors/poller/counter_poller.h"
#include "collectors/poller/poll_plan.h"
#include "core/inventory/inventory.h"

namespace rh::poll {

/// What take_counters changed.
enum class Took : std::uint8_t;

class Pass {
  public:
    Pass(Plan& plan, Snapshot& snap, PollResult& result);

    /// The pass: collected_at, directory checks, files, per-pass sources, normalization. Throws
    /// only for what is no sysfs content (allocation); CounterPoller::poll catches it.
    void run();
    /// Asks for rediscovery, saying `why` (a sentence naming the path).
    void rediscover(std::string why);

  private:
    void read_files();
    void refresh_sources();
    SourcePass& pass_of(Source s);
    void note(std::uint32_t dev, std::string subject, std::string text);
    std::string port_subject(const File& f) const;
    Counter& counter_of(const File& f);
    Netdev& netdev_of(const File& f);
    void netdev_note(const File& f, const std::string& text);
    void fail(File& f, const Error& e, bool noted);
    void store(File& f, std::string_view raw);
    void store_text(File& f, std::string_view text);
    void store_aer(File& f, std::vector<Counter>& aer, std::string_view text);
    void took(std::uint32_t dev, std::uint32_t port, Took t);
    void set_raw(const File& f, std::optional<std::uint64_t>& slot, std::optional<std::uint64_t> v);

    Plan& plan_;
    Snapshot& snap_;
    PollResult& result_;
    std::vector<char> device_gone_;  ///< per device: answered ENODEV this pass
    std::vector<char> netdev_gone_;  ///< per NetdevEntry: answered ENODEV this pass
    std::string slow_;               ///< text of a file read through the slow path
};

}  // namespace rh::poll
