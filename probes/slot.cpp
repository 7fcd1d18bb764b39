#include "probes/slot.h"

#include <cstring>

namespace rh::slot {

namespace {
constexpr std::uint64_t kFnvOffset = 0xcbf29ce484222325ull;
constexpr std::uint64_t kFnvPrime = 0x100000001b3ull;

std::uint64_t fnv(std::uint64_t h, const std::byte* p, std::size_t n) {
    for (std::size_t i = 0; i < n; ++i) {
        h ^= static_cast<std::uint8_t>(p[i]);
        h *= kFnvPrime;
    }
    return h;
}

void put_le32(std::byte* p, std::uint32_t v) {
    for (int i = 0; i < 4; ++i) p[i] = static_cast<std::byte>(v >> (8 * i));
}
std::uint32_t get_le32(const std::byte* p) {
    std::uint32_t v = 0;
    for (int i = 0; i < 4; ++i) v |= std::uint32_t(std::to_integer<std::uint8_t>(p[i])) << (8 * i);
    return v;
}
}  // namespace

bool valid_size(std::size_t size) {
    return size >= kMinSize && size % 8 == 0;
}

std::uint64_t fill_payload(std::span<std::byte> slot, std::uint32_t seed) {
    const std::size_t n = slot.size() - kTrailerBytes;
    std::uint32_t x = seed * 2654435761u + 0x9e3779b9u;  // xorshift32, never 0 for these seeds
    if (x == 0) x = 1;
    for (std::size_t i = 0; i < n; ++i) {
        x ^= x << 13;
        x ^= x >> 17;
        x ^= x << 5;
        slot[i] = static_cast<std::byte>(x);
    }
    return fnv(kFnvOffset, slot.data(), n);
}

std::uint64_t payload_hash(std::span<const std::byte> slot) {
    return fnv(kFnvOffset, slot.data(), slot.size() - kTrailerBytes);
}

std::uint32_t checksum(std::uint64_t payload_hash, std::uint32_t seq) {
    std::byte s[4];
    put_le32(s, seq);
    const std::uint64_t h = fnv(payload_hash, s, 4);
    return static_cast<std::uint32_t>(h ^ (h >> 32));
}

void stamp(std::span<std::byte> slot, std::uint64_t payload_hash, std::uint32_t seq) {
    std::byte* t = slot.data() + slot.size() - kTrailerBytes;
    put_le32(t, checksum(payload_hash, seq));
    std::byte s[4];
    put_le32(s, seq);
    std::uint32_t word;
    std::memcpy(&word, s, 4);
    __atomic_store_n(reinterpret_cast<std::uint32_t*>(t + 4), word, __ATOMIC_RELEASE);
}

std::uint32_t load_seq(std::span<const std::byte> slot) {
    const std::byte* p = slot.data() + slot.size() - 4;
    const std::uint32_t word =
        __atomic_load_n(reinterpret_cast<const std::uint32_t*>(p), __ATOMIC_ACQUIRE);
    std::byte s[4];
    std::memcpy(s, &word, 4);
    return get_le32(s);
}

void clear_trailer(std::span<std::byte> slot) {
    std::memset(slot.data() + slot.size() - kTrailerBytes, 0, kTrailerBytes);
}

Check verify(std::span<const std::byte> slot, std::uint32_t expected_seq) {
    const std::byte* t = slot.data() + slot.size() - kTrailerBytes;
    const std::uint32_t seq = get_le32(t + 4);
    if (seq != expected_seq) return Check::wrong_seq;
    if (get_le32(t) != checksum(payload_hash(slot), seq)) return Check::bad_checksum;
    return Check::ok;
}

}  // namespace rh::slot
