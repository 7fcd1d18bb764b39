// Key and token files as an attacker on the same host meets them (issue 27, "Key and token
// files"): a symlink in the key's path, a key of another user, group bits, a passphrase or a
// pattern instead of random bytes, keygen's folders under umask 0; and the key's fingerprint.
// probes/auth/secret_file.h, probes/auth/fabric_key.h.
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <boost/test/unit_test.hpp>
#include <cerrno>
#include <filesystem>
#include <fstream>

#include "probes/auth/fabric_key.h"
#include "probes/auth/secret_file.h"

namespace fs = std::filesystem;
namespace auth = rh::auth;

BOOST_AUTO_TEST_SUITE(test_key_files)

namespace {

bool contains(const std::string& s, const std::string& part) {
    return s.find(part) != std::string::npos;
}

/// A fresh folder of this test process (removed first).
std::string fresh_dir(const std::string& name) {
    const fs::path d =
        fs::temp_directory_path() / ("rh_keyfiles_" + std::to_string(::getpid()) + "_" + name);
    fs::remove_all(d);
    fs::create_directories(d);
    return d.string();
}

void write_bytes(const std::string& path, const std::string& bytes, mode_t mode) {
    std::ofstream(path, std::ios::binary | std::ios::trunc) << bytes;
    ::chmod(path.c_str(), mode);
}

std::string message_of(const std::string& path) {
    auto k = auth::load_fabric_key(path);
    return k ? std::string("loaded") : k.error().message();
}

}  // namespace

BOOST_AUTO_TEST_CASE(a_symlink_anywhere_in_the_path_is_refused) {
    const std::string d = fresh_dir("links");
    BOOST_REQUIRE(auth::write_new_key_file(d + "/real/fabric.key").ok());
    BOOST_REQUIRE(auth::load_fabric_key(d + "/real/fabric.key").ok());
    // The last component a symlink (someone who can write the folder points it elsewhere).
    fs::create_symlink(d + "/real/fabric.key", d + "/link.key");
    BOOST_TEST(contains(message_of(d + "/link.key"), "a component of the path is a symbolic link"),
               message_of(d + "/link.key"));
    // A folder on the way a symlink.
    fs::create_directory_symlink(d + "/real", d + "/linkdir");
    BOOST_TEST(contains(message_of(d + "/linkdir/fabric.key"), "symbolic link"),
               message_of(d + "/linkdir/fabric.key"));
    // The fallback for kernels without openat2 refuses both as well.
    for (const std::string& path : {d + "/link.key", d + "/linkdir/fabric.key"}) {
        errno = 0;
        BOOST_TEST(auth::open_no_symlinks_by_component(path, O_RDONLY) == -1);
        BOOST_TEST(errno == ELOOP, path);
    }
    const int fd = auth::open_no_symlinks_by_component(d + "/real/fabric.key", O_RDONLY);
    BOOST_TEST(fd >= 0);
    if (fd >= 0) ::close(fd);
    // keygen does not write through one either.
    const auto w = auth::write_new_key_file(d + "/linkdir/new.key");
    BOOST_TEST(!w.ok());
    BOOST_TEST(!fs::exists(d + "/real/new.key"));
    fs::remove_all(d);
}

BOOST_AUTO_TEST_CASE(group_bits_and_foreign_owners_are_refused_with_the_command_to_run) {
    const std::string d = fresh_dir("modes");
    const std::string p = d + "/fabric.key";
    BOOST_REQUIRE(auth::write_new_key_file(p).ok());
    ::chmod(p.c_str(), 0640);
    BOOST_TEST(message_of(p) == "fabric key " + p +
                                    ": is readable or writable by group or others (mode 0640): "
                                    "chmod 600 " +
                                    p);
    ::chmod(p.c_str(), 0600);
    BOOST_REQUIRE(auth::load_fabric_key(p).ok());
    if (::geteuid() != 0) {
        BOOST_TEST_MESSAGE("not root: a key owned by another user cannot be made here; skipped");
    } else {
        BOOST_REQUIRE(::chown(p.c_str(), 12345, 12345) == 0);
        BOOST_TEST(message_of(p) == "fabric key " + p +
                                        ": is owned by uid 12345, not by uid 0 (this user) or "
                                        "root: chown 0 " +
                                        p);
    }
    fs::remove_all(d);
}

