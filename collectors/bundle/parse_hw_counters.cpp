// Counter listings as operators paste them:
// - `grep . /sys/class/infiniband/*/ports/*/hw_counters/*` (and `counters/*`, or a whole
//   `ports/*/*` tree): "path:value" lines. grep splits at the first ':' after the file name;
//   sysfs file names contain no ':' but may contain spaces (irdma "RNR sent"). Paths under
//   `infiniband/<dev>/ports/<p>/` place the value: hw_counters/<name> -> Port::hw_counters,
//   counters/<name> -> Port::counters, state, phys_state, rate, link_layer, gids/<i>,
//   gid_attrs/{types,ndevs}/<i>; `infiniband/<dev>/{fw_ver,node_guid}` -> Device. Relative
//   paths (`cd hw_counters; grep . *`) do not say which port: UnplacedCounters.
// - `tail -n +1 <dir>/*` / `head <dir>/*`: "==> <path> <==" header lines, each followed by the
//   file's value on the next line(s): read as "path:value" lines (the value's line number).
// - one "name value" counter per line (e.g. `for f in *; do echo $f $(cat $f); done`): only
//   when the file has no other format; also UnplacedCounters.
#include <cctype>

#include "collectors/bundle/bundle_model.h"
#include "collectors/bundle/sections.h"
#include "core/inventory/parse.h"
#include "core/sysfs.h"

