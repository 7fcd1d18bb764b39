// `mlnx_qos -i <if>` (Mellanox/mlnx-tools python/mlnx_qos pretty_print): "DCBX mode: ...",
// "Priority trust state: dscp" (older: "Priority trust mode:"), with dscp the
// "dscp2prio mapping:" lines "\tprio:3 dscp:31,30,...," then "PFC configuration:" with
// "\tpriority    0   1 ...   7" / "\tenabled     0   0   0   1   0   0   0   0" /
// "\tbuffer ...", then per traffic class "tc: 3 ratelimit: unlimited, tsa: ets, bw: 50%"
// (or "tsa: strict" / "tsa: vendor") followed by its "\t priority:  3" lines. Only classes
// holding a priority are printed (all 8 with -a). The output does not name the interface.
#include <array>

#include "collectors/bundle/bundle_model.h"
#include "core/sysfs.h"

namespace rh::bundle {

namespace {

/// include/uapi/linux/dcbnl.h IEEE_8021QAZ_TSA_*.
std::optional<std::uint8_t> tsa_code(std::string_view t) {
    if (t == "strict") return 0;
    if (t == "cbs") return 1;
    if (t == "ets") return 2;
    if (t == "vendor") return 255;
    return std::nullopt;
}

struct Tc {
    std::uint8_t tsa = 0;
    std::uint8_t bw = 0;
};

/// "tc: 3 ratelimit: unlimited, tsa: ets, bw: 50%" -> tc number, tsa, bw.
std::optional<std::pair<unsigned, Tc>> tc_line(std::string_view body) {
    const auto t = tokens(body);
    if (t.size() < 2 || t[0] != "tc:") return std::nullopt;
    const auto tc = to_u64(t[1]);
    const auto tsa_at = body.find("tsa:");
    if (!tc || *tc > 7 || tsa_at == std::string_view::npos) return std::nullopt;
    std::string_view tsa = body.substr(tsa_at + 4);
    tsa = trim(tsa.substr(0, tsa.find(',')));
    const auto code = tsa_code(tsa);
    if (!code) return std::nullopt;
    Tc out{*code, 0};
    if (const auto bw_at = body.find("bw:"); bw_at != std::string_view::npos) {
        std::string_view bw = body.substr(bw_at + 3);
        const auto v = to_u64(trim(bw.substr(0, bw.find('%'))));
        if (!v || *v > 100) return std::nullopt;
        out.bw = static_cast<std::uint8_t>(*v);
    }
    return std::pair{static_cast<unsigned>(*tc), out};
}

/// What the lines say so far.
struct QosLines {
    QosConfig qos;
    DcbConfig dcb;
    std::array<std::optional<std::uint8_t>, 8> prio_tc{};
    std::array<std::optional<Tc>, 8> tcs{};
    int tc = -1;  ///< the class whose "priority:" lines follow; -1 before the first "tc:"
};

/// "Priority trust state: dscp" (line i): dscp or pcp kept, none ignored, else a note.
void trust_line(const TextFile& f, std::size_t i, std::string_view body, QosLines& q, Model& m) {
    const auto v = trim(body.substr(body.find(':') + 1));
    if (v == "dscp" || v == "pcp") {
        q.qos.trust = std::string(v);
        q.qos.trust_source = source_of(f, i) + " (mlnx_qos)";
    } else if (v != "none") {
        m.note(f, i, "mlnx_qos trust state not understood: " + quote_value(v));
    }
}

/// "prio:3 dscp:31,30,...,": one DCB app entry (selector 5, DSCP) per code point, up to the
/// first bad one; false when the line is not understood.
bool dscp2prio_line(std::string_view body, DcbConfig& dcb) {
    const auto prio = to_u64(body.substr(5, body.find(' ') - 5));
    std::string_view list = body.substr(body.find("dscp:") + 5);
    bool ok = prio && *prio < 8;
    while (ok && !trim(list).empty()) {
        const auto comma = list.find(',');
        const auto d = to_u64(list.substr(0, comma));
        ok = d && *d < 64;
        if (ok)
            dcb.apps.push_back(
                DcbApp{5, static_cast<std::uint8_t>(*prio), static_cast<std::uint16_t>(*d)});
        list = comma == std::string_view::npos ? std::string_view{} : list.substr(comma + 1);
    }
    return ok;
}

/// "enabled 0 0 0 1 0 0 0 0" -> the PFC mask (bit p for priority p), unless not 8 values 0/1.
std::optional<std::uint8_t> pfc_enabled_line(const std::vector<std::string_view>& t) {
    std::uint8_t mask = 0;
    bool ok = t.size() == 9;
    for (std::size_t p = 0; ok && p < 8; ++p) {
        const auto v = to_u64(t[p + 1]);
        ok = v && *v <= 1;
        if (ok && *v) mask |= static_cast<std::uint8_t>(1u << p);
    }
    if (!ok) return std::nullopt;
    return mask;
}

/// One line (number i) of the output into `q`; what is not understood gets a note.
void qos_line(const TextFile& f, std::size_t i, QosLines& q, Model& m) {
    const std::string_view body = trim(f.lines[i]);
    const auto t = tokens(body);
    if (t.empty()) return;
    if (starts_with(body, "Priority trust state:") || starts_with(body, "Priority trust mode:")) {
        trust_line(f, i, body, q, m);
    } else if (starts_with(body, "prio:") && body.find("dscp:") != std::string_view::npos) {
        if (!dscp2prio_line(body, q.dcb))
            m.note(f, i, "mlnx_qos dscp2prio line not understood: " + quote_value(body));
    } else if (t[0] == "enabled") {
        if (const auto mask = pfc_enabled_line(t))
            q.dcb.pfc_enabled = *mask;
        else
            m.note(f, i, "mlnx_qos PFC \"enabled\" line is not 8 values 0/1: " + quote_value(body));
    } else if (t[0] == "tc:") {
        const auto parsed = tc_line(body);
        q.tc = -1;
        if (!parsed) {
            m.note(f, i, "mlnx_qos traffic class line not understood: " + quote_value(body));
            return;
        }
        q.tc = static_cast<int>(parsed->first);
        q.tcs[parsed->first] = parsed->second;
    } else if (t[0] == "priority:") {
        const auto p = t.size() == 2 ? to_u64(t[1]) : std::nullopt;
        if (!p || *p > 7 || q.tc < 0) {
            m.note(f, i, "mlnx_qos priority line not understood: " + quote_value(body));
            return;
        }
        q.prio_tc[*p] = static_cast<std::uint8_t>(q.tc);
    }
}

/// The priority-to-class and class tables into q.dcb, whole tables only: a partial one would
/// pass unknown entries off as TC 0 / strict.
void whole_tables(QosLines& q) {
    std::array<std::uint8_t, 8> map{}, tsa{}, bw{};
    bool all_prio = true, all_tc = true;
    for (std::size_t k = 0; k < 8; ++k) {
        all_prio = all_prio && q.prio_tc[k];
        all_tc = all_tc && q.tcs[k];
        if (q.prio_tc[k]) map[k] = *q.prio_tc[k];
        if (q.tcs[k]) tsa[k] = q.tcs[k]->tsa, bw[k] = q.tcs[k]->bw;
    }
    if (all_prio) q.dcb.prio_tc = map;
    if (all_tc) q.dcb.tc_tsa = tsa, q.dcb.tc_tx_bw_percent = bw;
}

}  // namespace

bool is_mlnx_qos(const TextFile& f) {
    for (const auto& l : f.lines) {
        const auto b = trim(l);
        if (b == "PFC configuration:" || starts_with(b, "Priority trust state:") ||
            starts_with(b, "Priority trust mode:"))
            return true;
    }
    return false;
}

std::string parse_mlnx_qos(const TextFile& f, Model& m) {
    QosLines q;
    q.qos.ecn_source = "not part of mlnx_qos output";
    q.dcb.source = source_of(f) + " (mlnx_qos)";
    for (std::size_t i = 0; i < f.lines.size(); ++i) qos_line(f, i, q, m);
    whole_tables(q);
    IfaceFile out;
    out.file = f.name;
    out.kind = "mlnx_qos";
    out.iface_hint = iface_in_command(f.command, "mlnx_qos", {"-i", "--interface"});
    if (!q.qos.trust.empty()) out.qos = q.qos;
    if (q.dcb.pfc_enabled || q.dcb.prio_tc || !q.dcb.apps.empty()) out.dcb = q.dcb;
    if (!out.qos && !out.dcb) m.note(f.name, "mlnx_qos output with no trust, PFC or TC mapping");
    m.iface_files.push_back(std::move(out));
    return "mlnx_qos";
}

}  // namespace rh::bundle
