// A series' points, encoded compactly (issue 13 §2: an idle agent in <= 16 MiB). The store
// keeps retention x series points (900 x 208 on an idle 8-port host): as 32-byte structs that
// was 5.7 MiB, most of it repeating what the point before said. Here a point costs:
//   - its time: an index into its host's TimeTable, where every sample of one collection pass
//     shares one (t, t_s) entry;
//   - its reading: the difference from the first reading of its block of 64 points, in the
//     fewest bytes (0, 1, 2, 4 or 8) that hold every difference in the block;
//   - its metadata index and kind of reading: once per block while they do not change.
// An idle counter costs ~0.75 bytes a point (the block header), one rising by < 2^16 a block
// ~2.75. Reads are O(1) random access and return a Point by value (materialised: no reference
// into the store outlives the access).
#pragma once

#include <bit>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <iterator>
#include <optional>
#include <utility>
#include <vector>

#include "store/ring.h"

namespace rh {

namespace point_seq_detail {
/// Masks of a little-endian unsigned of 0, 1, 2, 4 or 8 bytes, by width.
inline constexpr std::uint64_t kWidthMask[9] = {0, 0xff, 0xffff,           0, 0xffffffff, 0,
                                                0, 0,    ~std::uint64_t{0}};
/// The little-endian unsigned of `width` bytes at p, without a branch: reads 8 bytes, so p must
/// have 8 readable bytes (a block's data is padded by 8).
inline std::uint64_t load(const std::uint8_t* p, std::uint8_t width) {
    std::uint64_t v;
    std::memcpy(&v, p, 8);
    return v & kWidthMask[width];
}
}  // namespace point_seq_detail

/// One stored point as read back from the store (32 bytes; the store keeps it encoded,
/// store/point_seq.h). `t` is the engine's time axis: wall seconds when the sample had wall_ms,
/// else its t_s (one recording without wall clock is still one consistent timeline). A counter's
/// point holds a count, a gauge's a value (Sample's kinds); either may be missing.
class Point {
  public:
    Point() = default;
    /// Given both, keeps the count: no sample has both (a recording has one "value", read by
    /// its kind).
    Point(double t, double t_s, std::optional<std::uint64_t> count, std::optional<double> value,
          std::uint32_t meta)
        : t(t), t_s(t_s), meta(meta) {
        if (count) {
            bits_ = *count;
            has_ = kCount;
        } else if (value) {
            bits_ = std::bit_cast<std::uint64_t>(*value);
            has_ = kValue;
        }
    }

    double t = 0;            ///< engine time, seconds
    double t_s = 0;          ///< monotonic seconds of the host (interval lengths)
    std::uint32_t meta = 0;  ///< index into Series::metas (raw name / source / width of the read)

    /// The counter reading; nullopt when missing or a gauge's point.
    std::optional<std::uint64_t> count() const {
        return has_ == kCount ? std::optional<std::uint64_t>(bits_) : std::nullopt;
    }
    /// The gauge reading; nullopt when missing or a counter's point.
    std::optional<double> value() const {
        return has_ == kValue ? std::optional<double>(std::bit_cast<double>(bits_)) : std::nullopt;
    }
    /// A count or a value was read.
    bool readable() const { return has_ != kNone; }

  private:
    friend class PointSeq;
    enum Has : std::uint8_t { kNone, kCount, kValue };
    Has has_ = kNone;         // beside meta: 32 bytes in all
    std::uint64_t bits_ = 0;  ///< the count, or the value's bits
};

static_assert(sizeof(Point) == 32, "a plain store's unit of memory");

/// The distinct (t, t_s) pairs of one host's points, in the order they were first added; a
/// point refers to its pair by index. Consecutive samples with the same pair (one collection
/// pass) share one entry. Indexes count every entry ever added, so they stay valid while old
/// entries are dropped from the front (SeriesStore drops those no kept point refers to).
class TimeTable {
  public:
    /// The index of (t, t_s): the newest entry's when it is bitwise the same pair, else a new
    /// entry's. O(1).
    std::uint64_t intern(double t, double t_s);
    /// The pair at `index`; index must be in [first(), end()).
    const std::pair<double, double>& at(std::uint64_t index) const {
        return entries_[static_cast<std::size_t>(index - dropped_)];
    }
    std::uint64_t first() const { return dropped_; }  ///< oldest kept index
    std::uint64_t end() const { return dropped_ + entries_.size(); }
    std::size_t size() const { return entries_.size(); }
    /// Heap bytes held.
    std::size_t bytes() const { return entries_.capacity_bytes(); }
    /// Drops the entries before `index` (no kept point may refer to them).
    void drop_before(std::uint64_t index);
    /// The size past which its owner (SeriesStore::add) trims it next.
    std::size_t trim_at = 1024;

