#include "collectors/lldp_neighbors.h"

#include <nlohmann/json.hpp>

namespace rh {

namespace {

using nlohmann::json;

Error bad(const std::string& path, const std::string& what) {
    return Error{"lldpcli json", path, 0, what};
}

/// A string member into `out` ("" when absent); false (and `err` set) when of another type.
bool str(const json& obj, const char* key, const std::string& path, std::string& out, Error& err) {
    const auto it = obj.find(key);
    if (it == obj.end()) return true;
    if (!it->is_string()) {
        err = bad(path + "." + key, "expected a string, got " + std::string(it->type_name()));
        return false;
    }
    out = it->get<std::string>();
    return true;
}

/// {"type": ..., "value": ...}: an ID with its subtype.
bool id(const json& obj, const std::string& path, std::string& value, std::string& type,
        Error& err) {
    const auto it = obj.find("id");
    if (it == obj.end()) return true;
    if (!it->is_object()) {
        err = bad(path + ".id", "expected an object, got " + std::string(it->type_name()));
        return false;
    }
    return str(*it, "type", path + ".id", type, err) && str(*it, "value", path + ".id", value, err);
}

/// An unnamed chassis has its own "id" object; a named one is {NAME: {...}}.
bool chassis(const json& c, const std::string& path, LldpNeighbor& n, Error& err) {
    if (!c.is_object()) {
        err = bad(path, "expected an object, got " + std::string(c.type_name()));
        return false;
    }
    const auto own_id = c.find("id");
    if (c.empty() || (own_id != c.end() && own_id->is_object() && own_id->contains("type")))
        return id(c, path, n.chassis_id, n.chassis_id_type, err);
    if (c.size() != 1 || !c.begin()->is_object()) {
        err = bad(path, "expected {\"id\": ...} or {NAME: {\"id\": ...}}");
        return false;
    }
    n.chassis_name = c.begin().key();
    return id(*c.begin(), path + "." + n.chassis_name, n.chassis_id, n.chassis_id_type, err);
}

bool neighbor(const std::string& ifname, const json& v, const std::string& path,
              std::vector<LldpNeighbor>& out, Error& err) {
    if (!v.is_object()) {
        err = bad(path, "expected an object, got " + std::string(v.type_name()));
        return false;
    }
    LldpNeighbor n;
    n.interface = ifname;
    if (!str(v, "via", path, n.via, err)) return false;
    if (const auto c = v.find("chassis"); c != v.end() && !chassis(*c, path + ".chassis", n, err))
        return false;
    if (const auto p = v.find("port"); p != v.end()) {
        if (!p->is_object()) {
            err = bad(path + ".port", "expected an object, got " + std::string(p->type_name()));
            return false;
        }
        if (!id(*p, path + ".port", n.port_id, n.port_id_type, err) ||
            !str(*p, "descr", path + ".port", n.port_descr, err))
            return false;
    }
    if (out.size() >= kMaxLldpNeighbors) {
        err =
            bad("lldp.interface", "more than " + std::to_string(kMaxLldpNeighbors) + " neighbours");
        return false;
    }
    out.push_back(std::move(n));
    return true;
}

/// One element of "interface": {IFNAME: neighbour, ...}.
bool interfaces(const json& obj, const std::string& path, std::vector<LldpNeighbor>& out,
                Error& err) {
    if (!obj.is_object()) {
        err = bad(path, "expected an object, got " + std::string(obj.type_name()));
        return false;
    }
    for (const auto& [ifname, v] : obj.items())
        if (!neighbor(ifname, v, "lldp.interface." + ifname, out, err)) return false;
    return true;
}

}  // namespace

Result<std::vector<LldpNeighbor>> parse_lldp_neighbors(std::string_view text) {
    const auto doc = json::parse(text, nullptr, false);
    if (doc.is_discarded()) return bad("output", "not JSON (expected `lldpcli -f json` output)");
    if (!doc.is_object()) return bad("output", "expected an object at the top");
    const auto lldp = doc.find("lldp");
    if (lldp == doc.end() || !lldp->is_object())
        return bad("lldp", "expected an object (lldpcli -f json show neighbors)");
    std::vector<LldpNeighbor> out;
    const auto list = lldp->find("interface");
    if (list == lldp->end()) return out;  // no neighbour
    Error err;
    if (list->is_array()) {
        for (std::size_t i = 0; i < list->size(); ++i)
            if (!interfaces((*list)[i], "lldp.interface[" + std::to_string(i) + "]", out, err))
                return err;
    } else if (!interfaces(*list, "lldp.interface", out, err)) {
        return err;
    }
    return out;
}

}  // namespace rh
