// The UCX reader: UCX's own log lines about RDMA errors (src/uct/ib, src/ucs/debug/log.c).
//
// Every UCX line carries its source "file.c:N" (ucs_log prints "[epoch.us] [host:pid:tid]
// file.c:N UCX LEVEL msg"; the fatal path, ucs_fatal_error_message, prints "[host:pid:tid:tid]
// file.c:N msg" with no time and no level). The cheap test is that token: one memchr pass over
// the line for ':' preceded by ".c"/".h" and followed by a digit. Only then are the forms tried:
//
//  mlx5 CQE error   "<error> on mlx5_0:1/RoCE (synd 0x15 vend 0x81 hw_synd 0/0)"  (ib_mlx5_log.c,
//                   UCX >= 1.6; the words vary by version, so the status comes from the syndrome)
//  UCX 1.5          "FATAL: Error on mlx5_3:1 QP 0xe6d7 wqe[7821]: <error> (synd 0x15 vend 0x81)
//                   opcode SEND"
//  verbs transports "send completion with error: <rdma-core words> [qpn 0x.. wrid 0x..
//                   vendor_err 0x..]" (rc_verbs), "Send completion with error on qp 0x..: <words>
//                   syndrome 0x81" (old dc_verbs), "<send|receive> completion[N] with error on
//                   bnxt_re0/0x..: <words>, vendor_err 0x.. wr_id 0x.." (ib_iface.h, any provider:
//                   bnxt_re, irdma, mlx5 through verbs)
//  QP line          the line UCX prints right after the error, from the same host:pid:tid:
//                   "DCI QP 0x14e4 wqe[0]: SEND s-e [rqpn 0x2248a rmac 50:6b:.. sgix 0 dgid
//                   fe80::.. tc 0]" (DC: the WQE's address vector) or "RC QP 0x.. wqe[1]: ...
//                   [rqpn 0x.. dlid=0 sl=0 port=1 src_path_bits=0 dgid=::ffff:10.0.0.2
//                   flow_label=0x.. sgid_index=3 traffic_class=106]" (RC: the QP's ah_attr,
//                   UCX >= 1.11), or the bare "[rqpn ...]" line after a verbs error.
//  connections      "connect(fd=N, dest_addr=IP:port) failed: <reason>" (ucs/sys/sock.c),
//                   "ep 0x..: error '<status>' on rc_mlx5/mlx5_0:1 will not be handled ..."
//                   (ucp_ep.c; only Destination is unreachable / Connection refused / Endpoint
//                   timeout), "received event RDMA_CM_EVENT_UNREACHABLE. status = N. Peer:
//                   IP:port." (old rdmacm_iface.c), "client ep 0x.. connect to IP:port failed"
//                   (wireup_cm.c).
//  async events     "IB Async event on mlx5_0: port error on port 1" / "...: <event> on QPN
//                   0x.." (ib_device.c) -> async_event; the ones UCX logs in the course of
//                   things (SRQ-attached QP flushed, SRQ limit, communication established) are
//                   not events.
//
// Time: the "[epoch.us]" stamp is UTC (clock wall); a line without one (the fatal path) takes
// mpirun --timestamp-output's "Tue Feb 27 20:11:35 2018[1,3]<stderr>:" (clock local) when the
// line starts with it, else keeps clock order.
//
// Choice for the QP line: it fills the completion_error it belongs to (peer_qpn, peer_mac,
// peer_gid, sl, gid_index, traffic_class, the local qpn and the opcode), because the rules read
// the peer and the traffic class from the error event itself. The error it belongs to is the
// latest one of the same "[host:pid:tid]" within the 16 lines before that has no QP line yet.
// A QP line that finds none (its error line cut off the paste) becomes a qp_info event, so
// nothing it says is dropped.
//
// status_text is rdma-core's words for the status (ibv_wc_status_str via core/wc_status.h), so
// the same status reads the same from NCCL, UCX and perftest; UCX's own words (which changed
// across versions: "Remote access" / "Remote access error") stay in `text`. A syndrome outside
// MLX5_CQE_SYNDROME_* keeps wc_status empty and UCX's words as status_text.
#include <infiniband/verbs.h>

#include <algorithm>
#include <cstring>

#include "collectors/joblog/job_logs.h"
#include "collectors/joblog/line_scan.h"
#include "core/wc_status.h"

