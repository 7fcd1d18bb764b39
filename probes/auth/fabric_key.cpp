#include "probes/auth/fabric_key.h"

#include <fcntl.h>
#include <openssl/crypto.h>
#include <openssl/evp.h>
#include <openssl/hmac.h>
#include <openssl/rand.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <mutex>

namespace rh::auth {

namespace {

Error key_error(const std::string& path, int err_no, const std::string& detail) {
    return Error{"fabric key", path, err_no, detail};
}

std::mutex g_key_mutex;
std::shared_ptr<const FabricKey> g_key;

}  // namespace

Result<FabricKey> load_fabric_key(const std::string& path) {
    const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0) return key_error(path, errno, "");
    struct stat st {};
    if (::fstat(fd, &st) != 0) {
        const int e = errno;
        ::close(fd);
        return key_error(path, e, "");
    }
    const auto close_with = [fd](Error e) {
        ::close(fd);
        return e;
    };
    if (!S_ISREG(st.st_mode)) return close_with(key_error(path, 0, "not a regular file"));
    if (st.st_mode & (S_IRWXG | S_IRWXO)) {
        char mode[8];
        std::snprintf(mode, sizeof mode, "%04o", static_cast<unsigned>(st.st_mode & 07777));
        return close_with(
            key_error(path, 0,
                      std::string("is readable or writable by group or others (mode ") + mode +
                          "): chmod 600 it"));
    }
    FabricKey k;
    k.path = path;
    k.bytes.resize(kMaxKeyBytes + 1);
    std::size_t got = 0;
    while (got < k.bytes.size()) {
        const ssize_t n = ::read(fd, k.bytes.data() + got, k.bytes.size() - got);
        if (n < 0 && errno == EINTR) continue;
        if (n < 0) return close_with(key_error(path, errno, ""));
        if (n == 0) break;
        got += static_cast<std::size_t>(n);
    }
    ::close(fd);
    k.bytes.resize(got);
    if (got == 0) return key_error(path, 0, "is empty");
    if (got < kMinKeyBytes)
        return key_error(path, 0,
                         "holds " + std::to_string(got) + " bytes, fewer than " +
                             std::to_string(kMinKeyBytes) +
                             " (rocehealth keygen, or head -c 32 /dev/urandom)");
    if (got > kMaxKeyBytes)
        return key_error(path, 0, "holds more than " + std::to_string(kMaxKeyBytes) + " bytes");
    return k;
}

Result<std::shared_ptr<const FabricKey>> key_for_command(const std::string& path) {
    std::string p = path;
    if (p.empty()) {
        struct stat st {};
        // Absent: no key. Anything else there is read, so a bad file is never ignored.
        if (::lstat(kDefaultKeyFile, &st) != 0) return std::shared_ptr<const FabricKey>{};
        p = kDefaultKeyFile;
    }
    auto k = load_fabric_key(p);
    if (!k) return k.error();
    return std::make_shared<const FabricKey>(std::move(*k));
}

Status write_new_key_file(const std::string& path) {
    struct stat st {};
    if (::lstat(path.c_str(), &st) == 0)
        return key_error(path, 0,
                         S_ISREG(st.st_mode)   ? "a key is there already"
                         : S_ISDIR(st.st_mode) ? "is a directory, not a key file"
                                               : "exists and is not a regular file");
    // The default /etc/rocehealth/ does not exist on a host that never had rocehealth's
    // configuration: create the key's directory (mode 0755: the key itself is 0600).
    const std::filesystem::path parent = std::filesystem::path(path).parent_path();
    std::error_code ec;
    if (!parent.empty() && !std::filesystem::exists(parent, ec) &&
        !std::filesystem::create_directories(parent, ec))
        return key_error(path, ec.value(), "cannot create its directory " + parent.string());
    const int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
    if (fd < 0) return key_error(path, errno, errno == EEXIST ? "a key is there already" : "");
    // O_CREAT's mode is masked by the umask; 0600 is what the file must be.
    (void)::fchmod(fd, 0600);
    const auto bytes = random_bytes(kMinKeyBytes);
    std::size_t put = 0;
    while (put < bytes.size()) {
        const ssize_t n = ::write(fd, bytes.data() + put, bytes.size() - put);
        if (n < 0 && errno == EINTR) continue;
        if (n < 0) {
            const int e = errno;
            ::close(fd);
            ::unlink(path.c_str());
            return key_error(path, e, "");
        }
        put += static_cast<std::size_t>(n);
    }
    if (::fsync(fd) != 0 || ::close(fd) != 0) return key_error(path, errno, "");
    return ok_status();
}

Mac hmac_sha256(std::span<const std::uint8_t> key, std::span<const std::uint8_t> data) {
    Mac out{};
    unsigned len = 0;
    ::HMAC(EVP_sha256(), key.data(), static_cast<int>(key.size()), data.data(), data.size(),
           out.data(), &len);
    return out;
}

bool same_mac(const Mac& a, const Mac& b) {
    return CRYPTO_memcmp(a.data(), b.data(), a.size()) == 0;
}

std::vector<std::uint8_t> random_bytes(std::size_t n) {
    std::vector<std::uint8_t> b(n);
    if (RAND_bytes(b.data(), static_cast<int>(n)) != 1) {
        std::fputs("rocehealth: OpenSSL RAND_bytes failed: no secure randomness\n", stderr);
        std::abort();
    }
    return b;
}

std::shared_ptr<const FabricKey> process_key() {
    std::lock_guard<std::mutex> l(g_key_mutex);
    return g_key;
}

void set_process_key(std::shared_ptr<const FabricKey> key) {
    std::lock_guard<std::mutex> l(g_key_mutex);
    g_key = std::move(key);
}

}  // namespace rh::auth
