// Message slot layout shared by WRITE, READ and SEND probes and stream sessions (pure; no verbs).
// Layout version 2 (protocol version 4, probes/wire/oob_protocol.h); S = slot size in bytes:
//
//   [0, S-16)    payload: deterministic bytes from a 32-bit seed (fill_payload)
//   [S-16, S-8)  checksum, u64 LE = XXH3-64(seq as 4 LE bytes, seed = XXH3-64(payload))
//   [S-8, S-4)   trailer check, u32 LE = fold32(XXH3-64(payload[0, P), seed = checksum ^ seq)),
//                P = min(kPrefixBytes, S-16)
//   [S-4, S)     seq, u32 LE, written LAST; a receiver polls it to see a message land
//
// Why two checksums: the payload hash costs a pass over S bytes (xxh3: ~1/30 ns per byte), the
// trailer check a constant ~10 ns. A receiver that cannot afford the full pass on every message
// (sampled verification, Sampler below) still checks the trailer of every message, which covers
// seq, the checksum field and the first P payload bytes (where a misplaced or torn write
// shows first). The payload hash is computed once per slot per phase; stamping a new seq costs
// two short hashes, independent of S. S must be a multiple of 8 and >= kMinSize.
//
// Version 1 (protocol <= 3) was an 8-byte trailer with FNV-1a-64 over payload || seq: 0.7 GB/s,
// i.e. one core could verify ~5.5 Gb/s (bench/README.md, data_path_bench).
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>

namespace rh::slot {

inline constexpr std::size_t kTrailerBytes = 16;
inline constexpr std::size_t kMinSize = 24;  ///< 8 payload bytes + trailer
inline constexpr std::size_t kPrefixBytes = 64;

/// True when `size` (bytes) is a usable slot size (multiple of 8, >= kMinSize).
bool valid_size(std::size_t size);

/// Fills the payload part of `slot` from `seed`; returns the payload hash (payload_hash).
/// `slot` must have a valid_size.
std::uint64_t fill_payload(std::span<std::byte> slot, std::uint32_t seed);

/// XXH3-64 of the payload part of `slot` (what fill_payload returns for an intact slot).
std::uint64_t payload_hash(std::span<const std::byte> slot);

/// The u64 checksum of a payload whose hash is `payload_hash`, carried with `seq`. O(1).
std::uint64_t checksum(std::uint64_t payload_hash, std::uint32_t seq);

/// The u32 trailer check of `slot` (reads its first kPrefixBytes payload bytes) for a given
/// checksum and seq. O(1).
std::uint32_t trailer_check(std::span<const std::byte> slot, std::uint64_t checksum,
                            std::uint32_t seq);

/// Writes checksum and trailer check, then seq (release store). O(1): the payload is only read
/// up to kPrefixBytes.
void stamp(std::span<std::byte> slot, std::uint64_t payload_hash, std::uint32_t seq);

/// Current seq of a slot (acquire load; safe to poll while the NIC writes the slot).
std::uint32_t load_seq(std::span<const std::byte> slot);

/// The checksum field of a slot.
std::uint64_t load_checksum(std::span<const std::byte> slot);

/// Zeroes the trailer (seq 0 never names a message).
void clear_trailer(std::span<std::byte> slot);

/// Outcome of a check, in the order they are tried: seq, trailer (prefix + checksum field),
/// then the full payload.
enum class Check { ok, wrong_seq, bad_trailer, bad_checksum };
const char* to_string(Check c);

/// Trailer only: seq == expected_seq and the trailer check over prefix, checksum and seq. O(1);
/// run on every received message. A stale checksum under a new seq is bad_trailer.
Check verify_trailer(std::span<const std::byte> slot, std::uint32_t expected_seq);

/// Full: verify_trailer, then the payload hash against the checksum field (reads all S bytes).
Check verify(std::span<const std::byte> slot, std::uint32_t expected_seq);

/// Which received messages get the full payload pass. Every message gets the trailer check;
/// a message is fully verified with probability `fraction` (0..1), chosen by a PRNG seeded per
/// receiver so that no fixed subset of slots is skipped for a whole run. fraction 1 verifies
/// every message (no PRNG call), 0 none.
class Sampler {
  public:
    /// `fraction` is clamped to [0, 1]; `seed` any value (e.g. the stream seed ^ QP index).
    explicit Sampler(double fraction = 1.0, std::uint64_t seed = 0);
    /// True when the next message should be fully verified.
    bool next();
    double fraction() const { return fraction_; }

  private:
    double fraction_;
    std::uint64_t threshold_;  ///< full verify when the 64-bit draw < threshold (fraction 1: max)
    std::uint64_t state_;
};

/// Default verify fraction for a message size (bytes), the policy bench/README.md explains:
/// full verification (1.0) up to kFullVerifyMaxBytes, where per-message costs dominate and a
/// core verifies more than a 400 Gb/s port delivers; above it 0.25, which keeps the full pass
/// at about a quarter of a core at 400 Gb/s.
inline constexpr std::size_t kFullVerifyMaxBytes = 16384;
double default_verify_fraction(std::size_t size_bytes);

}  // namespace rh::slot
