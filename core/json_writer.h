// JsonWriter: JSON text written straight into a string, without building a tree first. Its
// output is byte for byte what nlohmann::json's dump(indent) prints for the same values, so a
// type can be written directly where a tree was built and dumped before (inventory JSON, issue
// 13 §3: the tree cost ~3x the whole collection pass).
#pragma once

#include <concepts>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace rh {

/// Streaming JSON writer.
/// - Layout: indent < 0 prints compactly (`{"a":1,"b":[2]}`, as `dump()`); indent >= 0 puts
///   each member on its own line indented by `indent` spaces per level, `"key": value`, empty
///   containers as `{}` / `[]` (as `dump(indent)`).
/// - Strings (RFC 8259): `"` `\` and control characters U+0000..U+001F are escaped (`\b \t \n
///   \f \r`, else `\u00xx` in lower-case hex); valid UTF-8 is copied as is (no `\u` for
///   non-ASCII). A byte that does not start a valid UTF-8 sequence is written as U+FFFD, so the
///   output is always valid JSON (nlohmann's dump throws there instead).
/// - Numbers: integers exactly (uint64 max included, never via double); doubles as nlohmann
///   prints them (shortest round-trip form, `8.0` keeps its `.0`), NaN and infinities as null.
/// - Keys of one object must come in strictly ascending byte order (nlohmann's std::map order,
///   so that output equals a tree's dump): a key out of order or repeated throws
///   std::logic_error, as does a value where a key is due or ending the wrong container.
class JsonWriter {
  public:
    explicit JsonWriter(int indent = -1) : indent_(indent) {}

    void begin_object() { open('{', true); }
    void end_object() { close('}', true); }
    void begin_array() { open('[', false); }
    void end_array() { close(']', false); }
    /// Next member's name. `k` must stay valid until the object's next key or its end.
    void key(std::string_view k);

    void null();
    void boolean(bool b);
    void string(std::string_view s);
    void number(double d);
    template <std::integral T>
    requires(!std::same_as<T, bool>) void number(T v) {
        if constexpr (std::signed_integral<T>)
            signed_number(static_cast<std::int64_t>(v));
        else
            unsigned_number(static_cast<std::uint64_t>(v));
    }

    /// Room for `bytes` of text in all, allocated now (a large document then grows in one
    /// allocation instead of ~20 doublings, each a copy and fresh pages).
    void reserve(std::size_t bytes) { out_.reserve(bytes); }

    /// The text written so far (complete once every container is closed).
    const std::string& text() const { return out_; }
    std::string take() { return std::move(out_); }

  private:
    struct Level {
        bool object = false;
        bool key_due = false;       ///< object: the next call must be key()
        std::size_t members = 0;    ///< values written in this container
        std::string_view last_key;  ///< object: previous key, for the order check
    };
    void open(char c, bool object);
    void close(char c, bool object);
    /// Separator and indentation before a value (array) or key (object).
    void before_value();
    void newline_indent(std::size_t depth);
    void signed_number(std::int64_t v);
    void unsigned_number(std::uint64_t v);

    int indent_;
    std::string out_;
    std::vector<Level> levels_;
};

/// Appends `s` as a JSON string literal (quotes included) to `out`, escaped as JsonWriter does.
void append_json_string(std::string& out, std::string_view s);

}  // namespace rh
