// Helpers shared by the unit tests (header-only): reading fixture files, and printing optionals
// in Boost.Test failure messages.
#pragma once

#include <cstdint>
#include <filesystem>
#include <fstream>
#include <map>
#include <optional>
#include <ostream>
#include <sstream>
#include <string>

#include <boost/test/unit_test.hpp>

// Boost.Test prints both sides of a failed comparison: optionals print their value or "nullopt".
template <typename T>
struct boost::test_tools::tt_detail::print_log_value<std::optional<T>> {
    void operator()(std::ostream& os, const std::optional<T>& v) {
        if (v)
            os << +*v;
        else
            os << "nullopt";
    }
};

namespace rh::test {

/// The whole file as a string (empty when it cannot be read).
inline std::string slurp(const std::filesystem::path& p) {
    std::ifstream in(p, std::ios::binary);
    std::ostringstream s;
    s << in.rdbuf();
    return s.str();
}

/// An `ethtool -S` text capture ("     name: value" lines) -> value by name. Split on the last
/// ": " (names may contain spaces), name trimmed; lines without a colon are skipped.
inline std::map<std::string, std::uint64_t> ethtool_text_values(const std::filesystem::path& file) {
    std::map<std::string, std::uint64_t> out;
    std::istringstream in(slurp(file));
    std::string line;
    while (std::getline(in, line)) {
        const auto colon = line.rfind(": ");
        if (colon == std::string::npos) continue;
        auto name = line.substr(0, colon);
        name.erase(0, name.find_first_not_of(' '));
        name.erase(name.find_last_not_of(' ') + 1);
        out[name] = std::stoull(line.substr(colon + 2));
    }
    return out;
}

}  // namespace rh::test
