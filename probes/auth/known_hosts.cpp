#include "probes/auth/known_hosts.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>

#include "probes/auth/secret_file.h"

namespace rh::auth {

namespace {

// Read by every control connection's thread, replaced whole on SIGHUP: an atomic shared_ptr,
// so a reader holds the old value while a reload installs the new.
std::atomic<std::shared_ptr<const KnownHosts>> g_known_hosts;

char known_hosts_lower(char c) {
    return c >= 'A' && c <= 'Z' ? static_cast<char>(c - 'A' + 'a') : c;
}

bool known_hosts_blank(char c) {
    return c == ' ' || c == '\t';
}

/// Letters, digits, '.', '-', '_' (names) and ':' (IPv6); what a dialled host can be.
bool host_name_ok(std::string_view n) {
    if (n.empty() || n.size() > kMaxHostNameChars) return false;
    for (const char c : n)
        if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
              c == '.' || c == '-' || c == '_' || c == ':'))
            return false;
    return true;
}

std::vector<std::string_view> known_hosts_fields(std::string_view line) {
    std::vector<std::string_view> out;
    std::size_t i = 0;
    while (i < line.size()) {
        while (i < line.size() && known_hosts_blank(line[i])) ++i;
        const std::size_t start = i;
        while (i < line.size() && !known_hosts_blank(line[i])) ++i;
        if (i > start) out.push_back(line.substr(start, i - start));
    }
    return out;
}

/// Printable form of a field for a message: at most 40 characters, control bytes as '?'.
std::string known_hosts_shown(std::string_view f) {
    std::string s;
    for (const char c : f.substr(0, 40))
        s += static_cast<unsigned char>(c) < 0x20 || c == 0x7f ? '?' : c;
    return f.size() > 40 ? s + "..." : s;
}

/// "" unless `n` carries a port: "[NAME]:PORT" (ssh's form for a port other than 22) or
/// "NAME:PORT" (one colon: an IPv6 address has at least two). Such a name never matched, since
/// the client looks up the host it dials without the port; the key is the host's, on every port.
std::string port_in_name(std::string_view n) {
    const bool bracketed = n.front() == '[';
    if (!bracketed && std::count(n.begin(), n.end(), ':') != 1) return "";
    return "\"" + known_hosts_shown(n) +
           "\": a name with a port; write the host alone (a responder's host key is its host's, "
           "whatever port it listens on, and the client looks up the name or address it dials "
           "without the port)";
}

}  // namespace

const KnownHost* KnownHosts::find(std::string_view name) const {
    std::string want;
    for (const char c : name) want += known_hosts_lower(c);
    for (const KnownHost& h : hosts)
        if (h.name == want) return &h;
    return nullptr;
}

Result<KnownHosts> parse_known_hosts(std::string_view text, const std::string& path) {
    KnownHosts out;
    out.path = path;
    int line_no = 0;
    std::size_t pos = 0;
    while (pos < text.size()) {
        std::size_t end = text.find('\n', pos);
        if (end == std::string_view::npos) end = text.size();
        std::string_view line = text.substr(pos, end - pos);
        pos = end + 1;
        ++line_no;
        const auto bad = [&path, line_no](const std::string& why) {
            return Error{"known_hosts", path + ":" + std::to_string(line_no), 0, why};
        };
        if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
        if (line.find('\0') != std::string_view::npos) return bad("holds a NUL byte: not text");
        const auto f = known_hosts_fields(line);
        if (f.empty() || f[0].front() == '#') continue;
        if (f.size() != 3)
            return bad(
                "expected NAME ed25519 BASE64 (what rocehealth keygen --host-key prints), "
                "got " +
                std::to_string(f.size()) + " field" + (f.size() == 1 ? "" : "s"));
        if (const std::string why = port_in_name(f[0]); !why.empty()) return bad(why);
        if (!host_name_ok(f[0]))
            return bad("\"" + known_hosts_shown(f[0]) +
                       "\": not a host name or IP address (letters, digits, . - _ :, at most 253)");
        if (f[1] != "ed25519")
            return bad("key type \"" + known_hosts_shown(f[1]) + "\": only ed25519 is known");
        const auto key = parse_public_key_text(f[2]);
        if (!key)
            return bad("\"" + known_hosts_shown(f[2]) +
                       "\": not a base64 Ed25519 public key (44 characters ending in '=')");
        if (const KnownHost* first = out.find(f[0]))
            return bad(known_hosts_shown(f[0]) + " is given twice (first on line " +
                       std::to_string(first->line) + ")");
        KnownHost h;
        for (const char c : f[0]) h.name += known_hosts_lower(c);
        h.key = *key;
        h.line = line_no;
        out.hosts.push_back(std::move(h));
    }
    return out;
}

Result<KnownHosts> load_known_hosts(const std::string& path) {
    const auto fail = [&path](int e, const std::string& why) {
        return Error{"known_hosts", path, e, why};
    };
    const int fd = open_no_symlinks(path, O_RDONLY);
    if (fd < 0)
        return fail(errno, errno == ELOOP ? "a component of the path is a symbolic link: give "
                                            "the real path"
                                          : "");
    struct stat st {};
    std::string text;
    Status checked = ok_status();
    if (::fstat(fd, &st) != 0)
        checked = fail(errno, "");
    else if (!S_ISREG(st.st_mode))
        checked = fail(0, "not a regular file");
    else if (st.st_uid != ::geteuid() && st.st_uid != 0)
        checked = fail(0, "is owned by uid " + std::to_string(st.st_uid) + ", not by uid " +
                              std::to_string(::geteuid()) + " (this user) or root: chown " +
                              std::to_string(::geteuid()) + " " + path);
    else if ((st.st_mode & (S_IWGRP | S_IWOTH)) != 0)
        checked = fail(0,
                       "is writable by group or others (whoever can write it can pose as any "
                       "responder): chmod 644 " +
                           path);
    else if (static_cast<std::size_t>(st.st_size) > kMaxKnownHostsBytes)
        checked = fail(0, "is larger than 16 MiB");
    while (checked) {
        char buf[65536];
        const ssize_t n = ::read(fd, buf, sizeof buf);
        if (n < 0 && errno == EINTR) continue;
        if (n < 0) checked = fail(errno, "");
        if (n <= 0) break;
        text.append(buf, static_cast<std::size_t>(n));
        if (text.size() > kMaxKnownHostsBytes) checked = fail(0, "is larger than 16 MiB");
    }
    ::close(fd);
    if (!checked) return checked.error();
    return parse_known_hosts(text, path);
}

std::shared_ptr<const KnownHosts> process_known_hosts() {
    return g_known_hosts.load();
}

void set_process_known_hosts(std::shared_ptr<const KnownHosts> hosts) {
    g_known_hosts.store(std::move(hosts));
}

}  // namespace rh::auth
