// `ip link` / `ip -d link` / `ip -s link` / `ip addr` (iproute2 ip/ipaddress.c): per interface
// a header "2: eth0: <BROADCAST,MULTICAST,UP,LOWER_UP> mtu 9000 qdisc mq state UP mode ..."
// ("eth0.100@eth0" for stacked devices), then indented lines: "link/ether ..." or
// "link/loopback ...", with -d "... parentbus pci parentdev 0000:3b:00.0", "altname X", and
// with -s a "RX:  bytes packets errors dropped ..." header followed by its values (same for
// "TX:", and with -s -s "RX errors:" / "TX errors: ... transns" = carrier changes).
#include <cctype>
#include <map>

#include "collectors/bundle/bundle_model.h"
#include "core/inventory/parse.h"
#include "core/sysfs.h"

namespace rh::bundle {

namespace {

/// "2: eth0: <...> mtu 1500 ..." -> "eth0" (without "@parent"); empty when not a header.
std::string header_name(std::string_view line) {
    std::size_t n = 0;
    while (n < line.size() && std::isdigit(static_cast<unsigned char>(line[n]))) ++n;
    if (n == 0 || line.size() < n + 2 || line[n] != ':' ||
        (line[n + 1] != ' ' && line[n + 1] != '\t'))
        return {};
    const auto end = line.find(':', n + 2);
    if (end == std::string_view::npos) return {};
    const std::string_view after_name = trim(line.substr(end + 1));
    if (after_name.empty() || after_name[0] != '<') return {};
    std::string_view name = trim(line.substr(n + 2, end - n - 2));
    name = name.substr(0, name.find('@'));
    return name.empty() || tokens(name).size() != 1 ? std::string{} : std::string(name);
}

/// The token after `key` in `t`, or empty.
std::string_view after(const std::vector<std::string_view>& t, std::string_view key) {
    for (std::size_t i = 0; i + 1 < t.size(); ++i)
        if (t[i] == key) return t[i + 1];
    return {};
}

/// Stores the value under `name` of an `ip -s link` statistics table into the netdev.
void store_stat(Netdev& nd, bool rx, bool errors_table, std::string_view name, std::uint64_t v) {
    if (errors_table) {
        if (!rx && name == "transns") nd.carrier_changes = v;
        return;
    }
    if (name == "bytes") (rx ? nd.rx_bytes : nd.tx_bytes) = v;
    if (name == "packets") (rx ? nd.rx_packets : nd.tx_packets) = v;
    if (name == "errors") (rx ? nd.rx_errors : nd.tx_errors) = v;
    if (name == "dropped") (rx ? nd.rx_dropped : nd.tx_dropped) = v;
}

/// A second listing of an interface (`ip link` and `ip -s addr` in one capture) fills only
/// what the first one lacks.
void merge_facts(NetdevFacts& into, NetdevFacts from) {
    if (into.netdev.name.empty()) {
        into = std::move(from);
        return;
    }
    Netdev& a = into.netdev;
    const Netdev& b = from.netdev;
    if (!a.mtu_bytes) a.mtu_bytes = b.mtu_bytes;
    if (a.operstate.empty()) a.operstate = b.operstate;
    for (auto [x, y] : {std::pair{&a.rx_bytes, &b.rx_bytes},
                        {&a.tx_bytes, &b.tx_bytes},
                        {&a.rx_packets, &b.rx_packets},
                        {&a.tx_packets, &b.tx_packets},
                        {&a.rx_errors, &b.rx_errors},
                        {&a.tx_errors, &b.tx_errors},
                        {&a.rx_dropped, &b.rx_dropped},
                        {&a.tx_dropped, &b.tx_dropped},
                        {&a.carrier_changes, &b.carrier_changes}})
        if (!*x) *x = *y;
    if (into.parentdev.empty()) into.parentdev = from.parentdev;
    if (into.mac.empty()) into.mac = from.mac;
    for (auto& alt : from.altnames) into.altnames.push_back(std::move(alt));
    into.loopback = into.loopback || from.loopback;
}

}  // namespace

bool is_ip_link(const TextFile& f) {
    for (const auto& l : f.lines)
        if (!header_name(l).empty() && !after(tokens(l), "mtu").empty()) return true;
    return false;
}

std::string parse_ip_link(const TextFile& f, Model& m) {
    bool details = false;
    std::map<std::string, NetdevFacts> found;
    NetdevFacts* cur = nullptr;
    for (std::size_t i = 0; i < f.lines.size(); ++i) {
        const std::string_view line = f.lines[i];
        if (const std::string name = header_name(line); !name.empty()) {
            auto [it, inserted] = found.try_emplace(name);
            cur = &it->second;
            if (!inserted) {
                m.note(f, i, "interface " + name + " listed again; kept the first listing");
                cur = nullptr;
                continue;
            }
            cur->netdev.name = name;
            cur->netdev.source = source_of(f, i);
            const auto t = tokens(line.substr(line.find('>') + 1));
            if (const auto mtu = after(t, "mtu"); !mtu.empty()) {
                const auto parsed = parse_mtu(mtu);
                cur->netdev.mtu_bytes = parsed.mtu;
                if (!parsed.mtu) m.note(f, i, "ip link " + name + ": " + parsed.error);
            } else {
                m.note(f, i, "ip link header without mtu: " + quote_value(line));
            }
            if (const auto st = after(t, "state"); !st.empty()) {
                std::string s(st);
                for (auto& c : s)
                    c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
                cur->netdev.operstate = s;
            }
            cur->loopback = line.find("LOOPBACK") != std::string_view::npos;
            continue;
        }
        if (!cur) continue;
        const auto t = tokens(line);
        if (t.empty()) continue;
        if (t[0] == "link/loopback") cur->loopback = true;
        if (t[0] == "link/ether" && t.size() >= 2) {
            cur->mac = std::string(t[1]);
            for (auto& c : cur->mac)
                c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
        }
        if (t[0] == "altname" && t.size() == 2) cur->altnames.emplace_back(t[1]);
        // `ip addr`: the host's addresses, which name it in job logs (NCCL's "from peer IP").
        if ((t[0] == "inet" || t[0] == "inet6") && t.size() >= 2 && !cur->loopback) {
            const std::string_view a = t[1].substr(0, t[1].find('/'));
            m.ip_addresses.emplace_back(a);
        }
        if (after(t, "parentbus") == "pci") {
            details = true;
            cur->parentdev = canonical_bdf(after(t, "parentdev"));
        }
        if (after(t, "promiscuity").size() || after(t, "minmtu").size()) details = true;
        // -s tables: a header line ("RX:", "TX:", "RX errors:", "TX errors:") then values.
        const bool rx = t[0] == "RX:" || (t[0] == "RX" && t.size() > 1 && t[1] == "errors:");
        const bool tx = t[0] == "TX:" || (t[0] == "TX" && t.size() > 1 && t[1] == "errors:");
        if ((rx || tx) && i + 1 < f.lines.size()) {
            const bool errors_table = t[0] == "RX" || t[0] == "TX";
            const std::vector<std::string_view> names(t.begin() + (errors_table ? 2 : 1), t.end());
            const auto values = tokens(f.lines[i + 1]);
            if (values.size() > names.size() || values.empty() || !to_u64(values[0])) {
                m.note(f, i + 2, "ip -s link statistics line does not match its header");
                continue;
            }
            for (std::size_t k = 0; k < values.size(); ++k) {
                const auto v = to_u64(values[k]);
                if (!v) {  // -h prints "1.2M": not a count
                    m.bad_value(f, i + 2,
                                "ip -s link value not a whole number: " + quote_value(values[k]));
                    continue;
                }
                store_stat(cur->netdev, rx, errors_table, names[k], *v);
            }
            ++i;
        }
    }
    for (auto& [name, facts] : found) merge_facts(m.netdevs[name], std::move(facts));
    return details ? "ip -d link" : "ip link";
}

}  // namespace rh::bundle
