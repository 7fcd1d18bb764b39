#include "core/json_file.h"

#include <algorithm>
#include <cerrno>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>
#include <vector>

namespace rh {

namespace {

using nlohmann::json;

/// A SAX pass that builds nothing: it follows the path of the value being read (for messages),
/// finds keys given twice in one object, and keeps the first problem.
class StrictChecker : public nlohmann::json_sax<json> {
  public:
    explicit StrictChecker(const std::string& text) : text_(text) {}

    /// The problem found, "" when the document is valid.
    const std::string& problem() const { return problem_; }

    bool null() override { return value(); }
    bool boolean(bool) override { return value(); }
    bool number_integer(number_integer_t) override { return value(); }
    bool number_unsigned(number_unsigned_t) override { return value(); }
    bool number_float(number_float_t, const string_t&) override { return value(); }
    bool string(string_t&) override { return value(); }
    bool binary(binary_t&) override { return value(); }
    bool start_object(std::size_t) override {
        if (too_deep()) return false;
        frames_.push_back({true, {}, {}, 0});
        return true;
    }
    bool key(string_t& k) override {
        Frame& f = frames_.back();
        f.key = k;
        if (f.keys.insert(k).second) return true;
        problem_ = "duplicate key " + path() + " (each key once per object)";
        return false;
    }
    bool end_object() override {
        frames_.pop_back();
        return value();
    }
    bool start_array(std::size_t) override {
        if (too_deep()) return false;
        frames_.push_back({false, {}, {}, 0});
        return true;
    }
    bool end_array() override {
        frames_.pop_back();
        return value();
    }
    bool parse_error(std::size_t position, const std::string&,
                     const nlohmann::detail::exception& ex) override {
        problem_ = "not valid JSON at " + line_column(position);
        if (const std::string p = path(); !p.empty()) problem_ += " (" + p + ")";
        problem_ += ": " + reason(ex.what());
        return false;
    }

  private:
    struct Frame {
        bool object;
        std::set<std::string> keys;  ///< keys seen so far (objects)
        std::string key;             ///< the current key (objects)
        std::size_t index;           ///< the current element (arrays)
    };

    /// Nesting past kMaxJsonDepth is refused before it is built: nlohmann's dump() and the
    /// readers after it recurse once per level, so 300,000 levels from a peer overflow the stack.
    bool too_deep() {
        if (frames_.size() < kMaxJsonDepth) return false;
        problem_ = "nested deeper than " + std::to_string(kMaxJsonDepth) + " levels at " +
                   (path().empty() ? std::string("the top") : path());
        return true;
    }

    /// A value ended: in an array, the next one has the next index.
    bool value() {
        if (!frames_.empty() && !frames_.back().object) ++frames_.back().index;
        return true;
    }

    /// "http.listen", "rules[3].when.any[0].window_s": where the reader is now.
    std::string path() const {
        std::string p;
        for (const Frame& f : frames_) {
            if (!f.object)
                p += "[" + std::to_string(f.index) + "]";
            else if (!f.key.empty())
                p += (p.empty() ? "" : ".") + f.key;
        }
        return p;
    }

    /// "line 3, column 28" of the character `position` (chars read) of the text, as nlohmann
    /// counts them in its own messages.
    std::string line_column(std::size_t position) const {
        const std::size_t end = std::min(position, text_.size());
        const auto lines = std::count(text_.begin(), text_.begin() + end, '\n');
        const std::size_t nl = end == 0 ? std::string::npos : text_.rfind('\n', end - 1);
        // At the end of the input nlohmann has counted one read past the last character.
        const std::size_t column = nl == std::string::npos ? position : position - nl - 1;
        return "line " + std::to_string(lines + 1) + ", column " + std::to_string(column);
    }

    /// nlohmann's message without its "[json.exception.parse_error.101] parse error at line 1,
    /// column 10: " prefix (the line and column are said once, by line_column).
    static std::string reason(std::string what) {
        if (what.rfind("[json.exception.", 0) == 0)
            if (const auto e = what.find("] "); e != std::string::npos) what.erase(0, e + 2);
        if (what.rfind("parse error", 0) == 0)
            if (const auto c = what.find(": "); c != std::string::npos) what.erase(0, c + 2);
        return what;
    }

    const std::string& text_;
    std::vector<Frame> frames_;
    std::string problem_;
};

}  // namespace

Result<json> parse_json_text(const std::string& text, const std::string& name,
                             const std::string& op) {
    StrictChecker checker(text);
    if (!json::sax_parse(text, &checker)) return Error{op, name, 0, checker.problem()};
    try {
        return json::parse(text);
    } catch (const json::exception& e) {  // the checker passed what nlohmann then refused
        return Error{op, name, 0, std::string("not valid JSON: ") + e.what()};
    }
}

Result<json> read_json_file(const std::string& path, const std::string& op) {
    if (std::error_code ec; std::filesystem::is_directory(path, ec))
        return Error{op, path, EISDIR, {}};
    std::ifstream in(path);
    if (!in) return errno_error(op, path, "cannot open");
    std::stringstream buf;
    buf << in.rdbuf();
    if (in.bad()) return errno_error(op, path, "cannot read");
    return parse_json_text(buf.str(), path, op);
}

}  // namespace rh
