#include "agent/cli/probe_args.h"

#include <algorithm>
#include <filesystem>
#include <sstream>

namespace rh::cli {

namespace {

/// Decimal digits only, without overflow; nullopt otherwise.
std::optional<std::uint64_t> digits(const std::string& s) {
    if (s.empty() || s.size() > 19 || s.find_first_not_of("0123456789") != std::string::npos)
        return std::nullopt;
    return std::stoull(s);  // <= 19 digits always fits in 64 bits
}

std::vector<std::string> split(const std::string& text) {
    std::vector<std::string> items;
    std::string item;
    std::stringstream ss(text);
    while (std::getline(ss, item, ',')) items.push_back(item);
    if (!text.empty() && text.back() == ',') items.emplace_back();
    return items;
}

}  // namespace

std::optional<std::string> parse_number(const std::string& option, const std::string& text,
                                        std::uint64_t lo, std::uint64_t hi, std::uint64_t& out) {
    auto v = digits(text);
    if (!v || *v < lo || *v > hi)
        return "--" + option + ": " + (text.empty() ? std::string("''") : text) +
               " is not allowed: expected a whole number from " + std::to_string(lo) + " to " +
               std::to_string(hi);
    out = *v;
    return std::nullopt;
}

const std::string& sizes_rule() {
    static const std::string rule =
        "sizes must be multiples of 8 between " + std::to_string(limits::kMinMessageBytes) +
        " B and " + std::to_string(limits::kMaxMessageBytes >> 20) +
        " MiB, because each message slot ends with a " + std::to_string(slot::kTrailerBytes) +
        "-byte trailer (checksums and sequence number)";
    return rule;
}

std::optional<std::string> parse_sizes(const std::string& text, std::vector<std::uint64_t>& out,
                                       const std::string& option) {
    out.clear();
    for (const auto& given : split(text)) {
        if (given.empty()) return option + ": empty size in '" + text + "'";
        std::string num = given;
        // "KiB"/"MiB" as written in the docs, or the short "k"/"m" (binary units either way).
        for (const char* unit : {"KiB", "MiB", "kib", "mib"})
            if (num.size() > 3 && num.compare(num.size() - 3, 3, unit) == 0)
                num.resize(num.size() - 2);
        std::uint64_t mult = 1;
        const char last = num.back();
        if (last == 'k' || last == 'K') mult = 1024;
        if (last == 'm' || last == 'M') mult = 1024 * 1024;
        if (mult != 1) num.pop_back();
        if (num.empty() || num.find_first_not_of("0123456789") != std::string::npos)
            return option + ": '" + given +
                   "' is not a size (a whole number of bytes, optionally "
                   "with k or KiB = 1024, m or MiB = 1048576)";
        auto v = digits(num);  // nullopt: more than 19 digits
        const bool too_big =
            !v || *v > limits::kMaxMessageBytes;  // also keeps v * mult from overflowing
        const std::uint64_t bytes = too_big ? 0 : *v * mult;
        if (too_big || !limits::valid_message_size(bytes))
            return option + ": " + given + (mult == 1 ? " bytes" : "") + ": " + sizes_rule();
        out.push_back(bytes);
    }
    if (out.empty()) return option + ": no sizes given";
    return std::nullopt;
}

std::optional<std::string> parse_ops(const std::string& text, std::vector<ProbeOp>& out) {
    out.clear();
    for (const auto& item : split(text)) {
        ProbeOp op;
        if (item == "write")
            op = ProbeOp::write;
        else if (item == "read")
            op = ProbeOp::read;
        else if (item == "send")
            op = ProbeOp::send;
        else
            return "--op: unknown operation '" + item +
                   "' (expected write, read, send or a comma-separated list)";
        if (std::find(out.begin(), out.end(), op) != out.end())
            return "--op: '" + item + "' given twice";
        out.push_back(op);
    }
    if (out.empty()) return std::string("--op: no operation given");
    return std::nullopt;
}

std::optional<std::string> live_sysfs_error(const std::string& command, const std::string& root) {
    std::error_code ec;
    const auto canon = std::filesystem::weakly_canonical(root, ec);
    if (!ec && canon == std::filesystem::path("/sys")) return std::nullopt;
    return command +
           " needs the live /sys: verbs see this host's devices, not a fixture tree "
           "(--sysfs-root " +
           root + ")";
}

}  // namespace rh::cli