namespace rh::joblog {

// A named namespace, not an anonymous one: the joblog readers build as one unity file, and the
// using-directive must not reach the other readers' code.
namespace ucx_detail {

using namespace scan;

/// Where "file.c:N" ends (the position after its digits), or npos: the cheap test.
std::size_t source_token_end(std::string_view line) {
    const char* const begin = line.data();
    const char* const end = begin + line.size();
    const char* p = begin;
    while ((p = static_cast<const char*>(std::memchr(p, ':', static_cast<std::size_t>(end - p))))) {
        const auto i = static_cast<std::size_t>(p - begin);
        if (i >= 2 && line[i - 2] == '.' && (line[i - 1] == 'c' || line[i - 1] == 'h') &&
            i + 1 < line.size() && is_digit(line[i + 1])) {
            std::size_t j = i + 1;
            while (j < line.size() && is_digit(line[j])) ++j;
            return j;
        }
        ++p;
    }
    return std::string_view::npos;
}

/// A UCX line split into its prefix fields and its message.
struct UcxLine {
    std::optional<double> epoch;  ///< "[1698765432.123456]"
    std::string_view proc;        ///< "gpu01:12345:0" (the host:pid:tid bracket), or ""
    std::string_view msg;         ///< after "file.c:N" and "UCX  LEVEL"
};

std::optional<double> epoch_of(std::string_view b) {
    // "1698765432.123456": whole seconds (>= 9 digits, so a dmesg "[  12.3]" never reads as
    // one) and up to 9 fraction digits.
    const auto dot = b.find('.');
    if (dot == std::string_view::npos || dot < 9 || dot > 11 || dot + 1 >= b.size()) return {};
    const auto whole = number(b.substr(0, dot), 10, true);
    const auto frac_s = b.substr(dot + 1);
    const auto frac = number(frac_s, 10, true);
    if (!whole || !frac || frac_s.size() > 9 ||
        !std::all_of(b.begin(), b.end(), [](char c) { return is_digit(c) || c == '.'; }))
        return {};
    double f = static_cast<double>(*frac);
    for (std::size_t i = 0; i < frac_s.size(); ++i) f /= 10;
    return static_cast<double>(*whole) + f;
}

UcxLine split(std::string_view line, std::size_t token_end) {
    UcxLine u;
    std::size_t tok = token_end;
    while (tok > 0 && !is_space(line[tok - 1]) && line[tok - 1] != ']') --tok;
    const auto head = line.substr(0, tok);
    // The process bracket is the last "[...]" before the source token; a line cut at its start
    // ("lxbk1127:2330856:0:2330856] ib_mlx5_log.c:177 ...") has no '[': take it from the start.
    const auto close = head.rfind(']');
    if (close != std::string_view::npos) {
        auto open = head.rfind('[', close);
        auto proc = open == std::string_view::npos ? trim(head.substr(0, close))
                                                   : head.substr(open + 1, close - open - 1);
        if (proc.find(':') != std::string_view::npos && proc.find(' ') != 0) {
            u.proc = proc;
            if (open != std::string_view::npos) {
                const auto before = head.substr(0, open);
                const auto c2 = before.rfind(']');
                const auto o2 = c2 == std::string_view::npos ? c2 : before.rfind('[', c2);
                if (o2 != std::string_view::npos)
                    u.epoch = epoch_of(before.substr(o2 + 1, c2 - o2 - 1));
            }
        }
    }
    auto msg = trim(line.substr(token_end));
    if (starts_with(msg, "UCX ")) {  // "UCX  ERROR   msg": skip the level word too
        msg = trim(msg.substr(3));
        const auto sp = msg.find(' ');
        msg = sp == std::string_view::npos ? std::string_view() : trim(msg.substr(sp));
    }
    u.msg = msg;
    return u;
}

/// host and pid from "host:pid:tid" ("ast1815:6807 :0:6807": UCX pads the pid).
void put_proc(std::string_view proc, LogEvent& e) {
    const auto colon = proc.find(':');
    if (colon == std::string_view::npos) return;
    e.host = std::string(proc.substr(0, colon));
    auto rest = proc.substr(colon + 1);
    const auto end = rest.find(':');
    rest = trim(rest.substr(0, end));
    if (auto p = number(rest, 10, true); p && *p <= 0xffffffffULL && !rest.empty() &&
                                         std::all_of(rest.begin(), rest.end(), is_digit))
        e.pid = static_cast<unsigned>(*p);
}

enum class Form { none, cqe, cqe_15, verbs, qp, connect, async };

Form classify(std::string_view msg) {
    if (msg.find("NCCL ") != std::string_view::npos) return Form::none;  // NCCL's "socket.h:N"
    if (msg.find("(synd 0x") != std::string_view::npos) {
        const auto on = msg.find("Error on ");
        return on != std::string_view::npos && on < msg.find("(synd 0x") &&
                       msg.find(" QP 0x") != std::string_view::npos
                   ? Form::cqe_15
                   : Form::cqe;
    }
    if (msg.find("IB Async event on ") != std::string_view::npos) return Form::async;
    if (msg.find("ompletion") != std::string_view::npos &&
        msg.find("with error") != std::string_view::npos)
        return Form::verbs;
    if (msg.find("[rqpn 0x") != std::string_view::npos ||
        (msg.find("QP 0x") != std::string_view::npos &&
         msg.find(" wqe[") != std::string_view::npos))
        return Form::qp;
    if (msg.find("dest_addr=") != std::string_view::npos ||
        msg.find("RDMA_CM_EVENT_") != std::string_view::npos ||
        msg.find(" will not be handled") != std::string_view::npos ||
        msg.find("connect to ") != std::string_view::npos)
        return Form::connect;
    return Form::none;
}

void set_status_from_syndrome(LogEvent& e, std::string_view ucx_words) {
    if (e.syndrome) e.wc_status = wc_status_of_mlx5_syndrome(*e.syndrome);
    e.status_text = e.wc_status ? wc_status_words(*e.wc_status) : std::string(trim(ucx_words));
}

/// UCX's WQE opcode names (ib_mlx5_log.c) as enum ibv_wc_opcode.
std::optional<int> opcode_of(std::string_view name) {
    struct Op {
        const char* name;
        ibv_wc_opcode op;
    };
    static constexpr Op kOps[] = {
        {"SEND", IBV_WC_SEND},           {"RDMA_WRITE", IBV_WC_RDMA_WRITE},
        {"RDMA_READ", IBV_WC_RDMA_READ}, {"CSWAP", IBV_WC_COMP_SWAP},
        {"FETCH_ADD", IBV_WC_FETCH_ADD}, {"RECV", IBV_WC_RECV},
    };
    for (const auto& o : kOps)
        if (name == o.name) return static_cast<int>(o.op);
    return std::nullopt;
}

void put_opcode(std::string_view name, LogEvent& e) {
    if (auto op = opcode_of(name)) {
        e.opcode = op;
        e.direction = *op == IBV_WC_RECV ? "recv" : "send";
    }
}

// "<error> on mlx5_0:1/RoCE (synd 0x15 vend 0x81 hw_synd 0/0)"
bool read_cqe(std::string_view msg, LogEvent& e) {
    const auto synd = msg.find("(synd 0x");
    const auto on = msg.rfind(" on ", synd);
    if (on == std::string_view::npos) return false;
    auto spec = msg.substr(on + 4, synd - on - 4);
    spec = trim(spec.substr(0, spec.find('/')));
    if (spec.empty() || spec.find(' ') != std::string_view::npos) return false;
    device_port(spec, e);
    const auto tail = msg.substr(synd);
    e.syndrome = u32(number_after(tail, "(synd ", 16, false));
    e.vendor_err = u32(number_after(tail, " vend ", 16, false));
    auto words = msg.substr(0, on);
    if (starts_with(words, "FATAL: ")) words.remove_prefix(7);
    set_status_from_syndrome(e, words);
    return true;
}

// "FATAL: Error on mlx5_3:1 QP 0xe6d7 wqe[7821]: <error> (synd 0x15 vend 0x81) opcode SEND"
bool read_cqe_15(std::string_view msg, LogEvent& e) {
    const auto synd = msg.find("(synd 0x");
    auto after = msg.substr(msg.find("Error on ") + 9);
    const auto spec = token_after(after, "", false);
    if (spec.find(':') != std::string_view::npos) device_port(spec, e);
    e.qpn = u32(number_after(after, "QP 0x", 16, false));
    const auto tail = msg.substr(synd);
    e.syndrome = u32(number_after(tail, "(synd ", 16, false));
    e.vendor_err = u32(number_after(tail, " vend ", 16, false));
    std::string_view words;
    if (const auto colon = msg.find("]: "); colon != std::string_view::npos && colon < synd)
        words = msg.substr(colon + 3, synd - colon - 3);
    set_status_from_syndrome(e, words);
    put_opcode(token_after(tail, ") opcode ", true), e);
    return true;
}

// "send completion with error: transport retry counter exceeded [qpn 0x.. wrid 0x..
// vendor_err 0x..]", "Send completion with error on qp 0x..: <words> syndrome 0x81",
// "receive completion[0] with error on mlx5_2/0x4489390: Work Request Flushed Error,
// vendor_err 0xf9 wr_id 0x7fffd1c3ec6d"
bool read_verbs(std::string_view msg, LogEvent& e) {
    const auto comp = msg.find("ompletion");
    const auto with = msg.find("with error", comp);
    if (with == std::string_view::npos) return false;
    const auto lead = trim(msg.substr(0, comp > 0 ? comp - 1 : 0));  // "send c|ompletion"
    if (lead.size() >= 4 &&
        (lead.substr(lead.size() - 4) == "send" || lead.substr(lead.size() - 4) == "Send"))
        e.direction = "send";
    else if (lead.size() >= 7 && (lead.substr(lead.size() - 7) == "receive" ||
                                  lead.substr(lead.size() - 7) == "Receive"))
        e.direction = "recv";
    auto rest = msg.substr(with + 10);
    if (starts_with(rest, " on ")) {
        auto target = token_after(rest, " on ", false);
        if (target == "qp") {
            e.qpn = u32(number_after(rest, " on qp ", 16, false));
        } else {
            // "bnxt_re0/0x55d0c8a0:" : the device, then UCX's iface pointer
            target = target.substr(0, target.find('/'));
            if (!target.empty() && target.back() == ':') target.remove_suffix(1);
            if (!target.empty()) device_port(target, e);
        }
    }
    const auto colon = rest.find(": ");
    if (colon == std::string_view::npos) return false;
    auto words = rest.substr(colon + 2);
    std::size_t end = words.size();
    for (std::string_view stop : {",", " [", " qpn ", " syndrome ", " vendor_err"})
        end = std::min(end, words.find(stop));
    const bool cut = end == words.size();  // the words may be cut: read them only if whole
    words = trim(words.substr(0, end));
    if (auto st = wc_status_from_words(words)) {
        e.wc_status = st;
        e.status_text = wc_status_words(*st);
    } else if (!cut) {
        e.status_text = std::string(words);
    }
    if (!e.qpn) e.qpn = u32(number_after(rest, "qpn 0x", 16, false));
    // vendor_err ends the line only in UCX 1.8's "qpn 0x.. wrid 0x.. vendor_err 0x.." (later
    // forms follow it with "]" or " wr_id"): only there does a number at the end count.
    const bool last = rest.find(" wrid 0x") != std::string_view::npos &&
                      rest.find("[qpn ") == std::string_view::npos;
    e.vendor_err = u32(number_after(rest, "vendor_err 0x", 16, last));
    if (!e.vendor_err) e.vendor_err = u32(number_after(rest, " syndrome 0x", 16, true));
    return true;
}

/// Fills what a QP line names into `e` (DC address vector or RC ah_attr).
void read_peer(std::string_view msg, LogEvent& e) {
    if (auto q = u32(number_after(msg, " QP 0x", 16, false)); q && !e.qpn) e.qpn = q;
    if (const auto wqe = msg.find(" wqe["); wqe != std::string_view::npos)
        put_opcode(token_after(msg.substr(wqe), "]: ", false), e);
    if (starts_with(msg, "SRQ QP ")) e.direction = "recv";  // a responder (receive) error
    const auto rq = msg.find("[rqpn 0x");
    if (rq == std::string_view::npos) return;
    const auto peer = msg.substr(rq);
    e.peer_qpn = u32(number_after(peer, "[rqpn ", 16, false));
    if (auto mac = token_after(peer, " rmac ", false); mac.size() == 17) {
        e.peer_mac = std::string(mac);
        std::transform(e.peer_mac.begin(), e.peer_mac.end(), e.peer_mac.begin(),
                       [](char c) { return c >= 'A' && c <= 'F' ? char(c - 'A' + 'a') : c; });
    }
    auto gid = token_after(peer, " dgid ", false);
    if (gid.empty()) gid = token_after(peer, " dgid=", false);
    e.peer_gid = std::string(gid);
    auto small = [&](std::string_view key) -> std::optional<unsigned> {
        auto v = number_after(peer, key, 10, false);
        if (!v || *v > 0xffff) return std::nullopt;
        return static_cast<unsigned>(*v);
    };
    if (auto v = small(" sgix ")) e.gid_index = v;
    if (auto v = small(" sgid_index=")) e.gid_index = v;
    if (auto v = small(" tc ")) e.traffic_class = v;
    if (auto v = small(" traffic_class=")) e.traffic_class = v;
    if (auto v = small(" sl=")) e.sl = v;
}

bool read_connect(std::string_view msg, LogEvent& e) {
    // ucs/sys/sock.c: "connect(fd=87, dest_addr=172.17.0.1:47133) failed: Connection refused"
    if (const auto d = msg.find("dest_addr="); d != std::string_view::npos) {
        const auto f = msg.find(") failed: ", d);
        if (f == std::string_view::npos) return false;
        e.peer_ip = ip_of_endpoint(msg.substr(d + 10, f - d - 10));
        e.status_text = std::string(trim(msg.substr(f + 10)));
        return true;
    }
    // rdmacm_iface.c (UCX <= 1.8): "received event RDMA_CM_EVENT_UNREACHABLE. status = 2.
    // Peer: 127.0.0.1:45601."
    if (const auto ev = msg.find("RDMA_CM_EVENT_"); ev != std::string_view::npos) {
        auto name = token_after(msg.substr(ev), "", false);
        if (!name.empty() && name.back() == '.') name.remove_suffix(1);
        static constexpr std::string_view kFailures[] = {
            "RDMA_CM_EVENT_UNREACHABLE", "RDMA_CM_EVENT_REJECTED", "RDMA_CM_EVENT_CONNECT_ERROR",
            "RDMA_CM_EVENT_ADDR_ERROR", "RDMA_CM_EVENT_ROUTE_ERROR"};
        if (std::find(std::begin(kFailures), std::end(kFailures), name) == std::end(kFailures))
            return false;
        auto peer = token_after(msg, "Peer: ", true);
        if (!peer.empty() && peer.back() == '.') peer.remove_suffix(1);
        e.peer_ip = ip_of_endpoint(peer);
        e.status_text = std::string(name);
        return !e.peer_ip.empty();
    }
    // ucp_ep.c: "ep 0x..: error 'Destination is unreachable' on rc_mlx5/mlx5_0:1 will not be
    // handled since no error callback is installed"
    if (const auto q = msg.find("error '");
        q != std::string_view::npos && msg.find(" will not be handled") != std::string_view::npos) {
        const auto q2 = msg.find('\'', q + 7);
        if (q2 == std::string_view::npos) return false;
        const auto status = msg.substr(q + 7, q2 - q - 7);
        if (status != "Destination is unreachable" && status != "Connection refused" &&
            status != "Endpoint timeout")
            return false;
        auto lane = token_after(msg.substr(q2), "' on ", false);
        lane = lane.substr(lane.find('/') == std::string_view::npos ? 0 : lane.find('/') + 1);
        if (lane.empty()) return false;
        device_port(lane, e);
        e.status_text = std::string(status);
        return true;
    }
    // wireup_cm.c: "client ep 0x.. connect to 10.16.29.58:8124 failed: ..."
    if (const auto c = msg.find("connect to "); c != std::string_view::npos &&
                                                msg.find(" failed", c) != std::string_view::npos &&
                                                msg.find("ep 0x") != std::string_view::npos) {
        e.peer_ip = ip_of_endpoint(token_after(msg.substr(c), "connect to ", false));
        const auto f = msg.find("failed: ", c);
        if (f != std::string_view::npos) e.status_text = std::string(trim(msg.substr(f + 8)));
        return !e.peer_ip.empty();
    }
    return false;
}

struct Pending {
    std::string proc;
    std::size_t event;
    std::size_t index;
};

// ib_device.c: "IB Async event on mlx5_0: port error on port 1", "... local work queue
// catastrophic error on QPN 0x1a2b", "... DCT access error on DCTN 0x2a8a3" (UCX 1.3). The
// events UCX logs at debug level in the course of things (an SRQ-attached QP flushed at
// teardown, SRQ limit reached, communication established) are no events.
bool read_async(std::string_view msg, LogEvent& e) {
    auto rest = msg.substr(msg.find("IB Async event on ") + 18);
    const auto colon = rest.find(": ");
    if (colon == std::string_view::npos) return false;
    device_port(rest.substr(0, colon), e);
    rest = trim(rest.substr(colon + 2));
    for (std::string_view benign :
         {"SRQ-attached QP", "SRQ limit reached", "communication established"})
        if (starts_with(rest, benign)) return false;
    auto words = rest;
    if (const auto on = rest.rfind(" on "); on != std::string_view::npos) {
        words = rest.substr(0, on);
        const auto target = rest.substr(on + 4);
        if (auto p = number_after(target, "port ", 10, true); p && *p < 0x10000 && !e.port)
            e.port = static_cast<unsigned>(*p);
        if (starts_with(target, "QPN ")) e.qpn = u32(number_after(target, "QPN 0x", 16, true));
    } else if (const auto paren = rest.rfind(" ("); paren != std::string_view::npos) {
        words = rest.substr(0, paren);  // "<event> (N)" for an event UCX has no case for
    }
    if (words.empty()) return false;
    e.kind = "async_event";
    e.status_text = std::string(words);
    return true;
}

/// Reads the message of one line of `form` into `e`; false when it is not an event after all.
bool parse(std::string_view msg, Form form, LogEvent& e) {
    switch (form) {
        case Form::cqe:
            return read_cqe(msg, e);
        case Form::cqe_15:
            return read_cqe_15(msg, e);
        case Form::verbs:
            return read_verbs(msg, e);
        case Form::qp:
            e.kind = "qp_info";
            read_peer(msg, e);
            return true;
        case Form::connect:
            e.kind = "connect_failed";
            return read_connect(msg, e);
        case Form::async:
            return read_async(msg, e);
        case Form::none:
            break;
    }
    return false;
}

bool is_line(std::string_view line) {
    const auto tok = source_token_end(line);
    if (tok == std::string_view::npos) return false;
    const auto msg = split(line, tok).msg;
    const Form form = classify(msg);
    LogEvent e;
    return form != Form::none && parse(msg, form, e);
}

void read(const LogText& text, LogRead& out) {
    constexpr std::size_t kQpWindow = 16;  // lines between an error and its QP line
    std::vector<Pending> pending;          // errors that may still get their QP line
    for (std::size_t i = 0; i < text.lines.size(); ++i) {
        const std::string_view line = text.lines[i];
        const auto tok = source_token_end(line);
        if (tok == std::string_view::npos) continue;
        const UcxLine u = split(line, tok);
        const Form form = classify(u.msg);
        if (form == Form::none) continue;

        if (form == Form::qp) {
            // Fill the latest error of the same process that has no QP line yet.
            auto it = std::find_if(pending.rbegin(), pending.rend(), [&](const Pending& p) {
                return p.proc == u.proc && i - p.index <= kQpWindow;
            });
            if (it != pending.rend()) {
                read_peer(u.msg, out.events[it->event]);
                pending.erase(std::next(it).base());
                continue;
            }
        }

        LogEvent e = make_event(text, i, "ucx", "completion_error");
        put_proc(u.proc, e);
        if (u.epoch) {
            e.clock = LogClock::wall;
            e.time_s = *u.epoch;
        } else if (auto t = ctime_stamp(trim(line))) {  // mpirun --timestamp-output only
            e.clock = LogClock::local;
            e.time_s = *t;
        }
        const bool ok = parse(u.msg, form, e);
        if (!ok) continue;
        if (e.kind == "completion_error") {
            if (!e.wc_status)
                out.notes.push_back(e.source + ": UCX completion error; status not read");
            pending.erase(std::remove_if(pending.begin(), pending.end(),
                                         [&](const Pending& p) { return i - p.index > kQpWindow; }),
                          pending.end());
            pending.push_back({std::string(u.proc), out.events.size(), i});
        }
        out.events.push_back(std::move(e));
    }
}

}  // namespace ucx_detail

bool is_ucx_line(std::string_view line) {
    return ucx_detail::is_line(line);
}
void read_ucx(const LogText& text, LogRead& out) {
    ucx_detail::read(text, out);
}

}  // namespace rh::joblog
