#include "collectors/sources/rdma_sysfs.h"

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <filesystem>
#include <system_error>

#include "collectors/sources/gid_cache.h"
#include "collectors/sources/kept_files.h"
#include "core/inventory/parse.h"

namespace rh {

namespace {

namespace fs = std::filesystem;

const std::string kClass = "class/infiniband/";

/// Decimal directory entries ("1", "2", "10") in numeric order; others go to `other`.
std::vector<unsigned> numeric_entries(const std::vector<std::string>& names,
                                      std::vector<std::string>* other = nullptr) {
    std::vector<unsigned> out;
    for (const auto& n : names) {
        unsigned v = 0;
        auto [p, ec] = std::from_chars(n.data(), n.data() + n.size(), v);
        if (!n.empty() && ec == std::errc() && p == n.data() + n.size())
            out.push_back(v);
        else if (other)
            other->push_back(n);
    }
    std::sort(out.begin(), out.end());
    return out;
}

/// Type problem of `p` (following links): empty when it exists; else why not.
std::string type_problem(const fs::path& p, fs::file_status& st) {
    std::error_code ec;
    st = fs::status(p, ec);
    if (!ec) return {};
    if (ec.value() == ELOOP) return "too many levels of symbolic links";
    std::error_code lec;
    const auto lst = fs::symlink_status(p, lec);
    if (!lec && fs::is_symlink(lst)) return "dangling link";
    return ec.message();
}

/// Reads a text attribute; on failure records a problem and returns "".
std::string read_attr(const SysfsRoot& sysfs, const std::string& rel, const std::string& subject,
                      std::vector<Note>& problems) {
    auto t = read_attr_file(sysfs, rel);
    if (t) return *t;
    problems.push_back(Note{subject, t.error().message()});
    return {};
}

/// `read` of `rate` or `link_layer` (a read error becomes a note). `rate` must be printable ASCII
/// without '?' (read_text masks control bytes as '?'); `link_layer` one of the kernel's
/// "InfiniBand", "Ethernet", "Unknown". Else absent + a note.
std::string text_attr(const SysfsDir& dir, const char* name, Result<std::string> read,
                      const std::string& subject, std::vector<Note>& problems,
                      bool link_layer = false) {
    if (!read) problems.push_back(Note{subject, read.error().message()});
    std::string t = read ? std::move(*read) : std::string{};
    bool ok = true;
    for (char c : t) {
        const auto u = static_cast<unsigned char>(c);
        if (u < 0x20 || u > 0x7e || c == '?') ok = false;
    }
    if (link_layer && !t.empty())
        ok = ok && (t == "InfiniBand" || t == "Ethernet" || t == "Unknown");
    if (!ok) {
        problems.push_back(Note{
            subject, dir.sysfs().path_text(dir.rel_of(name)) + ": unparsable " + quote_value(t)});
        return {};
    }
    return t;
}

// clang-format off
constexpr PortStateFile kStateFiles[] = {
    {"state", &Port::state_code, &Port::state},
    {"phys_state", &Port::phys_state_code, &Port::phys_state},
};
constexpr PortCounterDir kCounterDirs[] = {
    {"counters", &Port::counters, nullptr},
    {"hw_counters", &Port::hw_counters, "lifespan"},
};
// clang-format on

Port read_port(const SysfsRoot& sysfs, const std::string& dev, unsigned number,
               std::vector<Note>& problems) {
    Port port;
    port.number = number;
    const std::string dir = kClass + dev + "/ports/" + std::to_string(number);
    const std::string subject = dev + " port " + std::to_string(number);
    const SysfsDir pdir(sysfs, dir);

    // The port's attributes in one go (kept descriptors): state, phys_state, rate, link_layer.
    static const std::vector<std::string> kAttrs = {kStateFiles[0].name, kStateFiles[1].name,
                                                    "rate", "link_layer"};
    auto attrs = read_attr_files(pdir, kAttrs);
    for (std::size_t i = 0; i < std::size(kStateFiles); ++i) {
        const PortStateFile& f = kStateFiles[i];
        const auto& t = attrs[i];
        if (!t)
            problems.push_back(Note{subject, t.error().message()});
        else if (std::string why = store_port_state(port, f, *t); !why.empty())
            problems.push_back(Note{subject, sysfs.path_text(pdir.rel_of(f.name)) + ": " + why});
    }
    port.rate = text_attr(pdir, "rate", std::move(attrs[2]), subject, problems);
    port.link_layer = text_attr(pdir, "link_layer", std::move(attrs[3]), subject, problems, true);
    port.gids = GidCache::shared().gids(sysfs, dir);  // read again only when it may have changed

    for (const PortCounterDir& c : kCounterDirs) {
        // An open directory exists; one that does not open is checked by path (absent: no list).
        const SysfsDir cdir(sysfs, dir + "/" + c.name);
        if (!cdir.is_open() && !sysfs.exists(cdir.rel())) continue;
        if (auto list = read_counter_dir(
                cdir, c.skip ? std::vector<std::string>{c.skip} : std::vector<std::string>{}))
            port.*c.list = std::move(*list);
        else
            problems.push_back(Note{subject, list.error().message()});
    }
    port.netdev_name = find_port_netdev(sysfs, dev, port.gids);
    return port;
}

}  // namespace

std::span<const PortStateFile> port_state_files() {
    return kStateFiles;
}

std::string store_port_state(Port& p, const PortStateFile& f, std::string_view text) {
    auto st = parse_port_state(text);
    if (!st) {
        clear_port_state(p, f);
        return "unparsable " + quote_value(text);
    }
    p.*f.code = st->code;
    p.*f.text = std::move(st->name);
    return {};
}

void clear_port_state(Port& p, const PortStateFile& f) {
    (p.*f.code).reset();
    (p.*f.text).clear();
}

std::span<const PortCounterDir> port_counter_dirs() {
    return kCounterDirs;
}

void store_counter_text(Counter& c, std::string_view text) {
    if (auto v = parse_u64(text)) {
        c.value = *v;
        c.error.clear();
    } else {
        c.value.reset();
        c.error = v.error().detail;
    }
}

Result<std::string> read_attr_file(const SysfsRoot& sysfs, const std::string& rel) {
    if (auto t = sysfs.read_regular(rel)) return std::move(*t);
    // Absent, a link that leads nowhere, a directory, a FIFO...: say which.
    const fs::path p = sysfs.path(rel);
    fs::file_status st;
    if (std::string why = type_problem(p, st); !why.empty())
        return Error{"read", p.string(), 0, why};
    if (fs::is_directory(st)) return Error{"read", p.string(), 0, "is a directory"};
    if (!fs::is_regular_file(st)) return Error{"read", p.string(), 0, "not a regular file"};
    return sysfs.read_text(rel);
}

std::string dir_problem(const SysfsRoot& sysfs, const std::string& rel) {
    fs::file_status st;
    std::string why = type_problem(sysfs.path(rel), st);
    if (why.empty() && !fs::is_directory(st)) why = "is not a directory";
    return why;
}

Result<std::vector<std::string>> list_rdma_devices(const SysfsRoot& sysfs) {
    return sysfs.list("class/infiniband");
}

Result<std::string> read_attr_file(const SysfsDir& dir, const char* name) {
    if (auto t = dir.read_regular(name)) return std::move(*t);
    return read_attr_file(dir.sysfs(), dir.rel_of(name));  // says why
}

Result<std::vector<Counter>> read_counter_dir(const SysfsRoot& sysfs, const std::string& dir,
                                              const std::vector<std::string>& skip) {
    return read_counter_dir(SysfsDir(sysfs, dir), skip);
}

Result<std::vector<Counter>> read_counter_dir(const SysfsDir& dir,
                                              const std::vector<std::string>& skip) {
    auto names = dir.list();
    if (!names) return names.error();
    // Each file opened relative to the directory: one lookup of its (symlinked, deep) path per
    // directory, not per counter.
    std::erase_if(*names, [&](const std::string& n) {
        return std::find(skip.begin(), skip.end(), n) != skip.end();
    });
    // Through descriptors kept from the last discovery where they still name these files
    // (collectors/sources/kept_files.h); the others by path.
    std::vector<Counter> out(names->size());
    auto store = [&](std::size_t i, const Result<std::string>& text) {
        if (text)
            store_counter_text(out[i], *text);
        else
            out[i].error = text.error().message();
    };
    std::vector<char> read(names->size(), 0);
    KeptFiles::shared().read(dir, *names, [&](std::size_t i, Result<std::string>&& text) {
        store(i, text);
        read[i] = 1;
    });
    const std::string source_dir = dir.sysfs().path_text(dir.rel()) + "/";
    for (std::size_t i = 0; i < names->size(); ++i) {
        std::string& name = (*names)[i];
        if (!read[i]) store(i, read_attr_file(dir, name.c_str()));
        out[i].source = source_dir + name;
        out[i].name = std::move(name);
    }
    return out;  // list() is sorted, so counters are sorted by name
}

std::vector<Result<std::string>> read_attr_files(const SysfsDir& dir,
                                                 const std::vector<std::string>& names) {
    std::vector<std::optional<Result<std::string>>> kept(names.size());
    KeptFiles::shared().read(
        dir, names, [&](std::size_t i, Result<std::string>&& text) { kept[i] = std::move(text); });
    std::vector<Result<std::string>> out;
    out.reserve(names.size());
    for (std::size_t i = 0; i < names.size(); ++i)
        out.push_back(kept[i] ? std::move(*kept[i]) : read_attr_file(dir, names[i].c_str()));
    return out;
}

std::vector<Gid> read_gids(const SysfsRoot& sysfs, const std::string& port_dir) {
    std::vector<Gid> out;
    const SysfsDir gids(sysfs, port_dir + "/gids");
    auto names = gids.list();
    if (!names) return out;
    // The attrs directories are opened only once an entry is in use (most of a 255-entry
    // table is all-zero GIDs).
    std::optional<SysfsDir> types, ndevs;
    for (unsigned idx : numeric_entries(*names)) {
        const std::string i = std::to_string(idx);
        auto gid = gids.read_text(i.c_str());
        if (!gid || gid->empty() || is_zero_gid(*gid)) continue;
        Gid g;
        g.index = idx;
        g.gid = *gid;
        if (!types) {
            types.emplace(sysfs, port_dir + "/gid_attrs/types");
            ndevs.emplace(sysfs, port_dir + "/gid_attrs/ndevs");
        }
        // An unused index's attrs fail to read (EINVAL): treat as empty.
        if (auto t = types->read_text(i.c_str())) g.type = *t;
        if (auto n = ndevs->read_text(i.c_str())) g.netdev = *n;
        out.push_back(std::move(g));
    }
    return out;
}

std::string find_port_netdev(const SysfsRoot& sysfs, const std::string& dev,
                             const std::vector<Gid>& gids) {
    for (const auto& g : gids)
        if (!g.netdev.empty()) return g.netdev;
    if (auto net = sysfs.list(kClass + dev + "/device/net"); net && !net->empty())
        return net->front();
    // rxe: `parent` is a file holding the netdev name on kernels that have it.
    const std::string parent = kClass + dev + "/parent";
    if (auto t = sysfs.read_text(parent); t && !t->empty()) return *t;
    if (auto r = sysfs.resolve(parent)) return std::filesystem::path(*r).filename().string();
    return {};
}

Device read_rdma_device(const SysfsRoot& sysfs, const std::string& dev) {
    Device d;
    d.name = dev;
    const std::string dir = kClass + dev;
    if (std::string why = dir_problem(sysfs, dir); !why.empty()) {
        d.problems.push_back(Note{dev, sysfs.path_text(dir) + ": " + why});
        return d;
    }
    d.node_guid = read_attr(sysfs, dir + "/node_guid", dev, d.problems);
    d.fw_ver = read_attr(sysfs, dir + "/fw_ver", dev, d.problems);
    d.node_type = read_attr(sysfs, dir + "/node_type", dev, d.problems);
    const std::string ports_dir = sysfs.path_text(dir + "/ports");
    auto ports = sysfs.list(dir + "/ports");
    if (!ports) {
        d.problems.push_back(
            Note{dev, "no ports under " + ports_dir + " (" + ports.error().message() + ")"});
        return d;
    }
    std::vector<std::string> other;
    const auto numbers = numeric_entries(*ports, &other);
    for (const auto& n : other)
        d.problems.push_back(
            Note{dev, ports_dir + "/" + quote_value(n) + ": not a port number, ignored"});
    if (numbers.empty()) d.problems.push_back(Note{dev, "no ports under " + ports_dir});
    for (unsigned p : numbers) d.ports.push_back(read_port(sysfs, dev, p, d.problems));
    return d;
}

}  // namespace rh
