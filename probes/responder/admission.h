// Who may hold a responder's sessions (issue 27, "Unauthenticated budgets"). Every connection is in
// one pool at a time, and the pools are counted apart so that strangers can never take the
// places of key holders:
//
//   lobby   accepted, no fabric key proven yet, waiting for its first frame (or, after one
//           hello, for auth). No thread: the accept loop reads it (probes/responder/front_door.h).
//   auth    a fabric-key handshake in progress (one thread each, a few seconds at most).
//   probe   an unauthenticated latency probe session (the mesh's probes; one thread each).
//   keyed   a connection that proved the fabric key: control commands and keyed probes.
//
// Per source address (address_group: an IPv4 address, or the /64 of an IPv6 one; an IPv4-mapped
// IPv6 address counts as its IPv4 address) at most `preauth_per_address` connections in lobby +
// auth together, and at most `probe_per_address` in probe; each pool has its own total. The keyed
// pool has no per-address cap. Pure counting, thread-safe (sessions leave from their threads).
#pragma once

#include <array>
#include <cstddef>
#include <mutex>
#include <string>
#include <unordered_map>

namespace rh {

enum class Pool { lobby, auth, probe, keyed };
const char* to_string(Pool p);

struct AdmissionLimits {
    unsigned preauth_per_address = 2;  ///< lobby + auth, per address group
    unsigned lobby = 256;              ///< threadless: an fd and <= 4 KiB of frame each
    unsigned auth = 32;                ///< handshakes in progress (a thread each, <= 5 s)
    unsigned probe_per_address = 2;    ///< unauthenticated probe sessions per address group
    unsigned probe = 16;               ///< unauthenticated probe sessions (`--max-sessions`:
                                       ///< a mesh keeps one session per peer host open)
    unsigned keyed = 16;               ///< `responder --max-sessions`
};

/// Why a connection may not enter a pool.
enum class Refusal { none, address_cap, pool_full };

/// The group a source address counts in: "10.0.0.2" for 10.0.0.2 and ::ffff:10.0.0.2,
/// "2001:db8:1:2::/64" for any address of that /64 (a zone "%eth0" is dropped first). Text that
/// is no address is its own group.
std::string address_group(const std::string& address);

class Admission {
  public:
    explicit Admission(AdmissionLimits limits) : limits_(limits) {}

    /// A new connection from `group` enters `to` (Refusal::none) or is refused (nothing counted).
    Refusal enter(Pool to, const std::string& group);
    /// Moves one connection of `group` from `from` to `to`; on a refusal it stays in `from`.
    /// lobby -> auth keeps its place under the per-address pre-auth cap.
    Refusal move(Pool from, Pool to, const std::string& group);
    /// One connection of `group` leaves `from`.
    void leave(Pool from, const std::string& group);

    unsigned in(Pool p) const;
    /// Connections of `group` in lobby + auth (the per-address pre-auth count).
    unsigned preauth_of(const std::string& group) const;
    /// Groups with a connection in lobby, auth or probe (a bound on memory: at most the sum of
    /// those pools).
    std::size_t groups() const;
    const AdmissionLimits& limits() const { return limits_; }
    /// The text a refused client gets, naming the cap (fits a fixed error frame, <= 95 chars).
    std::string refusal_text(Refusal r, Pool to) const;

  private:
    struct Counts {
        unsigned preauth = 0;  // lobby + auth
        unsigned probe = 0;
    };
    Refusal check_locked(Pool to, const Counts& c, bool keeps_preauth_place) const;
    void add_locked(Pool p, const std::string& group, int delta);
    unsigned total(Pool p) const { return totals_[static_cast<std::size_t>(p)]; }

    AdmissionLimits limits_;
    mutable std::mutex mutex_;
    std::array<unsigned, 4> totals_{};
    std::unordered_map<std::string, Counts> groups_;
};

}  // namespace rh
