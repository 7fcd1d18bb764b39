#include "agent/fleet/mesh_peers_file.h"

#include <algorithm>
#include <cctype>
#include <fstream>
#include <map>
#include <sstream>

#include <nlohmann/json.hpp>

#include "probes/wire/tcp.h"

namespace rh {

namespace {

constexpr std::size_t kMaxReported = 20;

/// The field's value, or "" after adding an error naming it.
std::string field(const nlohmann::json& obj, const char* name, const std::string& where,
                  std::vector<std::string>& errors) {
    const auto it = obj.find(name);
    if (it == obj.end()) {
        errors.push_back(where + "field \"" + name + "\": missing");
        return "";
    }
    if (!it->is_string() || it->get<std::string>().empty()) {
        errors.push_back(where + "field \"" + name + "\": expected a non-empty string, got " +
                         it->dump());
        return "";
    }
    return it->get<std::string>();
}

/// Parses one line (discarded when not JSON), setting `dup` to the first key given twice at the
/// top of its object (nlohmann keeps the last silently, so {"tor": "r1", "tor": "r2"} would
/// read as r2).
nlohmann::json parse_line(const std::string& line, std::string& dup) {
    std::vector<std::string> seen;
    const auto cb = [&](int depth, nlohmann::json::parse_event_t ev, nlohmann::json& v) {
        if (ev == nlohmann::json::parse_event_t::key && depth == 1 && v.is_string()) {
            const auto& k = v.get_ref<const std::string&>();
            if (dup.empty() && std::find(seen.begin(), seen.end(), k) != seen.end()) dup = k;
            seen.push_back(k);
        }
        return true;
    };
    return nlohmann::json::parse(line, cb, false);
}

/// One key per responder: the host lowercased (names are case-insensitive) and the port, the
/// default filled in, so "10.0.0.1" and "10.0.0.1:18520" are the same responder.
std::string responder_key(const std::string& address) {
    auto hp = tcp::parse_host_port(address, oob::kDefaultPort);
    if (!hp) return address;
    for (char& c : hp->host) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    return hp->str();
}

}  // namespace

Result<std::vector<FleetHost>> parse_mesh_peers(const std::string& text, const std::string& name) {
    std::vector<FleetHost> out;
    std::vector<std::string> errors;
    std::map<std::string, std::size_t> host_line, address_line;
    std::istringstream in(text);
    std::string line;
    for (std::size_t n = 1; std::getline(in, line); ++n) {
        if (!line.empty() && line.back() == '\r') line.pop_back();
        const auto first = line.find_first_not_of(" \t");
        if (first == std::string::npos || line[first] == '#') continue;
        const std::string where = std::to_string(n) + ": ";
        std::string dup;
        const auto doc = parse_line(line, dup);
        if (doc.is_discarded()) {
            errors.push_back(where +
                             "not valid JSON (one {\"host\", \"address\", \"tor\"} "
                             "object per line)");
            continue;
        }
        if (!doc.is_object()) {
            errors.push_back(where + "expected an object, got " + std::string(doc.type_name()));
            continue;
        }
        const std::size_t before = errors.size();
        if (!dup.empty())
            errors.push_back(where + "field \"" + dup + "\": given twice on the line");
        for (const auto& [key, value] : doc.items())
            if (key != "host" && key != "address" && key != "tor")
                errors.push_back(where + "field \"" + key + "\": unknown field");
        FleetHost h{field(doc, "host", where, errors), field(doc, "address", where, errors),
                    field(doc, "tor", where, errors)};
        if (!h.address.empty() && !tcp::parse_host_port(h.address, oob::kDefaultPort))
            errors.push_back(where +
                             "field \"address\": expected HOST or HOST:PORT (port "
                             "1..65535), got \"" +
                             h.address + "\"");
        if (errors.size() != before) continue;
        if (auto [it, fresh] = host_line.emplace(h.host, n); !fresh)
            errors.push_back(where + "field \"host\": \"" + h.host + "\" already on line " +
                             std::to_string(it->second));
        else if (auto [at, fresh_address] = address_line.emplace(responder_key(h.address), n);
                 !fresh_address)
            errors.push_back(where + "field \"address\": \"" + h.address + "\" already on line " +
                             std::to_string(at->second) + " (as " + at->first + ")");
        else
            out.push_back(std::move(h));
    }
    if (errors.empty() && out.empty()) errors.push_back("no host listed");
    if (out.size() > kMaxFleetHosts)
        errors.push_back(std::to_string(out.size()) + " hosts: expected at most " +
                         std::to_string(kMaxFleetHosts));
    if (!errors.empty()) {
        std::string detail;
        for (std::size_t i = 0; i < errors.size() && i < kMaxReported; ++i)
            detail += (i ? "\n" : "") + errors[i];
        if (errors.size() > kMaxReported)
            detail += "\n... and " + std::to_string(errors.size() - kMaxReported) + " more";
        return Error{"mesh.peers_file", name, 0, detail};
    }
    return out;
}

Result<std::vector<FleetHost>> load_mesh_peers_file(const std::string& path) {
    std::ifstream in(path);
    if (!in) return errno_error("mesh.peers_file", path, "cannot open");
    std::stringstream buf;
    buf << in.rdbuf();
    if (in.bad()) return errno_error("mesh.peers_file", path, "cannot read");
    return parse_mesh_peers(buf.str(), path);
}

}  // namespace rh
