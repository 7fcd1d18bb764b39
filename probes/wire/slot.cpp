#include "probes/wire/slot.h"

#include <xxhash.h>

#include <algorithm>
#include <cmath>
#include <cstring>

namespace rh::slot {

namespace {

void put_le32(std::byte* p, std::uint32_t v) {
    for (int i = 0; i < 4; ++i) p[i] = static_cast<std::byte>(v >> (8 * i));
}
std::uint32_t get_le32(const std::byte* p) {
    std::uint32_t v = 0;
    for (int i = 0; i < 4; ++i) v |= std::uint32_t(std::to_integer<std::uint8_t>(p[i])) << (8 * i);
    return v;
}
void put_le64(std::byte* p, std::uint64_t v) {
    for (int i = 0; i < 8; ++i) p[i] = static_cast<std::byte>(v >> (8 * i));
}
std::uint64_t get_le64(const std::byte* p) {
    std::uint64_t v = 0;
    for (int i = 0; i < 8; ++i) v |= std::uint64_t(std::to_integer<std::uint8_t>(p[i])) << (8 * i);
    return v;
}

std::size_t body_bytes(std::span<const std::byte> slot) {
    return slot.size() - kTrailerBytes;
}

/// splitmix64: a full-period 64-bit generator, enough to pick which messages are sampled.
std::uint64_t splitmix(std::uint64_t& s) {
    std::uint64_t z = (s += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

}  // namespace

bool valid_size(std::size_t size) {
    return size >= kMinSize && size % 8 == 0;
}

std::uint64_t fill_payload(std::span<std::byte> slot, std::uint32_t seed) {
    const std::size_t n = body_bytes(slot);
    std::uint32_t x = seed * 2654435761u + 0x9e3779b9u;  // xorshift32 state must not be 0
    if (x == 0) x = 1;
    for (std::size_t i = 0; i < n; ++i) {
        x ^= x << 13;
        x ^= x >> 17;
        x ^= x << 5;
        slot[i] = static_cast<std::byte>(x);
    }
    return payload_hash(slot);
}

std::uint64_t payload_hash(std::span<const std::byte> slot) {
    return XXH3_64bits(slot.data(), body_bytes(slot));
}

std::uint64_t checksum(std::uint64_t payload_hash, std::uint32_t seq) {
    std::byte s[4];
    put_le32(s, seq);
    return XXH3_64bits_withSeed(s, sizeof s, payload_hash);
}

std::uint32_t trailer_check(std::span<const std::byte> slot, std::uint64_t checksum,
                            std::uint32_t seq) {
    const std::size_t p = std::min(kPrefixBytes, body_bytes(slot));
    const std::uint64_t h = XXH3_64bits_withSeed(slot.data(), p, checksum ^ seq);
    return static_cast<std::uint32_t>(h ^ (h >> 32));
}

void stamp(std::span<std::byte> slot, std::uint64_t payload_hash, std::uint32_t seq) {
    std::byte* t = slot.data() + body_bytes(slot);
    const std::uint64_t c = checksum(payload_hash, seq);
    put_le64(t, c);
    put_le32(t + 8, trailer_check(slot, c, seq));
    std::byte s[4];
    put_le32(s, seq);
    std::uint32_t word;
    std::memcpy(&word, s, 4);
    __atomic_store_n(reinterpret_cast<std::uint32_t*>(t + 12), word, __ATOMIC_RELEASE);
}

std::uint32_t load_seq(std::span<const std::byte> slot) {
    const std::byte* p = slot.data() + slot.size() - 4;
    const std::uint32_t word =
        __atomic_load_n(reinterpret_cast<const std::uint32_t*>(p), __ATOMIC_ACQUIRE);
    std::byte s[4];
    std::memcpy(s, &word, 4);
    return get_le32(s);
}

std::uint64_t load_checksum(std::span<const std::byte> slot) {
    return get_le64(slot.data() + body_bytes(slot));
}

void clear_trailer(std::span<std::byte> slot) {
    std::memset(slot.data() + body_bytes(slot), 0, kTrailerBytes);
}

const char* to_string(Check c) {
    switch (c) {
        case Check::ok:
            return "ok";
        case Check::wrong_seq:
            return "wrong_seq";
        case Check::bad_trailer:
            return "bad_trailer";
        case Check::bad_checksum:
            return "bad_checksum";
    }
    return "?";
}

Check verify_trailer(std::span<const std::byte> slot, std::uint32_t expected_seq) {
    const std::byte* t = slot.data() + body_bytes(slot);
    if (get_le32(t + 12) != expected_seq) return Check::wrong_seq;
    if (get_le32(t + 8) != trailer_check(slot, get_le64(t), expected_seq))
        return Check::bad_trailer;
    return Check::ok;
}

Check verify(std::span<const std::byte> slot, std::uint32_t expected_seq) {
    if (const Check c = verify_trailer(slot, expected_seq); c != Check::ok) return c;
    if (load_checksum(slot) != checksum(payload_hash(slot), expected_seq))
        return Check::bad_checksum;
    return Check::ok;
}

Sampler::Sampler(double fraction, std::uint64_t seed)
    : fraction_(std::isnan(fraction) ? 1.0 : std::clamp(fraction, 0.0, 1.0)), state_(seed) {
    // 2^64 * fraction without overflow; fraction 1 never consults the PRNG (next()).
    threshold_ = fraction_ >= 1.0 ? ~0ull : static_cast<std::uint64_t>(std::ldexp(fraction_, 64));
}

bool Sampler::next() {
    if (fraction_ >= 1.0) return true;
    if (fraction_ <= 0.0) return false;
    return splitmix(state_) < threshold_;
}

double default_verify_fraction(std::size_t size_bytes) {
    return size_bytes <= kFullVerifyMaxBytes ? 1.0 : 0.25;
}

}  // namespace rh::slot
