// A document the HTTP endpoint serves, built from what the run loop published only when a
// request asks for it, once: the threads asking share one build, and a document nobody asks
// for costs nothing but its inputs (the idle agent, issue 13 §2).
#pragma once

#include <functional>
#include <mutex>
#include <utility>

namespace rh::agent {

template <typename T>
class LazyDoc {
  public:
    /// `build` runs at the first get(), in the requesting thread; it must only read what it
    /// captured (immutable copies or shared_ptr<const>), never the loop's state.
    explicit LazyDoc(std::function<T()> build) : build_(std::move(build)) {}
    LazyDoc(const LazyDoc&) = delete;
    LazyDoc& operator=(const LazyDoc&) = delete;

    /// The document; the first call builds it (others wait for that build).
    const T& get() const {
        std::call_once(once_, [this] {
            value_ = build_();
            build_ = nullptr;  // drop the captured inputs
        });
        return value_;
    }

  private:
    mutable std::once_flag once_;
    mutable std::function<T()> build_;
    mutable T value_{};
};

}  // namespace rh::agent