  private:
    Ring<std::pair<double, double>> entries_;
    std::uint64_t dropped_ = 0;
};

/// A series' points, oldest first, as a random-access sequence of Point values. Appends at the
/// back, drops at the front. Two encodings:
///   - packed (given a TimeTable): as the file comment says; for a bounded store (the agent),
///     whose memory is what it costs to run;
///   - plain: whole 32-byte Points; for an unbounded store (a replay), which holds a whole
///     recording anyway and reads every point many times (a day's replay in engine_bench
///     takes 5-13 % more CPU packed).
/// Reads return a Point by value: iterators yield values, so code keeps a copy, never a
/// pointer, of a point it wants later.
class PointSeq {
  public:
    /// A plain sequence.
    PointSeq() = default;
    /// A packed sequence whose times go to `times` (its host's table, which must outlive it).
    explicit PointSeq(TimeTable* times) : times_(times) {}

    std::size_t size() const { return size_; }
    bool empty() const { return size_ == 0; }
    /// The i-th kept point (0 = oldest). i < size().
    Point operator[](std::size_t i) const;
    /// Only the i-th point's engine time (binary searches by time read nothing else).
    double t_at(std::size_t i) const;
    Point front() const { return (*this)[0]; }
    Point back() const { return (*this)[size_ - 1]; }

    /// Appends `p` (packed: its (t, t_s) is interned in the TimeTable).
    void push_back(const Point& p);
    void pop_front();
    /// The oldest kept point's time index (what its TimeTable must keep); packed, size() > 0.
    std::uint64_t front_time() const;
    /// The table its times go to; nullptr when plain.
    TimeTable* table() const { return times_; }
    /// Heap bytes held (block headers and their encoded differences), for the benchmarks.
    std::size_t bytes() const;

    class const_iterator {
      public:
        using iterator_category = std::random_access_iterator_tag;
        using value_type = Point;
        using difference_type = std::ptrdiff_t;
        using reference = Point;  // a value: see the class comment
        struct pointer {
            Point p;
            const Point* operator->() const { return &p; }
        };

        const_iterator() = default;
        const_iterator(const PointSeq* seq, std::size_t i) : seq_(seq), i_(i) {}
        Point operator*() const { return (*seq_)[i_]; }
        pointer operator->() const { return pointer{(*seq_)[i_]}; }
        Point operator[](difference_type n) const { return (*seq_)[i_ + n]; }
        const_iterator& operator++() { return ++i_, *this; }
        const_iterator operator++(int) { return {seq_, i_++}; }
        const_iterator& operator--() { return --i_, *this; }
        const_iterator operator--(int) { return {seq_, i_--}; }
        const_iterator& operator+=(difference_type n) { return i_ += n, *this; }
        const_iterator& operator-=(difference_type n) { return i_ -= n, *this; }
        friend const_iterator operator+(const_iterator a, difference_type n) { return a += n; }
        friend const_iterator operator+(difference_type n, const_iterator a) { return a += n; }
        friend const_iterator operator-(const_iterator a, difference_type n) { return a -= n; }
        friend difference_type operator-(const const_iterator& a, const const_iterator& b) {
            return static_cast<difference_type>(a.i_) - static_cast<difference_type>(b.i_);
        }
        friend bool operator==(const const_iterator& a, const const_iterator& b) {
            return a.i_ == b.i_;
        }
        friend auto operator<=>(const const_iterator& a, const const_iterator& b) {
            return a.i_ <=> b.i_;
        }
        /// The index of the point it refers to (0 = oldest kept).
        std::size_t index() const { return i_; }

