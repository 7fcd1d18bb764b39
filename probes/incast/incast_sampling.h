// Counter sampling on request over the control channel: a participant of an incast samples its
// counters every interval and streams each pass to the coordinator as it is taken.
//
//   C -> P  sample          {interval_ms, max_ms}
//   P -> C  sample_started  {wall_ms}                 (or an error message: no sampler, no device)
//   P -> C  sample_pass     {wall_ms, part, samples: [recording lines], notes: [...]} every
//                           interval; a pass larger than kChunkBytes goes out in several frames
//                           (part 0, 1, ...)
//   C -> P  stop
//   P -> C  sample_end      {passes, reason}
// Sampling ends at stop, at max_ms, when the coordinator closes the connection or the responder
// stops. The samples are recording lines (store/README.md), made by the agent's HostSampler:
// the probes library only carries them (PassSource), so it does not depend on the collectors.
#pragma once

#include <atomic>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/result.h"
#include "probes/wire/tcp.h"

namespace rh::incast {

/// One host's collection passes as recording lines.
class PassSource {
  public:
    virtual ~PassSource() = default;
    /// One pass now: a JSON array of sample objects (core/recording/sample_json.h to_json_line); notes
    /// (e.g. a device rediscovered) are appended to `notes`.
    virtual nlohmann::json pass(std::vector<std::string>& notes) = 0;
};

/// Makes a PassSource (discovers devices); an Error when there is nothing to sample.
using PassSourceFactory = std::function<Result<std::unique_ptr<PassSource>>()>;

inline constexpr std::size_t kChunkBytes = 512 * 1024;
inline constexpr std::uint32_t kMinIntervalMs = 100;
inline constexpr std::uint32_t kMaxSampleMs = 3'600'000 + 600'000;

/// Serves a sample session whose first message is `req`. Without a factory it answers with an
/// error message ("this responder has no counter sampler").
void serve_sample(const tcp::Socket& s, const nlohmann::json& req, const PassSourceFactory& make,
                  const std::atomic<bool>& stop,
                  const std::function<void(const std::string&)>& log);

/// Splits one pass's samples into sample_pass frames of at most about kChunkBytes each.
std::vector<nlohmann::json> pass_frames(const nlohmann::json& samples,
                                        const std::vector<std::string>& notes,
                                        std::int64_t wall_ms);

}  // namespace rh::incast
