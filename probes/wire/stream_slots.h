// Message slots of a stream session (pure; no verbs). Slot layout as probes/wire/slot.h: payload,
// then checksum and seq in the 8-byte trailer.
//
// The sender owns `queue_depth` transmit slots; message n (0-based; seq = n + 1, as u32) goes out
// of transmit slot n % queue_depth, whose payload is slot::fill_payload(seed + n % queue_depth),
// filled once, then only its trailer is stamped per message. The receiver owns a ring of
// ring_slots(queue_depth) slots; message n lands in ring slot n % ring_slots.
//
// Because the receiver knows seed and queue depth, it rebuilds the expected payloads and their
// hashes once. Every received slot gets the O(1) trailer check (seq, slot::verify_trailer over
// prefix + checksum field, and the checksum field equal to the expected payload's); a sampled
// subset (slot::Sampler, the session's verify fraction) also gets the full pass: a memcmp against
// the expected copy (4x the speed of Debian's SSE2 build of xxh3 on the bench host, and exact;
// bench/README.md).
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <vector>

namespace rh::stream {

/// Receive WQEs the receiver keeps posted per QP (2 x queue depth: slack for a receiver thread
/// that falls behind by a burst before the sender meets receiver-not-ready).
inline unsigned recv_depth(unsigned queue_depth) {
    return 2 * queue_depth;
}
/// Ring slots per QP at the receiver: recv_depth + queue_depth. Message n may only be posted by
/// the sender once message n - queue_depth completed, i.e. took receive WQE n - queue_depth,
/// which the receiver posted only after verifying message n - queue_depth - recv_depth =
/// n - ring_slots: so a slot is never overwritten before the message in it was verified (for
/// WRITE with immediate too, whose data lands before its receive WQE is looked at).
inline unsigned ring_slots(unsigned queue_depth) {
    return recv_depth(queue_depth) + queue_depth;
}

/// Seq carried by message n (0-based): n + 1, modulo 2^32 (0 only after a wrap).
inline std::uint32_t seq_of(std::uint64_t n) {
    return static_cast<std::uint32_t>(n + 1);
}

/// Why a received slot is bad.
/// bad_trailer: the trailer check failed (prefix, checksum field or seq torn/corrupted);
/// bad_checksum: an intact trailer of another payload; payload_mismatch: the full pass failed.
enum class Bad { none, wrong_length, wrong_seq, bad_trailer, bad_checksum, payload_mismatch };
const char* to_string(Bad b);

/// The sender's transmit slots' payloads or the receiver's copy of them.
class Patterns {
  public:
    /// `size`: message bytes (slot::valid_size); fills queue_depth patterns from `seed`.
    Patterns(std::size_t size, unsigned queue_depth, std::uint32_t seed);

    /// Fills transmit slot k (k < queue_depth) of `slot` (size bytes) with its payload.
    void fill(std::span<std::byte> slot, unsigned k) const;
    /// Stamps the trailer of the transmit slot for message n (which must be slot n % depth).
    void stamp(std::span<std::byte> slot, std::uint64_t n) const;
    /// Checks a received slot that should hold message n; `byte_len` from the completion.
    /// `full`: also hash the whole payload (else only the O(1) trailer check).
    Bad check(std::span<const std::byte> slot, std::uint64_t n, std::uint64_t byte_len,
              bool full = true) const;
    /// The expected payload of transmit slot k (size - trailer bytes).
    std::span<const std::byte> payload(unsigned k) const;

    std::size_t size() const { return size_; }
    unsigned depth() const { return static_cast<unsigned>(hash_.size()); }

  private:
    std::size_t size_;
    std::vector<std::byte> payload_;  ///< depth x (size - trailer) bytes
    std::vector<std::uint64_t> hash_;
};

}  // namespace rh::stream
