#include "agent/accept_run/control_client.h"

#include "probes/auth/handshake.h"
#include "probes/wire/oob_protocol.h"
#include "probes/wire/stream_protocol.h"
#include "probes/wire/tcp.h"

namespace rh::accept {

Result<nlohmann::json> control_request(const std::string& address, const nlohmann::json& msg,
                                       const std::string& want, int timeout_ms,
                                       const std::atomic<bool>* stop) {
    auto hp = tcp::parse_host_port(address, oob::kDefaultPort);
    if (!hp) return hp.error();
    auto s = auth::connect_control(*hp, tcp::deadline_in(5000));
    if (!s) return s.error();
    if (auto st = tcp::send_json(*s, msg, tcp::deadline_in(5000)); !st) return st.error();
    auto r = stop ? tcp::recv_any(*s, tcp::deadline_in(timeout_ms), *stop)
                  : tcp::recv_any(*s, tcp::deadline_in(timeout_ms));
    if (!r) return r.error();
    const std::string what = msg.value("cmd", std::string("request"));
    if (!r->json) {
        // A fixed-format error frame: the responder refused before reading the request (busy at
        // --max-sessions).
        if (r->fixed && r->fixed->type == oob::Type::error)
            return Error{what, "responder at " + hp->str(), 0, "refused: " + r->fixed->text};
        return Error{what, "responder at " + hp->str(), 0, "expected a json reply"};
    }
    // decode_json took only an object with a string cmd.
    const std::string cmd = (*r->json)["cmd"].get<std::string>();
    if (cmd == want) return std::move(*r->json);
    if (auto e = stream::error_text(*r->json))
        return Error{what, "responder at " + hp->str(), 0, "refused: " + *e};
    return Error{what, "responder at " + hp->str(), 0,
                 "expected " + want + ", got '" + cmd + "' (an older rocehealth?)"};
}

}  // namespace rh::accept
