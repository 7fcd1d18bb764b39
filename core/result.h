// rh::Result<T>: a value or an Error, returned at module boundaries (C++20 has no std::expected).
// Exceptions may be thrown inside a module but are caught and converted at its API.
#pragma once

#include <cerrno>
#include <string>
#include <utility>
#include <variant>

namespace rh {

/// What went wrong: the operation, what it was applied to (a path, device, peer or field), the
/// errno value where there is one (0 otherwise), and a sentence for a person.
struct Error {
    Error() = default;
    Error(std::string op_, std::string subject_, int err_no_, std::string detail_,
          std::string cause_ = {})
        : op(std::move(op_)),
          subject(std::move(subject_)),
          err_no(err_no_),
          detail(std::move(detail_)),
          cause(std::move(cause_)) {}

    std::string op;       ///< e.g. "read", "ibv_modify_qp(RTR)", "connect"
    std::string subject;  ///< e.g. "/sys/class/infiniband/mlx5_0/fw_ver", "peer 10.0.0.2:18515"
    int err_no = 0;       ///< errno value, 0 when not a system error
    std::string detail;   ///< extra words, e.g. "not a decimal number: 'N/A (no PMA)'"
    /// Machine-readable cause, set by producers that know one so that callers count and match
    /// failures without parsing text: an ibv_wc_status name ("IBV_WC_RETRY_EXC_ERR") for an error
    /// completion, kCausePeerClosed; empty otherwise (see probes/verbs/wc_status.h: cause_of).
    std::string cause;

    /// "op subject: strerror(err_no): detail", omitting empty parts.
    std::string message() const;
};

/// Builds an Error from the current errno.
Error errno_error(std::string op, std::string subject, std::string detail = {});

template <typename T>
class [[nodiscard]] Result {
  public:
    Result(T value) : v_(std::move(value)) {}  // NOLINT: implicit by design, as std::expected
    Result(Error e) : v_(std::move(e)) {}      // NOLINT

    bool ok() const { return v_.index() == 0; }
    explicit operator bool() const { return ok(); }
    T& value() { return std::get<0>(v_); }
    const T& value() const { return std::get<0>(v_); }
    T& operator*() { return value(); }
    const T& operator*() const { return value(); }
    T* operator->() { return &value(); }
    const T* operator->() const { return &value(); }
    const Error& error() const { return std::get<1>(v_); }

  private:
    std::variant<T, Error> v_;
};

/// Result of an operation with no value.
struct Ok {};
using Status = Result<Ok>;
inline Status ok_status() {
    return Ok{};
}

}  // namespace rh
