// A FIFO of T in one contiguous power-of-two buffer: O(1) index, append and drop at the front,
// with one load to reach an element (std::deque needs two). For the store's encoded points
// (store/point_seq.h), read on every rule evaluation.
#pragma once

#include <cstddef>
#include <utility>
#include <vector>

namespace rh {

template <typename T>
class Ring {
  public:
    std::size_t size() const { return size_; }
    bool empty() const { return size_ == 0; }
    /// The i-th element from the front; i < size().
    const T& operator[](std::size_t i) const { return buf_[(head_ + i) & (buf_.size() - 1)]; }
    T& operator[](std::size_t i) { return buf_[(head_ + i) & (buf_.size() - 1)]; }
    const T& front() const { return (*this)[0]; }
    const T& back() const { return (*this)[size_ - 1]; }
    T& back() { return (*this)[size_ - 1]; }

    /// Appends `v`; doubles the buffer when full (amortised O(1)).
    T& push_back(T v) {
        if (size_ == buf_.size()) grow();
        T& slot = buf_[(head_ + size_) & (buf_.size() - 1)];
        slot = std::move(v);
        ++size_;
        return slot;
    }
    /// Drops the front element (its storage is released: it is reset to T{}).
    void pop_front() {
        buf_[head_] = T{};
        head_ = (head_ + 1) & (buf_.size() - 1);
        --size_;
    }
    /// Bytes of the buffer (not of what the elements own).
    std::size_t capacity_bytes() const { return buf_.capacity() * sizeof(T); }

  private:
    void grow() {
        std::vector<T> next(buf_.empty() ? 4 : 2 * buf_.size());
        for (std::size_t i = 0; i < size_; ++i) next[i] = std::move((*this)[i]);
        buf_ = std::move(next);
        head_ = 0;
    }

    std::vector<T> buf_;  // size is 0 or a power of two
    std::size_t head_ = 0;
    std::size_t size_ = 0;
};

}  // namespace rh
