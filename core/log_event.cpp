#include "core/log_event.h"

namespace rh {

const char* to_string(LogClock c) {
    switch (c) {
        case LogClock::wall:
            return "wall";
        case LogClock::local:
            return "local";
        case LogClock::boot:
            return "boot";
        case LogClock::order:
            return "order";
    }
    return "order";
}

void to_json(nlohmann::json& j, const LogEvent& e) {
    j = nlohmann::json{{"source", e.source}, {"file", e.file}, {"line", e.line},
                       {"reader", e.reader}, {"kind", e.kind}, {"clock", to_string(e.clock)},
                       {"text", e.text}};
    if (e.clock != LogClock::order) j["time_s"] = e.time_s;
    if (e.year_unknown) j["year_unknown"] = true;
    auto put = [&](const char* k, const std::string& v) {
        if (!v.empty()) j[k] = v;
    };
    put("host", e.host);
    put("device", e.device);
    put("netdev", e.netdev);
    put("pci", e.pci);
    if (e.port) j["port"] = e.port;
    put("local_gid", e.local_gid);
    put("local_ip", e.local_ip);
    put("peer_ip", e.peer_ip);
    put("peer_gid", e.peer_gid);
    put("peer_name", e.peer_name);
    put("peer_mac", e.peer_mac);
    put("status_text", e.status_text);
    put("direction", e.direction);
    auto opt = [&](const char* k, const auto& v) {
        if (v) j[k] = *v;
    };
    opt("pid", e.pid);
    opt("qpn", e.qpn);
    opt("peer_qpn", e.peer_qpn);
    opt("wc_status", e.wc_status);
    opt("vendor_err", e.vendor_err);
    opt("syndrome", e.syndrome);
    opt("opcode", e.opcode);
    opt("traffic_class", e.traffic_class);
    opt("sl", e.sl);
    opt("gid_index", e.gid_index);
    opt("value", e.value);
    if (!e.settings.empty()) j["settings"] = e.settings;
    put("hint", e.hint);
}

}  // namespace rh
