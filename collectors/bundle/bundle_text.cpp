// Text helpers shared by the bundle parsers, and the Model's small accessors.
#include <arpa/inet.h>

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cmath>
#include <cstdio>

#include "collectors/bundle/bundle_model.h"
#include "collectors/parse.h"
#include "core/sysfs.h"

namespace rh::bundle {

std::string source_of(const TextFile& f) {
    return "bundle:" + f.name;
}

Device& Model::device(const std::string& name) {
    auto [it, inserted] = devices.try_emplace(name);
    if (inserted) it->second.name = name;
    return it->second;
}

Port& Model::port(const std::string& dev, unsigned number) {
    auto& ports = device(dev).ports;
    auto it = std::lower_bound(ports.begin(), ports.end(), number,
                               [](const Port& p, unsigned n) { return p.number < n; });
    if (it != ports.end() && it->number == number) return *it;
    Port p;
    p.number = number;
    return *ports.insert(it, std::move(p));
}

void Model::note(const TextFile& f, std::size_t line_index, std::string text) {
    notes.push_back(Note{f.name + ":" + std::to_string(line_index + 1), std::move(text)});
}

void Model::note(std::string subject, std::string text) {
    notes.push_back(Note{std::move(subject), std::move(text)});
}

std::string_view trim(std::string_view s) {
    const auto b = s.find_first_not_of(" \t\r\n");
    if (b == std::string_view::npos) return {};
    return s.substr(b, s.find_last_not_of(" \t\r\n") - b + 1);
}

bool starts_with(std::string_view s, std::string_view prefix) {
    return s.substr(0, prefix.size()) == prefix;
}

std::vector<std::string_view> tokens(std::string_view s) {
    std::vector<std::string_view> out;
    std::size_t i = 0;
    while (i < s.size()) {
        while (i < s.size() && std::isspace(static_cast<unsigned char>(s[i]))) ++i;
        const std::size_t b = i;
        while (i < s.size() && !std::isspace(static_cast<unsigned char>(s[i]))) ++i;
        if (i > b) out.push_back(s.substr(b, i - b));
    }
    return out;
}

std::optional<std::uint64_t> to_u64(std::string_view s) {
    s = trim(s);
    std::uint64_t v = 0;
    auto [ptr, ec] = std::from_chars(s.data(), s.data() + s.size(), v, 10);
    if (s.empty() || ec != std::errc() || ptr != s.data() + s.size()) return std::nullopt;
    return v;
}

std::optional<double> to_double(std::string_view s) {
    s = trim(s);
    double v = 0;
    auto [ptr, ec] = std::from_chars(s.data(), s.data() + s.size(), v, std::chars_format::fixed);
    if (s.empty() || ec != std::errc() || ptr != s.data() + s.size() || !std::isfinite(v))
        return std::nullopt;
    return v;
}

std::string canonical_bdf(std::string_view s) {
    s = trim(s);
    std::string t;
    for (char c : s) t += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    if (t.size() == 7) t = "0000:" + t;  // "3b:00.0": lspci without -D
    return is_pci_bdf(t) && t.size() == 12 ? t : std::string{};
}

std::string canonical_gid(std::string_view s) {
    const std::string text(trim(s));
    unsigned char raw[16];
    if (text.empty() || inet_pton(AF_INET6, text.c_str(), raw) != 1) return {};
    std::string out;
    char group[8];
    for (int i = 0; i < 16; i += 2) {
        std::snprintf(group, sizeof group, "%02x%02x", raw[i], raw[i + 1]);
        if (i) out += ':';
        out += group;
    }
    return out;
}

void add_counter(std::vector<Counter>& list, Counter c, Model& m, const std::string& subject) {
    auto it = std::find_if(list.begin(), list.end(),
                           [&](const Counter& o) { return o.name == c.name; });
    if (it == list.end()) {
        list.push_back(std::move(c));
        return;
    }
    if (it->value == c.value) return;
    auto show = [](const Counter& x) {
        return (x.value ? std::to_string(*x.value) : std::string("unreadable")) + " in " +
               x.source;
    };
    m.note(subject, "counter " + c.name + " given twice with different values (" + show(*it) +
                        ", " + show(c) + "): kept the first");
}

std::string port_state_name(unsigned code) {
    // include/rdma/ib_verbs.h enum ib_port_state, as drivers/infiniband/core/sysfs.c prints it
    static const char* const names[] = {"NOP", "DOWN", "INIT", "ARMED", "ACTIVE", "ACTIVE_DEFER"};
    return code < std::size(names) ? names[code] : "";
}

std::string phys_state_name(unsigned code) {
    // drivers/infiniband/core/sysfs.c phys_state_to_str()
    static const char* const names[] = {"",       "Sleep",
                                        "Polling", "Disabled",
                                        "PortConfigurationTraining", "LinkUp",
                                        "LinkErrorRecovery",         "Phy Test"};
    return code < std::size(names) ? names[code] : "";
}

}  // namespace rh::bundle
