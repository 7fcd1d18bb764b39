// Capture directories written by a test, as `diagnose --bundle` reads them: a private root
// under the temporary directory (removed when the CaptureRoot goes) and files written as bytes.
#pragma once

#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>

namespace rh::test {

/// A root directory "<tmp>/<prefix><pid>", made empty on construction and removed after.
struct CaptureRoot {
    explicit CaptureRoot(const std::string& prefix)
        : root(std::filesystem::temp_directory_path() / (prefix + std::to_string(getpid()))) {
        std::filesystem::remove_all(root);
        std::filesystem::create_directories(root);
    }
    ~CaptureRoot() { std::filesystem::remove_all(root); }
    CaptureRoot(const CaptureRoot&) = delete;
    CaptureRoot& operator=(const CaptureRoot&) = delete;
    /// The capture directory `name` under the root, created; its path.
    std::string dir(const std::string& name) const {
        std::filesystem::create_directories(root / name);
        return (root / name).string();
    }
    std::filesystem::path root;
};

/// Writes `text` as the file `file` of capture directory `dir` (bytes as given).
inline void write_capture_file(const std::string& dir, const std::string& file,
                               const std::string& text) {
    std::ofstream(std::filesystem::path(dir) / file, std::ios::binary) << text;
}

}  // namespace rh::test
