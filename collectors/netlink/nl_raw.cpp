#include "collectors/netlink/nl_raw.h"

#include <fstream>
#include <sstream>

#include <cctype>
#include <cstring>

#include <linux/netlink.h>

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
