// SysfsRoot: the one place that turns a kernel sysfs path ("class/infiniband/mlx5_0/fw_ver")
// into a file path. Pointed at "/sys" on a real host, or at a fixture tree laid out (relative
// symlinks included) exactly as the kernel lays it out, so fixtures and hosts share one code path.
#pragma once

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/result.h"

namespace rh {

class SysfsRoot {
  public:
    /// `root` stands for "/sys" (e.g. "/sys" or "tests/fixtures/mlx5_x8/sys").
    explicit SysfsRoot(std::filesystem::path root = "/sys");

    const std::filesystem::path& root() const { return root_; }
    /// True when the root is the live "/sys" (netlink and verbs then see the same host): the
    /// same file as "/sys" when the SysfsRoot was made (discovery asks per device and port).
    bool is_live() const { return live_; }

    /// root / rel. `rel` is relative to sysfs ("class/net/eth0/mtu"); an absolute path that
    /// already lies under the root is returned unchanged.
    std::filesystem::path path(std::string_view rel) const;
    /// path(rel) as text, without building a std::filesystem::path (which splits every
    /// component): for the opens of a discovery pass.
    std::string path_text(std::string_view rel) const;

    /// Largest file read_text accepts; a sysfs attribute is at most one page (4 KiB).
    static constexpr std::size_t kMaxAttributeBytes = 64 * 1024;

    /// Whole file with trailing whitespace (newline) removed and control bytes replaced by '?'.
    /// Errors name the file: absent/unreadable (errno), a directory (EISDIR), not a regular file
    /// (FIFO, device node), or larger than kMaxAttributeBytes (EFBIG).
    Result<std::string> read_text(std::string_view rel) const;
    /// read_text of a file that opens as a regular file, in one open, read and close (its type
    /// is checked only when the read is not a sysfs attribute's one short read); nullopt when
    /// it cannot be opened or is not a regular file, for the caller to say why in its own words
    /// (discovery reads ~800 files a pass: a stat before each was a fifth of it).
    std::optional<Result<std::string>> read_regular(std::string_view rel) const;
    /// read_regular of `name` opened relative to the directory descriptor `dirfd` (one path
    /// lookup per directory instead of one per file); `rel` is the same file, named in errors.
    std::optional<Result<std::string>> read_regular_at(int dirfd, const char* name,
                                                       std::string_view rel) const;
    /// A file holding one unsigned decimal integer ("%llu\n"). Anything else is an error naming
    /// the file and its content, never 0.
    Result<std::uint64_t> read_u64(std::string_view rel) const;
    /// Entry names of a directory, sorted; errors name the directory.
    Result<std::vector<std::string>> list(std::string_view rel) const;
    /// Canonical path of `rel` with symlinks resolved inside the tree, as a path relative to
    /// the root (e.g. "devices/pci0000:00/0000:00:01.0/0000:3b:00.0").
    Result<std::string> resolve(std::string_view rel) const;
    bool exists(std::string_view rel) const;

  private:
    std::filesystem::path root_;
    bool live_ = false;
};

/// A directory of the tree held open, its files opened relative to it: one path lookup per
/// directory (through class/infiniband's symlinks, or down a deep PCI path) instead of one per
/// file. Reads give the values and errors SysfsRoot gives for the same paths (`rel/name`).
/// Not open (is_open() false) when `rel` cannot be opened as a directory; reads then go by path.
class SysfsDir {
  public:
    SysfsDir(const SysfsRoot& sysfs, std::string rel);
    ~SysfsDir();
    SysfsDir(const SysfsDir&) = delete;
    SysfsDir& operator=(const SysfsDir&) = delete;

    bool is_open() const { return fd_ >= 0; }
    /// The directory's descriptor (-1 when not open), owned by this object.
    int fd() const { return fd_; }
    const SysfsRoot& sysfs() const { return sysfs_; }
    const std::string& rel() const { return rel_; }
    /// `rel/name`, the path relative to the root that errors and sources name.
    std::string rel_of(std::string_view name) const;
    /// SysfsRoot::read_regular of `rel/name` (nullopt also when the directory is not open).
    std::optional<Result<std::string>> read_regular(const char* name) const;
    /// SysfsRoot::read_text of `rel/name`.
    Result<std::string> read_text(const char* name) const;
    /// SysfsRoot::list of `rel`.
    Result<std::vector<std::string>> list() const;
    /// SysfsRoot::exists of `rel/name` (symlinks followed).
    bool exists(const char* name) const;

  private:
    const SysfsRoot& sysfs_;
    std::string rel_;
    int fd_ = -1;
};

/// SysfsRoot::read_regular's result for a file open as `fd`, read from offset 0 with pread
/// (an attribute's value is generated again per read at offset 0); `fd` stays open. Errors
/// name the file `dir`/`name`. For callers that keep descriptors across passes.
std::optional<Result<std::string>> read_open_regular(int fd, std::string_view dir,
                                                     std::string_view name);

/// Most characters of a bad value that an error message repeats.
inline constexpr std::size_t kQuoteMaxChars = 40;
/// A bad value for an error message: in single quotes, bytes outside printable ASCII as '?',
/// cut to kQuoteMaxChars + "..." so a huge junk file never makes a huge message.
std::string quote_value(std::string_view text);

/// Parses one unsigned 64-bit decimal, allowing surrounding whitespace. nullopt-like error text
/// on anything else ("N/A (no PMA)", "-1", "", overflow).
Result<std::uint64_t> parse_u64(std::string_view text);

}  // namespace rh