BOOST_AUTO_TEST_CASE(keys_that_are_not_random_bytes_are_refused) {
    const std::string d = fresh_dir("weak");
    const std::string p = d + "/fabric.key";
    // A passphrase of 40 characters: long enough, guessable offline from one handshake.
    write_bytes(p, "correct horse battery staple of fabric7\n", 0600);
    BOOST_TEST(contains(message_of(p), "is text (a passphrase, or hex or base64)"), message_of(p));
    BOOST_TEST(contains(message_of(p), "run rocehealth keygen"));
    // Hex text of 32 random bytes is text too: keys are used as they are, so they must be bytes.
    write_bytes(p, "9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08", 0600);
    BOOST_TEST(contains(message_of(p), "is text"));
    // 32 zero bytes, a repeated 4-byte pattern.
    write_bytes(p, std::string(32, '\0'), 0600);
    BOOST_TEST(contains(message_of(p), "has only 1 distinct byte values"), message_of(p));
    std::string pattern;
    for (int i = 0; i < 8; ++i) pattern += std::string("\x01\x02\x03\xff", 4);
    write_bytes(p, pattern, 0600);
    BOOST_TEST(contains(message_of(p), "has only 4 distinct byte values"), message_of(p));
    // What keygen and /dev/urandom write passes.
    const auto random = auth::random_bytes(32);
    write_bytes(p, std::string(random.begin(), random.end()), 0600);
    BOOST_TEST(message_of(p) == "loaded");
    fs::remove_all(d);
}

BOOST_AUTO_TEST_CASE(keygen_makes_its_folders_0700_even_under_umask_0) {
    const std::string d = fresh_dir("umask");
    const mode_t old = ::umask(0);
    const auto w = auth::write_new_key_file(d + "/etc/rocehealth/fabric.key");
    ::umask(old);
    BOOST_REQUIRE(w.ok());
    for (const char* sub : {"/etc", "/etc/rocehealth"}) {
        struct stat st {};
        BOOST_REQUIRE(::stat((d + sub).c_str(), &st) == 0);
        BOOST_TEST((st.st_mode & 07777) == 0700u, sub);
    }
    struct stat st {};
    BOOST_REQUIRE(::stat((d + "/etc/rocehealth/fabric.key").c_str(), &st) == 0);
    BOOST_TEST((st.st_mode & 07777) == 0600u);
    fs::remove_all(d);
}

BOOST_AUTO_TEST_CASE(the_fingerprint_names_a_key_without_showing_it) {
    const std::string d = fresh_dir("fp");
    BOOST_REQUIRE(auth::write_new_key_file(d + "/a.key").ok());
    BOOST_REQUIRE(auth::write_new_key_file(d + "/b.key").ok());
    fs::copy_file(d + "/a.key", d + "/a-copy.key");
    ::chmod((d + "/a-copy.key").c_str(), 0600);
    const auto a = auth::load_fabric_key(d + "/a.key");
    const auto a2 = auth::load_fabric_key(d + "/a-copy.key");
    const auto b = auth::load_fabric_key(d + "/b.key");
    BOOST_REQUIRE(a && a2 && b);
    BOOST_TEST(auth::key_fingerprint(a->bytes).size() == 16u);
    BOOST_TEST(auth::key_fingerprint(a->bytes).find_first_not_of("0123456789abcdef") ==
               std::string::npos);
    BOOST_TEST(auth::key_fingerprint(a->bytes) ==
               auth::key_fingerprint(a2->bytes));  // the same key on two hosts
    BOOST_TEST(auth::key_fingerprint(a->bytes) != auth::key_fingerprint(b->bytes));
    // Not the key's own first 8 bytes in hex.
    std::string head;
    for (int i = 0; i < 8; ++i) {
        char h[3];
        std::snprintf(h, sizeof h, "%02x", a->bytes[static_cast<std::size_t>(i)]);
        head += h;
    }
    BOOST_TEST(auth::key_fingerprint(a->bytes) != head);
    // Hosts compare it (rocehealth_fabric_key_info): its value is fixed, HKDF-SHA256 of the key
    // with no salt and info "rocehealth fabric key fingerprint v1", computed apart (Python's
    // hmac, RFC 5869) for the key 00 01 .. 1f.
    std::vector<std::uint8_t> k(32);
    for (std::size_t i = 0; i < k.size(); ++i) k[i] = static_cast<std::uint8_t>(i);
    BOOST_TEST(auth::key_fingerprint(k) == "d5a21ad4e049d330");
    fs::remove_all(d);
}

BOOST_AUTO_TEST_CASE(secret_bytes_read_whole_and_bounded) {
    const std::string d = fresh_dir("secret");
    write_bytes(d + "/s", "0123456789", 0600);
    auto s = auth::read_secret_file("test secret", d + "/s", 4);
    BOOST_REQUIRE(s);
    BOOST_TEST(s->bytes().size() == 5u);  // max + 1: the caller tells "more than 4"
    auto dir = auth::read_secret_file("test secret", d, 4);
    BOOST_REQUIRE(!dir);
    BOOST_TEST(contains(dir.error().message(), "is a directory"));
    fs::remove_all(d);
}

BOOST_AUTO_TEST_SUITE_END()