      private:
        const PointSeq* seq_ = nullptr;
        std::size_t i_ = 0;
    };
    using const_reverse_iterator = std::reverse_iterator<const_iterator>;

    const_iterator begin() const { return {this, 0}; }
    const_iterator end() const { return {this, size_}; }
    const_reverse_iterator rbegin() const { return const_reverse_iterator(end()); }
    const_reverse_iterator rend() const { return const_reverse_iterator(begin()); }

  private:
    static constexpr std::size_t kBlockPoints = 64;
    /// Up to kBlockPoints points. Point 0 is kept whole in the header; point k > 0 as the
    /// differences (mod 2^64) time - first_time - k and bits - first_bits, and, once a point's
    /// meta or kind of reading differs from point 0's, its (meta << 2 | has): each in
    /// time_width / bits_width / tag_width bytes, little-endian, interleaved per point, then 8
    /// bytes of padding (reads load 8 bytes and mask). A block whose points differ in nothing
    /// (every width 0: an idle counter) holds no data.
    struct Block {
        std::uint64_t first_time = 0;
        std::uint64_t first_bits = 0;
        std::uint32_t first_tag = 0;  ///< meta << 2 | has of point 0
        std::uint8_t n = 0;
        std::uint8_t time_width = 0, bits_width = 0, tag_width = 0;
        std::vector<std::uint8_t> data;

        std::size_t stride() const { return std::size_t{time_width} + bits_width + tag_width; }
        /// Point k's encoded fields (k < n), for stride() > 0 or k == 0.
        const std::uint8_t* at(std::size_t k) const;
        std::uint64_t time(std::size_t k) const {
            return k == 0 ? first_time : first_time + k + point_seq_detail::load(at(k), time_width);
        }
    };
    /// The block and offset of the i-th kept point.
    std::pair<const Block*, std::size_t> locate(std::size_t i) const;

    TimeTable* times_ = nullptr;  ///< null: plain
    Ring<Point> plain_;
    Ring<Block> blocks_;
    std::size_t skipped_ = 0;  ///< points dropped from the front of blocks_.front()
    std::size_t size_ = 0;
};

inline const std::uint8_t* PointSeq::Block::at(std::size_t k) const {
    static constexpr std::uint8_t kZeros[8] = {};  // what every width-0 field reads
    return data.empty() ? kZeros : data.data() + (k - 1) * stride();
}

inline std::pair<const PointSeq::Block*, std::size_t> PointSeq::locate(std::size_t i) const {
    const std::size_t j = i + skipped_;
    return {&blocks_[j / kBlockPoints], j % kBlockPoints};
}

inline double PointSeq::t_at(std::size_t i) const {
    if (!times_) return plain_[i].t;
    const auto [b, k] = locate(i);
    return times_->at(b->time(k)).first;
}

inline Point PointSeq::operator[](std::size_t i) const {
    using point_seq_detail::load;
    if (!times_) return plain_[i];
    const auto [b, k] = locate(i);
    std::uint64_t time = b->first_time;
    std::uint64_t bits = b->first_bits;
    std::uint32_t tag = b->first_tag;
    if (k > 0) {
        const std::uint8_t* d = b->at(k);
        time += k + load(d, b->time_width);
        bits += load(d + b->time_width, b->bits_width);
        if (b->tag_width)
            tag = static_cast<std::uint32_t>(load(d + b->time_width + b->bits_width, 4));
    }
    const auto& [t, t_s] = times_->at(time);
    Point p;
    p.t = t;
    p.t_s = t_s;
    p.meta = tag >> 2;
    p.has_ = static_cast<Point::Has>(tag & 3);
    p.bits_ = bits;
    return p;
}

}  // namespace rh