namespace rh::bundle {

namespace {

struct PathValue {
    std::string_view path, value;
};

/// Splits a grep line at the first ':' after "infiniband/" (PCI device paths before it hold
/// colons), else at the first ':'. nullopt when there is no ':', or the path is empty or
/// starts with whitespace.
std::optional<PathValue> split(std::string_view line) {
    if (line.empty() || std::isspace(static_cast<unsigned char>(line[0]))) return std::nullopt;
    std::size_t from = 0;
    if (const auto ib = line.find("infiniband/"); ib != std::string_view::npos) from = ib;
    const auto colon = line.find(':', from);
    if (colon == std::string_view::npos || colon == 0) return std::nullopt;
    return PathValue{line.substr(0, colon), line.substr(colon + 1)};
}

bool names_counter_dir(std::string_view path) {
    return path.find("hw_counters/") != std::string_view::npos ||
           path.find("counters/") != std::string_view::npos ||
           path.find("infiniband/") != std::string_view::npos;
}

/// "<name> <u64>" with a name of letters, digits, "_.-/" and inner spaces, starting with a
/// letter; split at the last whitespace.
std::optional<std::pair<std::string_view, std::uint64_t>> name_value(std::string_view line) {
    line = trim(line);
    const auto ws = line.find_last_of(" \t");
    if (ws == std::string_view::npos) return std::nullopt;
    const auto name = trim(line.substr(0, ws));
    const auto v = to_u64(line.substr(ws + 1));
    if (!v || name.empty() || !std::isalpha(static_cast<unsigned char>(name[0])))
        return std::nullopt;
    for (char c : name)
        if (!std::isalnum(static_cast<unsigned char>(c)) && c != '_' && c != '.' && c != '-' &&
            c != '/' && c != ' ' && c != '\t')
            return std::nullopt;
    // A word of the name that is a number makes it a table row ("mlx5_ib 454656 0" of
    // `lsmod`, "eth2 1234 0" of /proc/net/dev), not a counter's name ("RNR sent").
    for (auto w : tokens(name))
        if (to_u64(w)) return std::nullopt;
    return std::pair{name, *v};
}

/// Most non-blank lines (>= 80 %, all when there are fewer than 3 matches) satisfy `pred`;
/// with `strong` (lines that name a sysfs counter directory, which nothing else prints) more
/// than half is enough, so a paste with a stray line is still read and the line noted.
template <typename Pred>
bool mostly(const TextFile& f, Pred pred, bool strong = false) {
    std::size_t total = 0, match = 0;
    for (const auto& l : f.lines) {
        if (trim(l).empty() || watch_command(l)) continue;  // a `watch` header: a clock
        ++total;
        if (pred(l)) ++match;
    }
    if (strong) return match * 2 > total;
    return match > 0 && match * 5 >= total * 4 && (match == total || match >= 3);
}

Counter counter(const TextFile& f, std::size_t i, std::string name, std::string_view value,
                Model& m) {
    Counter c{std::move(name), to_u64(value), source_of(f, i), {}};
    if (!c.value) {
        c.error = "not an unsigned decimal: " + quote_value(trim(value));
        // "N/A (no PMA)" is what core sysfs.c prints when the MAD fails: a value, not a typo.
        if (trim(value) != "N/A (no PMA)") m.bad_value(f, i, "counter " + c.name + ": " + c.error);
    }
    return c;
}

/// A line under `infiniband/<dev>/ports/<p>/<rel>`.
void port_attr(const TextFile& f, std::size_t i, const PortKey& k, std::string_view rel,
               std::string_view value, Model& m) {
    Port& p = m.port(k.device, k.port);
    const auto last = rel.substr(rel.rfind('/') + 1);
    auto& sources = m.port_sources[k];
    for (const char* attr : {"state", "phys_state", "rate", "link_layer"})
        if (rel == attr) sources.try_emplace(attr, source_of(f, i));
    if (starts_with(rel, "gids/")) {
        sources.try_emplace("gids", source_of(f, i));
        m.gid_table_seen.insert(k);
    }
    const auto index = [&] { return to_u64(last); };
    if (starts_with(rel, "hw_counters/")) {
        if (last != "lifespan")  // cache time in ms, not a counter
            add_counter(p.hw_counters, counter(f, i, std::string(last), value, m), m, f.name);
    } else if (starts_with(rel, "counters/")) {
        add_counter(p.counters, counter(f, i, std::string(last), value, m), m, f.name);
    } else if (rel == "state" || rel == "phys_state") {
        auto s = parse_port_state(value);
        if (!s)
            return m.note(f, i,
                          std::string(rel) + " not \"<code>: <NAME>\": " + quote_value(value));
        auto& code = rel == "state" ? p.state_code : p.phys_state_code;
        auto& name = rel == "state" ? p.state : p.phys_state;
        if (!code) code = s->code, name = s->name;
    } else if (rel == "rate") {
        if (p.rate.empty()) p.rate = std::string(trim(value));
    } else if (rel == "link_layer") {
        if (p.link_layer.empty()) p.link_layer = std::string(trim(value));
    } else if (starts_with(rel, "gids/") || starts_with(rel, "gid_attrs/types/") ||
               starts_with(rel, "gid_attrs/ndevs/")) {
        const auto idx = index();
        if (!idx || *idx > 65535)
            return m.note(f, i, "GID index not a number: " + quote_value(rel));
        Gid& g = m.gids[k][static_cast<unsigned>(*idx)];
        g.index = static_cast<unsigned>(*idx);
        const std::string v(trim(value));
        if (starts_with(rel, "gids/")) {
            const std::string gid = canonical_gid(v);
            if (gid.empty()) return m.note(f, i, "GID not an IPv6 address: " + quote_value(v));
            if (g.gid.empty()) g.gid = gid;
        } else if (starts_with(rel, "gid_attrs/types/")) {
            if (g.type.empty()) g.type = v;
        } else if (g.netdev.empty()) {
            g.netdev = v;
        }
    }
    // other port attributes (lid, cap_mask, ...) are not part of the inventory
}

/// `tail -n +1 dir/*` / `head dir/*` output as grep would print it: each "==> <path> <=="
/// header is blanked and the non-blank lines below it (up to the next header) become
/// "<path>:<line>". A file without any header is returned as it is.
TextFile tail_as_grep(const TextFile& f) {
    auto header = [](std::string_view l) -> std::optional<std::string_view> {
        l = trim(l);
        if (l.size() < 9 || !starts_with(l, "==> ") || l.substr(l.size() - 4) != " <==")
            return std::nullopt;
        return trim(l.substr(4, l.size() - 8));
    };
    bool any = false;
    for (const auto& l : f.lines) any = any || header(l).has_value();
    if (!any) return f;
    TextFile g = f;
    std::string path;
    for (auto& l : g.lines) {
        if (auto h = header(l)) {
            path = std::string(*h);
            l.clear();
        } else if (!path.empty() && !trim(l).empty()) {
            l = path + ":" + std::string(trim(l));
        }
    }
    return g;
}

bool is_grep_listing(const TextFile& f) {
    const bool placed = mostly(
        f,
        [](const std::string& l) {
            const auto pv = split(l);
            return pv && names_counter_dir(pv->path) && !trim(pv->value).empty();
        },
        true);
    if (placed) return true;
    // `cd hw_counters; grep . *`: "name:value" lines whose values are counts.
    return mostly(f, [](const std::string& l) {
        const auto pv = split(l);
        return pv && to_u64(pv->value);
    });
}

}  // namespace

bool is_hw_counters_listing(const TextFile& f) {
    return is_grep_listing(tail_as_grep(f));
}

std::string parse_hw_counters_listing(const TextFile& file, Model& m) {
    const TextFile f = tail_as_grep(file);
    UnplacedCounters unplaced{f.name, "hw_counters listing", {}, {}, port_in_command(f.command)};
    bool device_level = false;
    for (std::size_t i = 0; i < f.lines.size(); ++i) {
        if (trim(f.lines[i]).empty() || watch_command(f.lines[i])) continue;
        const auto pv = split(f.lines[i]);
        if (!pv) {
            m.note(f, i, "not a \"path:value\" line: " + quote_value(f.lines[i]));
            continue;
        }
        const std::string_view path = pv->path;
        if (const auto ib = path.find("infiniband/"); ib != std::string_view::npos) {
            const std::string_view rest = path.substr(ib + 11);
            const auto slash = rest.find('/');
            const std::string dev(rest.substr(0, slash));
            const std::string_view attr =
                slash == std::string_view::npos ? std::string_view{} : rest.substr(slash + 1);
            if (dev.empty() || dev == "*" || attr.empty()) {
                m.note(f, i, "path names no RDMA device attribute: " + quote_value(path));
            } else if (starts_with(attr, "ports/")) {
                const auto pslash = attr.find('/', 6);
                const auto port = to_u64(attr.substr(6, pslash - 6));
                if (!port || *port == 0 || *port > 255 || pslash == std::string_view::npos)
                    m.note(f, i, "port path not understood: " + quote_value(path));
                else
                    port_attr(f, i, {dev, static_cast<unsigned>(*port)}, attr.substr(pslash + 1),
                              pv->value, m);
            } else if (attr == "fw_ver" || attr == "node_guid") {
                auto& slot = attr == "fw_ver" ? m.device(dev).fw_ver : m.device(dev).node_guid;
                if (slot.empty()) slot = std::string(trim(pv->value));
            } else if (starts_with(attr, "hw_counters/")) {
                m.device(dev);
                device_level = true;
            } else {
                m.device(dev);  // other device attributes (node_type, board_id, ...)
            }
            continue;
        }
        // Relative: "hw_counters/<name>", "counters/<name>" or a bare "<name>".
        const auto last = path.substr(path.rfind('/') + 1);
        const bool pma =
            starts_with(path, "counters/") || path.find("/counters/") != std::string_view::npos;
        if (last == "lifespan") continue;
        add_counter(pma ? unplaced.counters : unplaced.hw_counters,
                    counter(f, i, std::string(last), pv->value, m), m, f.name);
    }
    if (device_level)
        m.note(f.name, "device-level hw_counters (not per port) are not part of the inventory");
    if (!unplaced.hw_counters.empty() || !unplaced.counters.empty())
        m.unplaced.push_back(std::move(unplaced));
    return "hw_counters listing";
}

bool is_counter_list(const TextFile& f) {
    return mostly(f, [](const std::string& l) { return name_value(l).has_value(); });
}

std::string parse_counter_list(const TextFile& f, Model& m) {
    UnplacedCounters unplaced{f.name, "counter list", {}, {}, port_in_command(f.command)};
    for (std::size_t i = 0; i < f.lines.size(); ++i) {
        if (trim(f.lines[i]).empty() || watch_command(f.lines[i])) continue;
        const auto nv = name_value(f.lines[i]);
        if (!nv) {
            m.note(f, i, "not a \"name value\" counter line: " + quote_value(f.lines[i]));
            continue;
        }
        if (nv->first == "lifespan") continue;
        add_counter(unplaced.hw_counters,
                    Counter{std::string(nv->first), nv->second, source_of(f, i), {}}, m, f.name);
    }
    m.unplaced.push_back(std::move(unplaced));
    return "counter list (name value)";
}

}  // namespace rh::bundle
