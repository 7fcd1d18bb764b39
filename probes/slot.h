// Message slot layout shared by WRITE and READ probes (pure; no verbs).
//
//   [0, S-8)    payload: deterministic bytes from a 32-bit seed (pattern_byte)
//   [S-8, S-4)  checksum, u32 little-endian = fold32(FNV-1a-64(payload || seq as 4 LE bytes))
//   [S-4, S)    seq, u32 little-endian, written LAST; a receiver polls it to see a message land
//
// The payload hash is computed once per slot per phase; stamping a new seq is then O(1), while
// verifying a received slot reads all S bytes. S must be a multiple of 8 and >= 16.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>

namespace rh::slot {

inline constexpr std::size_t kTrailerBytes = 8;
inline constexpr std::size_t kMinSize = 16;

/// True when `size` is a usable slot size (multiple of 8, >= kMinSize).
bool valid_size(std::size_t size);

/// Fills the payload part of `slot` from `seed`; returns the FNV-1a-64 state after the payload.
std::uint64_t fill_payload(std::span<std::byte> slot, std::uint32_t seed);

/// FNV-1a-64 of the payload part of `slot` (what fill_payload returns for an intact slot).
std::uint64_t payload_hash(std::span<const std::byte> slot);

/// Checksum of (payload whose hash is `payload_hash`) followed by `seq`.
std::uint32_t checksum(std::uint64_t payload_hash, std::uint32_t seq);

/// Writes checksum then seq (release store) into the trailer.
void stamp(std::span<std::byte> slot, std::uint64_t payload_hash, std::uint32_t seq);

/// Current seq of a slot (acquire load; safe to poll while the NIC writes the slot).
std::uint32_t load_seq(std::span<const std::byte> slot);

/// Zeroes the trailer (seq 0 never names a message).
void clear_trailer(std::span<std::byte> slot);

enum class Check { ok, wrong_seq, bad_checksum };
/// Verifies seq == expected_seq and the checksum over payload + seq.
Check verify(std::span<const std::byte> slot, std::uint32_t expected_seq);

}  // namespace rh::slot
