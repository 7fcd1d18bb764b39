#include "core/json_writer.h"

#include <array>
#include <charconv>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <stdexcept>

#include <nlohmann/json.hpp>

namespace rh {

namespace {

/// Length of the valid UTF-8 sequence starting at s[i] (RFC 3629: no overlong forms, no
/// surrogates, nothing above U+10FFFF), 0 when it is not one.
std::size_t utf8_length(std::string_view s, std::size_t i) {
    const auto b = [&](std::size_t k) { return static_cast<unsigned char>(s[i + k]); };
    const auto cont = [&](std::size_t k, unsigned lo = 0x80, unsigned hi = 0xBF) {
        return i + k < s.size() && b(k) >= lo && b(k) <= hi;
    };
    const unsigned c = b(0);
    if (c >= 0xC2 && c <= 0xDF) return cont(1) ? 2 : 0;
    if (c >= 0xE0 && c <= 0xEF) {
        const unsigned lo = c == 0xE0 ? 0xA0 : 0x80, hi = c == 0xED ? 0x9F : 0xBF;
        return cont(1, lo, hi) && cont(2) ? 3 : 0;
    }
    if (c >= 0xF0 && c <= 0xF4) {
        const unsigned lo = c == 0xF0 ? 0x90 : 0x80, hi = c == 0xF4 ? 0x8F : 0xBF;
        return cont(1, lo, hi) && cont(2) && cont(3) ? 4 : 0;
    }
    return 0;
}

/// Per byte: 0 = copied as is (printable ASCII but `"` and `\`), 1 = may start a UTF-8
/// sequence (checked by utf8_length), else the escape's second character ('u' = \u00xx).
constexpr std::array<char, 256> kEscape = [] {
    std::array<char, 256> t{};
    for (int c = 0; c < 0x20; ++c) t[c] = 'u';
    t['\b'] = 'b';
    t['\t'] = 't';
    t['\n'] = 'n';
    t['\f'] = 'f';
    t['\r'] = 'r';
    t['"'] = '"';
    t['\\'] = '\\';
    t[0x7f] = 0;  // DEL is copied, as nlohmann does
    for (int c = 0x80; c < 0x100; ++c) t[c] = 1;
    return t;
}();

constexpr std::uint64_t kOnes = 0x0101010101010101ULL;
constexpr std::uint64_t kHighs = 0x8080808080808080ULL;

/// True when one of the 8 bytes of `w` is not copied as is by the table: below 0x20, '"', '\\'
/// or 0x80 and above (SWAR: an inventory is ~800 kB of mostly plain text, checked a word at a
/// time instead of a byte). Exact: no byte that needs a look is missed.
constexpr bool needs_look(std::uint64_t w) {
    const auto has_zero = [](std::uint64_t x) { return (x - kOnes) & ~x & kHighs; };
    return (((w - kOnes * 0x20) & ~w & kHighs) | has_zero(w ^ (kOnes * '"')) |
            has_zero(w ^ (kOnes * '\\')) | (w & kHighs)) != 0;
}

/// True when every byte of `s` is copied as is (the common case: names, paths, numbers).
bool plain_text(std::string_view s) {
    std::size_t i = 0;
    for (; i + 8 <= s.size(); i += 8) {
        std::uint64_t w;
        std::memcpy(&w, s.data() + i, sizeof w);
        if (needs_look(w)) return false;
    }
    for (; i < s.size(); ++i)
        if (kEscape[static_cast<unsigned char>(s[i])] != 0) return false;
    return true;
}

}  // namespace

void append_json_string(std::string& out, std::string_view s) {
    if (plain_text(s)) {  // quotes and text in one append, not three
        const std::size_t at = out.size();
        out.append(s.size() + 2, '"');
        std::memcpy(out.data() + at + 1, s.data(), s.size());
        return;
    }
    out.push_back('"');
    std::size_t run = 0;  // start of the bytes not yet copied
    for (std::size_t i = 0; i < s.size();) {
        if (i + 8 <= s.size()) {
            std::uint64_t w;
            std::memcpy(&w, s.data() + i, sizeof w);
            if (!needs_look(w)) {
                i += 8;
                continue;
            }
        }
        const char e = kEscape[static_cast<unsigned char>(s[i])];
        if (e == 0) {
            ++i;
            continue;
        }
        if (e == 1) {
            if (const std::size_t n = utf8_length(s, i)) {
                i += n;
                continue;
            }
        }
        out.append(s.substr(run, i - run));
        if (e == 1) {
            out += "\xEF\xBF\xBD";  // U+FFFD for a byte that is not valid UTF-8
        } else if (e == 'u') {
            static constexpr char hex[] = "0123456789abcdef";
            const auto c = static_cast<unsigned char>(s[i]);
            out += "\\u00";
            out.push_back(hex[c >> 4]);
            out.push_back(hex[c & 0xF]);
        } else {
            out.push_back('\\');
            out.push_back(e);
        }
        run = ++i;
    }
    out.append(s.substr(run));
    out.push_back('"');
}

void JsonWriter::newline_indent(std::size_t depth) {
    out_.push_back('\n');
    out_.append(depth * static_cast<std::size_t>(indent_), ' ');
}

void JsonWriter::before_value() {
    if (levels_.empty()) return;
    Level& l = levels_.back();
    if (l.object) {
        if (l.key_due) throw std::logic_error("JsonWriter: value where a key is due");
        l.key_due = true;  // key() wrote the separator already
        return;
    }
    if (l.members++ > 0) out_.push_back(',');
    if (indent_ >= 0) newline_indent(levels_.size());
}

void JsonWriter::key(std::string_view k) {
    if (levels_.empty() || !levels_.back().object || !levels_.back().key_due)
        throw std::logic_error("JsonWriter: key \"" + std::string(k) + "\" outside an object");
    Level& l = levels_.back();
    if (l.members > 0 && !(l.last_key < k))
        throw std::logic_error("JsonWriter: key \"" + std::string(k) + "\" after \"" +
                               std::string(l.last_key) + "\" (keys must ascend)");
    if (l.members++ > 0) out_.push_back(',');
    if (indent_ >= 0) newline_indent(levels_.size());
    l.last_key = k;
    l.key_due = false;
    append_json_string(out_, k);
    out_ += indent_ >= 0 ? ": " : ":";
}

void JsonWriter::open(char c, bool object) {
    before_value();
    out_.push_back(c);
    levels_.push_back(Level{object, object, 0, {}});
}

void JsonWriter::close(char c, bool object) {
    if (levels_.empty() || levels_.back().object != object || (object && !levels_.back().key_due))
        throw std::logic_error(std::string("JsonWriter: unbalanced '") + c + "'");
    const bool empty = levels_.back().members == 0;
    levels_.pop_back();
    if (!empty && indent_ >= 0) newline_indent(levels_.size());
    out_.push_back(c);
}

void JsonWriter::null() {
    before_value();
    out_ += "null";
}

void JsonWriter::boolean(bool b) {
    before_value();
    out_ += b ? "true" : "false";
}

void JsonWriter::string(std::string_view s) {
    before_value();
    append_json_string(out_, s);
}

void JsonWriter::number(double d) {
    before_value();
    // nlohmann's own formatter (grisu2, its exponent rules, ".0" for whole values; non-finite
    // as null): the inventory holds only a few doubles (PCIe GT/s), so exactness beats speed.
    out_ += nlohmann::json(d).dump();
}

void JsonWriter::signed_number(std::int64_t v) {
    before_value();
    char buf[24];
    out_.append(buf, std::to_chars(buf, buf + sizeof buf, v).ptr);
}

void JsonWriter::unsigned_number(std::uint64_t v) {
    before_value();
    char buf[24];
    out_.append(buf, std::to_chars(buf, buf + sizeof buf, v).ptr);
}

}  // namespace rh
