#include "probes/wire/stream_slots.h"

#include <cstring>

#include "probes/wire/slot.h"

namespace rh::stream {

const char* to_string(Bad b) {
    switch (b) {
        case Bad::none:
            return "none";
        case Bad::wrong_length:
            return "wrong_length";
        case Bad::wrong_seq:
            return "wrong_seq";
        case Bad::bad_trailer:
            return "bad_trailer";
        case Bad::bad_checksum:
            return "bad_checksum";
        case Bad::payload_mismatch:
            return "payload_mismatch";
    }
    return "?";
}

Patterns::Patterns(std::size_t size, unsigned queue_depth, std::uint32_t seed)
    : size_(size), payload_(queue_depth * (size - slot::kTrailerBytes)), hash_(queue_depth) {
    std::vector<std::byte> tmp(size);
    const std::size_t n = size - slot::kTrailerBytes;
    for (unsigned k = 0; k < queue_depth; ++k) {
        hash_[k] = slot::fill_payload(tmp, seed + k);
        std::memcpy(payload_.data() + k * n, tmp.data(), n);
    }
}

void Patterns::fill(std::span<std::byte> slot, unsigned k) const {
    const std::size_t n = size_ - slot::kTrailerBytes;
    std::memcpy(slot.data(), payload_.data() + k * n, n);
    slot::clear_trailer(slot.first(size_));
}

void Patterns::stamp(std::span<std::byte> slot, std::uint64_t n) const {
    slot::stamp(slot.first(size_), hash_[n % hash_.size()], seq_of(n));
}

std::span<const std::byte> Patterns::payload(unsigned k) const {
    const std::size_t body = size_ - slot::kTrailerBytes;
    return std::span(payload_).subspan(k * body, body);
}

Bad Patterns::check(std::span<const std::byte> slot, std::uint64_t n, std::uint64_t byte_len,
                    bool full) const {
    if (byte_len != size_ || slot.size() < size_) return Bad::wrong_length;
    const auto s = slot.first(size_);
    const unsigned k = static_cast<unsigned>(n % hash_.size());
    const std::uint32_t seq = seq_of(n);
    switch (slot::verify_trailer(s, seq)) {
        case slot::Check::ok:
            break;
        case slot::Check::wrong_seq:
            return Bad::wrong_seq;
        default:
            return Bad::bad_trailer;
    }
    // An intact trailer, but is it the one of the payload this message should carry?
    if (slot::load_checksum(s) != slot::checksum(hash_[k], seq)) return Bad::bad_checksum;
    // The receiver holds the expected bytes: memcmp (glibc AVX2) ran 4x faster than the
    // library's xxh3 on the bench host (bench/README.md), and it is exact.
    const std::size_t body = size_ - slot::kTrailerBytes;
    if (full && std::memcmp(s.data(), payload_.data() + k * body, body) != 0)
        return Bad::payload_mismatch;
    return Bad::none;
}

}  // namespace rh::stream
