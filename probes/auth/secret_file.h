// Reading a secret from a file (the fabric key, the agent's HTTP token) so that nobody else on
// the host can have put it there or read it: no symlink is followed in any component of the
// path (openat2 RESOLVE_NO_SYMLINKS; on kernels before 5.6, each component opened O_NOFOLLOW),
// and the checks are made with fstat on the open descriptor (no stat/open race): a regular file,
// owned by this process's effective user or root, no group or other permission bits.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "core/result.h"

namespace rh::auth {

/// Bytes that are wiped (OPENSSL_cleanse) when destroyed or reassigned.
class SecretBytes {
  public:
    SecretBytes() = default;
    explicit SecretBytes(std::vector<std::uint8_t> b) : b_(std::move(b)) {}
    SecretBytes(const SecretBytes&) = default;
    SecretBytes(SecretBytes&& o) noexcept : b_(std::move(o.b_)) {}
    SecretBytes& operator=(const SecretBytes& o);
    SecretBytes& operator=(SecretBytes&& o) noexcept;
    ~SecretBytes();
    const std::vector<std::uint8_t>& bytes() const { return b_; }
    /// The bytes, handed to an owner that wipes them itself (FabricKey); this one is emptied.
    std::vector<std::uint8_t> release() { return std::move(b_); }

  private:
    void wipe() noexcept;
    std::vector<std::uint8_t> b_;
};

/// Opens `path` read-only without following symlinks anywhere in it and checks the open file:
/// regular, owner the effective uid or root, mode without group/other bits. Reads at most
/// `max_bytes` + 1 bytes (so that "more than max_bytes" can be told by the size). Errors
/// (Error::op `op`, subject `path`): cannot be opened (errno; ELOOP: "a component of the path is
/// a symbolic link: give the real path"), "not a regular file", "is owned by uid N, not by uid
/// M (this user) or root: chown M PATH", "is readable or writable by group or others (mode
/// 0640): chmod 600 PATH".
Result<SecretBytes> read_secret_file(const std::string& op, const std::string& path,
                                     std::size_t max_bytes);

/// Writes `bytes` to a new file `path` of mode 0600, creating missing parent folders with mode
/// 0700 and following no symlink (the fabric key, a host key). Refuses an existing file so a key
/// in use is never overwritten. Errors (op `op`, subject `path`): "a key is there already", "is a
/// directory ...", a symlink in the path, errno of the folder, open or write.
Status write_new_secret_file(const std::string& op, const std::string& path,
                             std::span<const std::uint8_t> bytes);

/// Opens `path` like read_secret_file (no symlink in any component), flags `flags` (O_CLOEXEC is
/// added); -1 with errno set on failure. Used by keygen's checks as well.
int open_no_symlinks(const std::string& path, int flags, unsigned mode = 0);

/// open_no_symlinks' fallback where openat2 is missing (ENOSYS) or refused (EPERM: seccomp):
/// each folder opened O_PATH|O_NOFOLLOW relative to the one before and checked to be a folder
/// (a symlink: ELOOP), the file opened O_NOFOLLOW. Public so that tests run it on any kernel.
int open_no_symlinks_by_component(const std::string& path, int flags, unsigned mode = 0);

}  // namespace rh::auth
