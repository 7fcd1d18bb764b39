#include "collectors/poller/poll_pass.h"

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <utility>

#include "collectors/sources/aer.h"
#include "collectors/sources/netdev.h"
#include "collectors/sources/rdma_sysfs.h"
#include "core/inventory/parse.h"

namespace rh::poll {

namespace {

using Clock = std::chrono::steady_clock;

double seconds(Clock::duration d) {
    return std::chrono::duration<double>(d).count();
}

/// read_text's cleaning of a raw attribute: trailing whitespace/NULs off, control bytes as '?'.
std::string_view clean(char* b, std::size_t n) {
    while (n > 0 && (b[n - 1] == '\n' || b[n - 1] == ' ' || b[n - 1] == '\t' || b[n - 1] == '\0'))
        --n;
    for (std::size_t i = 0; i < n; ++i) {
        const auto u = static_cast<unsigned char>(b[i]);
        if ((u < 0x20 && b[i] != '\n' && b[i] != '\t') || u == 0x7f) b[i] = '?';
    }
    return {b, n};
}

bool same_names(const std::vector<Counter>& a, const std::vector<Counter>& b) {
    return std::equal(a.begin(), a.end(), b.begin(), b.end(),
                      [](const Counter& x, const Counter& y) { return x.name == y.name; });
}

}  // namespace

/// What take_counters changed.
enum class Took : std::uint8_t {
    nothing,  ///< same names and values
    values,   ///< same names, other values (or readability)
    names,    ///< other names or sources: the port's normalizer must be resolved again
};

namespace {

/// Replaces `list` by `fresh`; in place (no allocation) when the names and sources are the same
/// (a PortNormalizer copies both only when it is resolved).
Took take_counters(std::vector<Counter>& list, std::vector<Counter>&& fresh) {
    if (!same_names(list, fresh) ||
        !std::equal(list.begin(), list.end(), fresh.begin(), fresh.end(),
                    [](const Counter& x, const Counter& y) { return x.source == y.source; })) {
        list = std::move(fresh);
        return Took::names;
    }
    bool changed = false;
    for (std::size_t i = 0; i < list.size(); ++i) {
        changed = changed || list[i].value != fresh[i].value;
        list[i].value = fresh[i].value;
        list[i].error = fresh[i].error;
    }
    return changed ? Took::values : Took::nothing;
}

/// A sysfs counter's text "%llu\n" (newline already cleaned off): true with `v` for 1 to 19
/// decimal digits (always below 2^64); false for anything else, which parse_u64 then judges.
bool plain_u64(std::string_view text, std::uint64_t& v) {
    if (text.empty() || text.size() > 19) return false;
    std::uint64_t x = 0;
    for (const char c : text) {
        if (c < '0' || c > '9') return false;
        x = x * 10 + static_cast<std::uint64_t>(c - '0');
    }
    v = x;
    return true;
}

/// Returns true when a value was present (the list's values changed).
bool mark_unavailable(std::vector<Counter>& list, const std::string& why) {
    bool had = false;
    for (auto& c : list) {
        had = had || c.value.has_value();
        c.value.reset();
        c.error = why;
    }
    return had;
}

void mark_one(Counter& c, const std::string& why) {
    c.value.reset();
    c.error = why;
}

}  // namespace

Pass::Pass(Plan& plan, Snapshot& snap, PollResult& result)
    : plan_(plan), snap_(snap), result_(result) {}

void Pass::run() {
    Snapshot& s = snap_;
    s.collected_at = utc_iso8601(std::chrono::system_clock::now());
    for (std::size_t i = 0; i < plan_.shape.size(); ++i) {
        auto& problems = s.devices[i].problems;
        problems.resize(std::min(problems.size(), plan_.shape[i].problems));
    }
    device_gone_.assign(plan_.shape.size(), 0);
    netdev_gone_.assign(plan_.netdevs.size(), 0);
    std::vector<std::string> changed;
    plan_.files.check_dirs(changed);
    for (auto& why : changed) rediscover(std::move(why));
    read_files();
    if (plan_.sources) refresh_sources();
    // Ports whose raw values are as they were keep their normalized counters.
    for (std::size_t di = 0; di < s.devices.size(); ++di)
        for (std::size_t pi = 0; pi < s.devices[di].ports.size(); ++pi) {
            if (!plan_.dirty[di][pi]) continue;
            Port& p = s.devices[di].ports[pi];
            plan_.normalizers[di][pi].apply(p, p.normalized);
            plan_.dirty[di][pi] = 0;
        }
}

SourcePass& Pass::pass_of(Source s) {
    return result_.sources[static_cast<std::size_t>(s)];
}

void Pass::note(std::uint32_t dev, std::string subject, std::string text) {
    snap_.devices[dev].problems.push_back(Note{std::move(subject), std::move(text)});
}

void Pass::rediscover(std::string why) {
    result_.rediscover = true;
    result_.rediscover_reasons.push_back(std::move(why));
}

std::string Pass::port_subject(const File& f) const {
    const Device& d = snap_.devices[f.dev];
    return d.name + " port " + std::to_string(d.ports[f.port].number);
}

Counter& Pass::counter_of(const File& f) {
    Port& p = snap_.devices[f.dev].ports[f.port];
    return (p.*port_counter_dirs()[f.field].list)[f.index];
}

Netdev& Pass::netdev_of(const File& f) {
    const auto [dev, port] = plan_.netdevs[f.index].ports.front();
    return *snap_.devices[dev].ports[port].netdev;
}

/// Notes for a netdev file go to every port using the netdev, as discovery puts them.
void Pass::netdev_note(const File& f, const std::string& text) {
    for (const auto& [dev, port] : plan_.netdevs[f.index].ports) {
        const Device& d = snap_.devices[dev];
        note(dev, d.name + " port " + std::to_string(d.ports[port].number), text);
    }
}

/// Applies a failure to the value(s) `f` feeds. `noted` false: no note (the directory or
/// device already has one).
void Pass::fail(File& f, const Error& e, bool noted) {
    ++result_.files_failed;
    // Discovery found this file: any failure to read it now is one (not "no data").
    pass_of(source_of(f.target)).success = false;
    const std::string msg = e.message();
    const bool netdev_file = f.target == Target::netdev;
    if (e.err_no == ENODEV) {  // sysfs: the kernel object behind the open file is gone
        const std::string& name =
            netdev_file ? plan_.netdevs[f.index].name : snap_.devices[f.dev].name;
        char& gone = netdev_file ? netdev_gone_[f.index] : device_gone_[f.dev];
        if (!gone) {
            gone = 1;
            rediscover(name + " is gone (" + msg + ")");
            const std::string text =
                "removed (" + msg + "): its values are unavailable until rediscovery";
            if (netdev_file)
                netdev_note(f, "netdev " + name + " " + text);
            else
                note(f.dev, name, "device " + text);
        }
        noted = false;
    }
    Device& d = snap_.devices[f.dev];
    switch (f.target) {
        case Target::port_counter: {
            Counter& c = counter_of(f);
            set_raw(f, c.value, std::nullopt);
            c.error = msg;
            if (noted) note(f.dev, port_subject(f), msg);
            return;
        }
        case Target::port_state:
            clear_port_state(d.ports[f.port], port_state_files()[f.field]);
            if (noted) note(f.dev, port_subject(f), msg);
            return;
        case Target::netdev: {
            clear_netdev_file(netdev_of(f), netdev_files()[f.field]);
            if (noted) netdev_note(f, msg);
            return;
        }
        case Target::aer_dev:
        case Target::aer_total: {
            auto& aer = d.pcie[f.index].aer;
            if (f.target == Target::aer_total)
                mark_one(aer[f.field], msg);
            else
                for (auto k : f.aer) mark_one(aer[k], msg);
            if (noted) note(f.dev, d.name, msg);
            return;
        }
    }
}

/// Stores the text of `f` the way discovery parses it. `raw` is read()'s text: a plain
/// "%llu\n" counter is taken as it is, anything else is cleaned (as read_text does) first.
void Pass::store(File& f, std::string_view raw) {
    std::uint64_t x = 0;
    const std::string_view digits =
        !raw.empty() && raw.back() == '\n' ? raw.substr(0, raw.size() - 1) : raw;
    if (f.target == Target::port_counter && plain_u64(digits, x)) {
        Counter& c = counter_of(f);
        set_raw(f, c.value, x);
        c.error.clear();
        return;
    }
    if (f.target == Target::netdev && netdev_files()[f.field].counter && plain_u64(digits, x)) {
        netdev_of(f).*netdev_files()[f.field].counter = x;
        return;
    }
    store_text(f, clean(const_cast<char*>(raw.data()), raw.size()));
}

void Pass::store_text(File& f, std::string_view text) {
    Device& d = snap_.devices[f.dev];
    switch (f.target) {
        case Target::port_counter: {  // "N/A (no PMA)": unavailable, as discovery says it
            Counter& c = counter_of(f);
            const auto before = c.value;
            store_counter_text(c, text);
            if (c.value != before) plan_.dirty[f.dev][f.port] = 1;
            return;
        }
        case Target::port_state:
            if (std::string why =
                    store_port_state(d.ports[f.port], port_state_files()[f.field], text);
                !why.empty())
                note(f.dev, port_subject(f), f.path + ": " + why);
            return;
        case Target::netdev:
            if (std::string why = store_netdev_file(netdev_of(f), netdev_files()[f.field], text);
                !why.empty())
                netdev_note(f, f.path + ": " + why);
            return;
        case Target::aer_total:
            store_aer_total(d.pcie[f.index].aer[f.field], text, f.path);
            return;
        case Target::aer_dev:
            store_aer(f, d.pcie[f.index].aer, text);
            return;
    }
}

/// aer_dev_* lines "<name with spaces> <count>" onto the counters discovery found (as
/// parse_aer names and parses them, without allocating).
void Pass::store_aer(File& f, std::vector<Counter>& aer, std::string_view text) {
    const std::string_view file = std::string_view(f.rel).substr(f.rel.rfind('/') + 1);
    for (AerLine l; next_aer_line(text, l);) {
        Counter* c = nullptr;
        for (auto k : f.aer) {
            const std::string_view n = aer[k].name;
            if (n.size() == file.size() + 1 + l.name.size() && n.substr(file.size() + 1) == l.name)
                c = &aer[k];
        }
        if (!c) {
            rediscover(f.path + ": new line '" + std::string(l.name) + "'");
            continue;
        }
        c->value = l.count;
        if (c->error != l.error) c->error = l.error;
    }
}

void Pass::read_files() {
    char buf[4097];  // a sysfs attribute is at most one 4 KiB page
    // Files come grouped by source (a port's RDMA files, its netdev's, the device's AER):
    // the clock is read where the source changes, not per file.
    Source cur = Source::rdma_sysfs;
    auto t0 = Clock::now();
    for (auto& f : plan_.files.files) {
        if (const Source s = source_of(f.target); s != cur) {
            const auto now = Clock::now();
            pass_of(cur).duration_s += seconds(now - t0);
            cur = s;
            t0 = now;
        }
        pass_of(cur).read = true;
        const Dir& d = plan_.files.dirs[f.dir];
        if (d.gone) {
            fail(f, Error{"read", f.path, 0, "directory removed"}, false);
            continue;
        }
        const bool netdev_file = f.target == Target::netdev;
        if (netdev_file ? netdev_gone_[f.index] : device_gone_[f.dev]) {  // skip the reads
            fail(f, Error{"read", f.path, ENODEV, {}}, false);
            continue;
        }
        ++result_.files_read;
        auto text = plan_.files.read(f, buf, sizeof buf, slow_);
        if (text)
            store(f, *text);
        else
            fail(f, text.error(), true);
    }
    pass_of(cur).duration_s += seconds(Clock::now() - t0);
    for (auto& d : plan_.files.dirs)
        if (d.gone) {
            const File& f = plan_.files.files[d.files.front()];
            note(f.dev, snap_.devices[f.dev].name,
                 d.path + ": directory removed: its values are unavailable until rediscovery");
        }
    // A netdev shared by ports: the first port's Netdev was filled, the others copy it.
    for (const auto& e : plan_.netdevs) {
        const auto [d0, p0] = e.ports.front();
        Netdev& n0 = *snap_.devices[d0].ports[p0].netdev;
        n0.source = e.dir;
        for (std::size_t k = 1; k < e.ports.size(); ++k) {
            Netdev& n = *snap_.devices[e.ports[k].first].ports[e.ports[k].second].netdev;
            copy_netdev_files(n, n0);
            n.source = n0.source;
        }
    }
}

/// ethtool -S, link pause, DCB per netdev and RDMA netlink per port: one request per
/// netdev/port on the kept sockets, through discovery's readers (counter_sources.h).
void Pass::refresh_sources() {
    CounterSources& src = *plan_.sources;
    SourceClock clock(&result_.sources);
    for (const auto& e : plan_.netdevs) {
        NetdevReadings r = read_netdev_sources(src, e.name, clock);
        for (std::size_t k = 0; k < e.ports.size(); ++k) {
            const auto [dev, port] = e.ports[k];
            Netdev& n = *snap_.devices[dev].ports[port].netdev;
            if (auto& stats = r.ethtool_stats) {
                if (*stats) {
                    auto copy = k + 1 < e.ports.size() ? **stats : std::move(**stats);
                    took(dev, port, take_counters(n.ethtool_stats, std::move(copy)));
                } else if (mark_unavailable(n.ethtool_stats,
                                            source_error_text(src, stats->error()))) {
                    plan_.dirty[dev][port] = 1;
                }
            }
            if (r.link_pause || r.dcb)
                plan_.dirty[dev][port] = 1;  // DCB / link pause values: compared by apply
            if (r.link_pause) {
                if (*r.link_pause) {
                    n.link_pause = **r.link_pause;
                } else {
                    n.link_pause.tx_frames.reset();
                    n.link_pause.rx_frames.reset();
                }
            }
            if (r.dcb) {
                if (*r.dcb)
                    n.dcb = **r.dcb;
                else
                    n.dcb.reset();
            }
            const std::size_t base = plan_.shape[dev].unavailable[port];
            n.unavailable.resize(std::min(n.unavailable.size(), base));
            n.unavailable.insert(n.unavailable.end(), r.unavailable.begin(), r.unavailable.end());
        }
    }
    if (!src.rdma) return;
    for (std::uint32_t di = 0; di < snap_.devices.size(); ++di) {
        Device& d = snap_.devices[di];
        if (device_gone_[di]) continue;
        for (std::uint32_t pi = 0; pi < d.ports.size(); ++pi) {
            Port& port = d.ports[pi];
            auto cs = read_port_nl_counters(src, d.name, port.number, clock);
            if (cs) {
                took(di, pi, take_counters(port.nl_hw_counters, std::move(*cs)));
            } else if (!missing_recording(src, cs.error())) {
                if (mark_unavailable(port.nl_hw_counters, cs.error().message()))
                    plan_.dirty[di][pi] = 1;
                d.problems.push_back(
                    unavailable_note(Source::rdma_netlink, src,
                                     d.name + " port " + std::to_string(port.number), cs.error()));
            }
        }
    }
}

void Pass::took(std::uint32_t dev, std::uint32_t port, Took t) {
    if (t == Took::names) plan_.renormalize(snap_, dev, port);
    if (t != Took::nothing) plan_.dirty[dev][port] = 1;
}

/// Sets a raw value that normalization reads; a change makes the port's normalized
/// counters due this pass.
void Pass::set_raw(const File& f, std::optional<std::uint64_t>& slot,
                   std::optional<std::uint64_t> v) {
    if (slot == v) return;
    slot = v;
    plan_.dirty[f.dev][f.port] = 1;
}

}  // namespace rh::poll
