// Text helpers shared by the bundle parsers, and the Model's small accessors.
#include <arpa/inet.h>

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cmath>
#include <cstdio>

#include "collectors/bundle/bundle_model.h"
#include "core/inventory/parse.h"
#include "core/sysfs.h"

namespace rh::bundle {

std::string source_of(const TextFile& f) {
    return f.dir.empty() ? f.name : f.dir + "/" + f.name;
}

std::string source_of(const TextFile& f, std::size_t line_index) {
    return source_of(f) + ":" + std::to_string(line_index + 1);
}

std::string iface_in_command(std::string_view command, std::string_view tool,
                             std::initializer_list<std::string_view> flags) {
    const auto t = tokens(command);
    bool tool_seen = false;
    for (std::size_t i = 0; i < t.size(); ++i) {
        if (t[i] == "|" || t[i] == ";" || t[i] == "&&") {
            if (tool_seen) break;  // the first command that is `tool` only
            continue;              // "date; ethtool -S eth2": the date goes before
        }
        std::string_view word = t[i];
        while (!word.empty() && (word.front() == '\'' || word.front() == '"'))
            word.remove_prefix(1);  // watch 'ethtool -S eth2'
        const auto slash = word.rfind('/');
        if (word.substr(slash == std::string_view::npos ? 0 : slash + 1) == tool) tool_seen = true;
        if (!tool_seen) continue;
        for (auto flag : flags)
            if (t[i] == flag && i + 1 < t.size() && t[i + 1][0] != '-' && t[i + 1] != "|") {
                std::string out(t[i + 1]);
                std::erase(out, '\'');
                std::erase(out, '"');
                return out;
            }
    }
    return {};
}

std::optional<PortKey> port_in_command(std::string_view command) {
    const auto at = command.find("infiniband/");
    if (at == std::string_view::npos) return std::nullopt;
    const auto rest = command.substr(at + 11);
    const auto slash = rest.find('/');
    if (slash == std::string_view::npos || slash == 0) return std::nullopt;
    const std::string dev(rest.substr(0, slash));
    if (dev.find_first_of("*?[") != std::string::npos) return std::nullopt;
    if (!starts_with(rest.substr(slash), "/ports/")) return std::nullopt;
    const auto num = rest.substr(slash + 7);
    std::size_t n = 0;
    while (n < num.size() && std::isdigit(static_cast<unsigned char>(num[n]))) ++n;
    const auto port = to_u64(num.substr(0, n));
    if (!port || *port == 0 || *port > 255) return std::nullopt;
    return PortKey{dev, static_cast<unsigned>(*port)};
}

std::string bdf_from_pci_name(std::string_view name) {
    std::size_t i = 0;
    auto number = [&](char tag) -> std::optional<unsigned> {
        if (i >= name.size() || name[i] != tag) return std::nullopt;
        std::size_t b = ++i;
        while (i < name.size() && std::isdigit(static_cast<unsigned char>(name[i]))) ++i;
        if (i == b || i - b > 5) return std::nullopt;
        return static_cast<unsigned>(std::stoul(std::string(name.substr(b, i - b))));
    };
    for (const char* prefix : {"roce", "ib", "iw", "rdma", "opa", "en"})
        if (starts_with(name, prefix)) {
            i = std::string_view(prefix).size();
            break;
        }
    if (i == 0) return {};
    unsigned domain = 0;
    if (i < name.size() && name[i] == 'P') {
        const auto d = number('P');
        if (!d) return {};
        domain = *d;
    }
    const auto bus = number('p');
    const auto slot = number('s');
    if (!bus || !slot || *bus > 255 || *slot > 31 || domain > 0xffff) return {};
    unsigned fn = 0;
    if (i < name.size() && name[i] == 'f') {
        const auto f = number('f');
        if (!f || *f > 255) return {};
        fn = *f;
    }
    // What may follow: systemd's "n<phys_port_name>" / "d<dev_port>"; a VF ("v<n>") is
    // another function, and anything else is not this scheme.
    if (i < name.size() && name[i] != 'n' && name[i] != 'd') return {};
    unsigned dev = *slot;
    if (fn > 7) dev = fn / 8, fn %= 8;  // ARI: "f<slot*8+fn>" (rdma_rename, systemd)
    char buf[16];
    std::snprintf(buf, sizeof buf, "%04x:%02x:%02x.%u", domain, *bus, dev, fn);
    return buf;
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

void Model::warn(std::string subject, std::string text) {
    // The warning names the capture: "t1/core.bin: ...", "t1/mlx5_0: ...".
    const bool named = dir.empty() || subject == dir || starts_with(subject, dir + "/");
    warnings.push_back((named ? "" : dir + "/") + subject + ": " + text);
    notes.push_back(Note{std::move(subject), std::move(text)});
}

void Model::bad_value(const TextFile& f, std::size_t line_index, std::string text) {
    note(f, line_index, std::move(text));
    bad_values.push_back(notes.back().subject);
}

void Model::warn_bad_values() {
    if (bad_values.empty()) return;
    // The first few places, each file named once; --verbose has every one with its value.
    constexpr std::size_t kShown = 5;
    std::string where, file;
    for (std::size_t k = 0; k < bad_values.size() && k < kShown; ++k) {
        const std::string& at = bad_values[k];
        const auto colon = at.rfind(':');
        const std::string this_file = at.substr(0, colon);
        where += (k ? ", " : "") + (this_file == file ? at.substr(colon) : dir + "/" + at);
        file = this_file;
    }
    if (bad_values.size() > kShown)
        where += " and " + std::to_string(bad_values.size() - kShown) + " more";
    const std::size_t n = bad_values.size();
    warnings.push_back(std::to_string(n) +
                       (n == 1 ? " counter value is not a number and was ignored ("
                               : " counter values are not numbers and were ignored (") +
                       where + "); the diagnosis runs without " + (n == 1 ? "it" : "them") +
                       " (--verbose shows each)");
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
    Model::CounterIndex& index = m.counter_index[&list];
    if (index.data != list.data() || index.size != list.size()) {  // new, or the list changed
        index.position.clear();
        for (std::size_t i = 0; i < list.size(); ++i) index.position.emplace(list[i].name, i);
    }
    const auto found = index.position.find(c.name);
    if (found == index.position.end()) {
        index.position.emplace(c.name, list.size());
        list.push_back(std::move(c));
        index.data = list.data();
        index.size = list.size();
        return;
    }
    const auto it = list.begin() + static_cast<std::ptrdiff_t>(found->second);
    if (it->value == c.value) return;
    auto show = [](const Counter& x) {
        return (x.value ? std::to_string(*x.value) : std::string("unreadable")) + " in " + x.source;
    };
    m.note(subject, "counter " + c.name + " given twice with different values (" + show(*it) +
                        ", " + show(c) + "): kept the first");
}

std::string iface_in_file_name(std::string_view file) {
    std::string found;
    std::size_t at = 0;
    while (at < file.size()) {
        std::size_t end = file.find_first_of("-_.", at);
        if (end == std::string_view::npos) end = file.size();
        const std::string_view w = file.substr(at, end - at);
        at = end + 1;
        bool fits = false;
        for (std::string_view prefix : {"eth", "ens", "enp", "eno", "enP", "ib", "bond"})
            if (w.size() > prefix.size() && starts_with(w, prefix) &&
                std::isdigit(static_cast<unsigned char>(w[prefix.size()])))
                fits = true;
        for (char c : w) fits = fits && std::isalnum(static_cast<unsigned char>(c));
        if (!fits) continue;
        if (!found.empty() && found != w) return {};
        found = std::string(w);
    }
    return found;
}

}  // namespace rh::bundle
