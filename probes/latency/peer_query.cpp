#include "probes/latency/peer_query.h"

#include "probes/verbs/device_select.h"
#include "probes/wire/oob_protocol.h"
#include "probes/wire/tcp.h"

namespace rh {

Result<PeerInfo> query_peer(const std::string& host_port, int timeout_ms) {
    auto hp = tcp::parse_host_port(host_port, oob::kDefaultPort);
    if (!hp) return hp.error();
    const auto dl = tcp::deadline_in(timeout_ms);
    auto sock = tcp::connect(*hp, dl);
    if (!sock) return sock.error();
    const std::string subject = "responder at " + hp->str();
    oob::Message q;
    q.type = oob::Type::query;
    if (auto s = tcp::send_msg(*sock, q, dl); !s)
        return Error{"query", subject, 0, s.error().message()};
    auto r = tcp::recv_msg(*sock, dl);
    if (!r) return Error{"query", subject, 0, r.error().message()};
    if (r->type == oob::Type::error)
        return Error{"query", subject, 0, "responder refused: " + r->text};
    if (r->type != oob::Type::query_reply)
        return Error{"query", subject, 0, std::string("unexpected ") + oob::to_string(r->type)};
    PeerInfo p;
    p.peer = hp->str();
    p.hostname = r->hostname;
    p.device = r->device;
    p.port = r->port;
    if (r->active_mtu != 0) p.active_mtu_bytes = r->active_mtu;
    p.gid = gid_to_string(r->gid);
    p.gid_index = r->gid_index;
    p.gid_type = r->gid_type;
    return p;
}

}  // namespace rh
