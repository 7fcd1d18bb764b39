#include "store/point_seq.h"

#include <algorithm>
#include <cassert>
#include <cstring>

namespace rh {

namespace {

/// The fewest bytes (0, 1, 2, 4, 8) that hold `v`.
std::uint8_t width_of(std::uint64_t v) {
    if (v == 0) return 0;
    if (v <= 0xff) return 1;
    if (v <= 0xffff) return 2;
    if (v <= 0xffffffff) return 4;
    return 8;
}

void store(std::uint8_t* p, std::uint8_t width, std::uint64_t v) {
    switch (width) {
        case 0:
            return;
        case 1:
            *p = static_cast<std::uint8_t>(v);
            return;
        case 2: {
            const auto x = static_cast<std::uint16_t>(v);
            std::memcpy(p, &x, 2);
            return;
        }
        case 4: {
            const auto x = static_cast<std::uint32_t>(v);
            std::memcpy(p, &x, 4);
            return;
        }
        default:
            std::memcpy(p, &v, 8);
            return;
    }
}

}  // namespace

std::uint64_t TimeTable::intern(double t, double t_s) {
    if (!entries_.empty()) {
        const auto& [bt, bts] = entries_.back();
        if (std::bit_cast<std::uint64_t>(bt) == std::bit_cast<std::uint64_t>(t) &&
            std::bit_cast<std::uint64_t>(bts) == std::bit_cast<std::uint64_t>(t_s))
            return end() - 1;
    }
    entries_.push_back({t, t_s});
    return end() - 1;
}

void TimeTable::drop_before(std::uint64_t index) {
    while (dropped_ < index && !entries_.empty()) {
        entries_.pop_front();
        ++dropped_;
    }
}

void PointSeq::push_back(const Point& p) {
    using point_seq_detail::load;
    constexpr std::size_t kPad = 8;  // Block's padding: reads load 8 bytes
    if (!times_) {
        plain_.push_back(p);
        ++size_;
        return;
    }
    const std::uint64_t time = times_->intern(p.t, p.t_s);
    const std::uint32_t tag = p.meta << 2 | p.has_;
    if (blocks_.empty() || blocks_.back().n == kBlockPoints) {
        Block& b = blocks_.push_back(Block{});
        b.first_time = time;
        b.first_bits = p.bits_;
        b.first_tag = tag;
        b.n = 1;
        ++size_;
        return;
    }
    Block& b = blocks_.back();
    const std::size_t k = b.n;
    const std::uint64_t dt = time - b.first_time - k;  // mod 2^64: a time index out of step
    const std::uint64_t db = p.bits_ - b.first_bits;   // fits 8 bytes, like any other
    const std::uint8_t tw = std::max(b.time_width, width_of(dt));
    const std::uint8_t bw = std::max(b.bits_width, width_of(db));
    const std::uint8_t gw = tag != b.first_tag ? 4 : b.tag_width;
    if (tw != b.time_width || bw != b.bits_width || gw != b.tag_width) {
        // Re-encode the block's points 1..k-1 at the wider widths (at most a few times a block),
        // with room for the whole block: appends then never reallocate.
        const std::size_t stride = std::size_t{tw} + bw + gw;
        std::vector<std::uint8_t> data;
        data.reserve((kBlockPoints - 1) * stride + kPad);
        data.resize((k - 1) * stride + kPad);
        for (std::size_t j = 1; j < k; ++j) {
            const std::uint8_t* s = b.at(j);
            std::uint8_t* d = data.data() + (j - 1) * stride;
            store(d, tw, load(s, b.time_width));
            store(d + tw, bw, load(s + b.time_width, b.bits_width));
            if (gw)
                store(d + tw + bw, 4,
                      b.tag_width ? load(s + b.time_width + b.bits_width, 4) : b.first_tag);
        }
        b.data = std::move(data);
        b.time_width = tw;
        b.bits_width = bw;
        b.tag_width = gw;
    }
    if (b.stride() > 0) {
        const std::size_t at = (k - 1) * b.stride();
        b.data.resize(at + b.stride() + kPad);
        store(b.data.data() + at, b.time_width, dt);
        store(b.data.data() + at + b.time_width, b.bits_width, db);
        if (b.tag_width) store(b.data.data() + at + b.time_width + b.bits_width, 4, tag);
    }
    ++b.n;
    ++size_;  // last: a failed allocation above leaves the sequence as it was
}

void PointSeq::pop_front() {
    if (size_ == 0) return;
    --size_;
    if (!times_) {
        plain_.pop_front();
        return;
    }
    if (++skipped_ == blocks_.front().n || size_ == 0) {
        blocks_.pop_front();
        skipped_ = 0;
    }
}

std::uint64_t PointSeq::front_time() const {
    assert(times_ && size_ > 0);  // packed only: a plain sequence has no time indexes
    const auto [b, k] = locate(0);
    return b->time(k);
}

std::size_t PointSeq::bytes() const {
    std::size_t n = plain_.capacity_bytes() + blocks_.capacity_bytes();
    for (std::size_t i = 0; i < blocks_.size(); ++i) n += blocks_[i].data.capacity();
    return n;
}

}  // namespace rh
