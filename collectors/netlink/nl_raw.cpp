#include "collectors/nl_raw.h"

#include <fstream>
#include <sstream>

#include "collectors/nl_exchange.h"

#include <sys/socket.h>
#include <sys/time.h>

#include <cctype>
#include <cstdlib>
#include <cstring>

#include <linux/netlink.h>
#include <netlink/errno.h>
#include <netlink/netlink.h>

namespace rh::nl {

namespace {

constexpr std::size_t kAttrHdr = 4;  // struct nlattr {u16 nla_len; u16 nla_type;}

std::size_t align4(std::size_t n) {
    return (n + 3) & ~std::size_t{3};
}

template <typename T>
std::optional<T> fixed(const Attr& a) {
    if (a.data.size() != sizeof(T)) return std::nullopt;
    T v;
    std::memcpy(&v, a.data.data(), sizeof v);
    return v;
}

int hex_digit(char c) {
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    return -1;
}

}  // namespace

std::vector<Attr> attrs(ByteView buf, bool* malformed) {
    std::vector<Attr> out;
    std::size_t off = 0;
    if (malformed) *malformed = false;
    while (buf.size() - off >= kAttrHdr) {
        std::uint16_t len = 0, type = 0;
        std::memcpy(&len, buf.data() + off, 2);
        std::memcpy(&type, buf.data() + off + 2, 2);
        if (len < kAttrHdr || len > buf.size() - off) {
            if (malformed) *malformed = true;
            return out;
        }
        out.push_back(Attr{static_cast<std::uint16_t>(type & NLA_TYPE_MASK),
                           buf.subspan(off + kAttrHdr, len - kAttrHdr)});
        off += align4(len);
        if (off > buf.size()) break;  // last attribute without its padding
    }
    if (malformed && off < buf.size()) *malformed = true;  // 1..3 stray bytes
    return out;
}

std::optional<Attr> find(ByteView buf, std::uint16_t type) {
    for (const auto& a : attrs(buf))
        if (a.type == type) return a;
    return std::nullopt;
}

std::optional<std::uint8_t> u8(const Attr& a) {
    return fixed<std::uint8_t>(a);
}
std::optional<std::uint32_t> u32(const Attr& a) {
    return fixed<std::uint32_t>(a);
}
std::optional<std::uint64_t> u64(const Attr& a) {
    return fixed<std::uint64_t>(a);
}

std::string str(const Attr& a) {
    const auto* p = reinterpret_cast<const char*>(a.data.data());
    return std::string(p, strnlen(p, a.data.size()));
}

std::string to_hex(ByteView bytes) {
    static constexpr char digits[] = "0123456789abcdef";
    std::string out;
    for (std::size_t i = 0; i < bytes.size(); ++i) {
        out += digits[bytes[i] >> 4];
        out += digits[bytes[i] & 0xf];
        out += (i % 32 == 31 || i + 1 == bytes.size()) ? '\n' : ' ';
    }
    return out;
}

Result<Bytes> from_hex(std::string_view text) {
    Bytes out;
    int hi = -1;
    for (std::size_t i = 0; i < text.size(); ++i) {
        const char c = text[i];
        if (c == '#') {
            while (i < text.size() && text[i] != '\n') ++i;
            continue;
        }
        if (std::isspace(static_cast<unsigned char>(c))) {
            if (hi >= 0)
                return Error{
                    "parse hex", {}, 0, "odd digit count before offset " + std::to_string(i)};
            continue;
        }
        const int d = hex_digit(c);
        if (d < 0) return Error{"parse hex", {}, 0, std::string("not a hex digit: '") + c + "'"};
        if (hi < 0) {
            hi = d;
        } else {
            out.push_back(static_cast<std::uint8_t>(hi << 4 | d));
            hi = -1;
        }
    }
    if (hi >= 0) return Error{"parse hex", {}, 0, "odd number of hex digits"};
    return out;
}

Error nl_lib_error(const std::string& op, const std::string& subject, int nl_err) {
    return Error{op, subject, 0, nl_geterror(nl_err < 0 ? -nl_err : nl_err)};
}

Result<std::vector<Bytes>> exchange(nl_sock* sock, nl_msg* msg, const std::string& op,
                                    const std::string& subject) {
    // A kernel always answers; the timeout only guards against a wedged socket.
    timeval tv{5, 0};
    setsockopt(nl_socket_get_fd(sock), SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
    nlmsg_hdr(msg)->nlmsg_flags |= NLM_F_ACK;
    if (int e = nl_send_auto(sock, msg); e < 0) return nl_lib_error(op + " send", subject, e);
    const std::uint32_t seq = nlmsg_hdr(msg)->nlmsg_seq;

    std::vector<Bytes> replies;
    for (;;) {
        sockaddr_nl peer{};
        unsigned char* raw = nullptr;
        const int n = nl_recv(sock, &peer, &raw, nullptr);
        std::unique_ptr<unsigned char, decltype(&std::free)> buf(raw, &std::free);
        if (n <= 0) return nl_lib_error(op + " recv", subject, n == 0 ? NLE_FAILURE : n);
        auto* hdr = reinterpret_cast<nlmsghdr*>(buf.get());
        int left = n;
        for (; nlmsg_ok(hdr, left); hdr = nlmsg_next(hdr, &left)) {
            if (hdr->nlmsg_seq != seq) continue;  // stale answer to an earlier request
            if (hdr->nlmsg_type == NLMSG_DONE) return replies;
            if (hdr->nlmsg_type == NLMSG_ERROR) {
                if (hdr->nlmsg_len < NLMSG_LENGTH(sizeof(nlmsgerr)))
                    return Error{op, subject, 0, "truncated netlink error reply"};
                const auto* err = static_cast<const nlmsgerr*>(nlmsg_data(hdr));
                if (err->error == 0) return replies;  // the ACK
                return Error{op, subject, -err->error, {}};
            }
            const auto* p = static_cast<const std::uint8_t*>(nlmsg_data(hdr));
            replies.emplace_back(p, p + nlmsg_datalen(hdr));
        }
    }
}

Result<Bytes> read_hex_file(const std::string& path) {
    std::ifstream in(path);
    if (!in) return errno_error("open", path);
    std::ostringstream text;
    text << in.rdbuf();
    auto bytes = from_hex(text.str());
    if (!bytes) return Error{"parse hex", path, 0, bytes.error().detail};
    return bytes;
}

}  // namespace rh::nl
