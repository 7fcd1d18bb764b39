#include "agent/daemon/config.h"

#include <sys/stat.h>

#include <cctype>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <vector>

#include "agent/daemon/incast_senders.h"
#include "agent/daemon/json_fields.h"
#include "agent/fabric/prom_client.h"
#include "agent/fleet/mesh_peers_file.h"
#include "core/hostname.h"
#include "core/json_file.h"
#include "probes/auth/secret_file.h"
#include "probes/wire/probe_limits.h"
#include "rules/port_usage.h"

namespace rh::agent {

namespace {

using nlohmann::json;

std::string fmt(double v) {
    return fmt_number(v);
}

/// "HOST:PORT" or "[V6]:PORT", HOST an IP literal, PORT 0..65535.
bool parse_listen(const std::string& text, std::string& host, std::uint16_t& port) {
    const auto colon = text.rfind(':');
    if (colon == std::string::npos || colon + 1 >= text.size()) return false;
    std::string h = text.substr(0, colon);
    const std::string p = text.substr(colon + 1);
    if (h.size() >= 2 && h.front() == '[' && h.back() == ']')
        h = h.substr(1, h.size() - 2);
    else if (h.find(':') != std::string::npos)
        return false;  // IPv6 needs brackets: "::1:9477" is ambiguous
    if (!is_ip_literal(h) || p.size() > 5 || p.find_first_not_of("0123456789") != p.npos)
        return false;
    const unsigned long v = std::stoul(p);
    if (v > 65535) return false;
    host = h;
    port = static_cast<std::uint16_t>(v);
    return true;
}

void read_http(ObjectReader& r, const json& obj, HttpConfig& h, JsonErrors& errors) {
    ObjectReader o(obj, r.path("http."), errors);
    std::string listen;
    o.string("listen", listen);
    // Given, it must say where to listen: "" is a mistake, not "the default" (leave it out).
    if (o.has("listen") && !parse_listen(listen, h.listen_host, h.listen_port))
        o.fail("listen",
               "expected HOST:PORT with HOST an IP address (\"[::1]:9477\" for IPv6) "
               "and PORT 0..65535, got \"" +
                   listen + "\"");
    o.string("token_file", h.token_file);
    o.boolean("protect_read", h.protect_read);
    o.string("action_token_file", h.action_token_file);
    o.string("tls_cert_file", h.tls_cert_file);
    o.string("tls_key_file", h.tls_key_file);
    // One without the other is a mistake either way: not HTTPS, and not knowingly plain HTTP.
    if (!h.tls_cert_file.empty() && h.tls_key_file.empty())
        o.fail("tls_key_file",
               "missing: http.tls_cert_file is set, and HTTPS needs the certificate's private key "
               "too (or leave both out for plain HTTP)");
    if (h.tls_cert_file.empty() && !h.tls_key_file.empty())
        o.fail("tls_cert_file",
               "missing: http.tls_key_file is set, and HTTPS needs the certificate too (or leave "
               "both out for plain HTTP)");
    o.integer("max_threads", h.max_threads, 1, 64);
    o.integer("max_queued", h.max_queued, 1, 1024);
    o.integer("max_connections", h.max_connections, 1, 4096);
    o.integer("max_connections_per_address", h.max_connections_per_address, 1, 1024);
    o.integer("max_request_bytes", h.max_request_bytes, 0, 1 << 20);
    o.number("request_timeout_s", h.request_timeout_s, 0.1, 300, "seconds");
    o.number("read_timeout_s", h.read_timeout_s, 0.1, 300, "seconds");
    o.number("write_timeout_s", h.write_timeout_s, 0.1, 300, "seconds");
    if (h.protect_read && h.token_file.empty())
        o.fail("protect_read", "true needs http.token_file (the token clients must send)");
}

void read_responder(ObjectReader& r, const json& obj, ResponderConfig& c, JsonErrors& errors) {
    ObjectReader o(obj, r.path("responder."), errors);
    o.boolean("enabled", c.enabled);
    o.string("listen", c.listen);
    if (!is_ip_literal(c.listen))
        o.fail("listen", "expected an IP address, got \"" + c.listen + "\"");
    o.integer("port", c.port, 1, 65535);
    o.string("device", c.device);
    if (obj.contains("gid_index") && !obj["gid_index"].is_null()) {
        unsigned gid = 0;
        std::size_t before = errors.size();
        o.integer("gid_index", gid, 0, 255);
        if (errors.size() == before) c.gid_index = gid;
    } else {
        o.allow("gid_index");  // null: choose the RoCE v2 GID
    }
    o.integer("max_sessions", c.max_sessions, 1, 1024);
    o.boolean("allow_fault", c.allow_fault);
    o.string("key_file", c.key_file);
    o.string("host_key_file", c.host_key_file);
    o.string("known_hosts_file", c.known_hosts_file);
    if (c.allow_fault && !c.enabled)  // the responder serves the fault command: nothing would
        o.fail("allow_fault", "true has no effect while responder.enabled is false");
}

std::string check_port_entry(const std::string& p) {
    return check_required_port(p);
}

std::string check_peer(const std::string& p) {
    return is_host_port(p) ? "" : "expected HOST or HOST:PORT (port 1..65535), got \"" + p + "\"";
}

std::string check_op(const std::string& op) {
    return op == "write" || op == "read" ? ""
                                         : "expected \"write\" or \"read\", got \"" + op + "\"";
}

std::string check_dns_name(const std::string& name) {
    if (name.size() > 253) return "longer than 253 characters";
    for (char c : name)
        if (!std::isalnum(static_cast<unsigned char>(c)) && c != '.' && c != '-' && c != '_')
            return "expected a DNS name (letters, digits, '.', '-', '_'), got \"" + name + "\"";
    return "";
}

/// `peers_prometheus.headers`: {"NAME": "VALUE", ...} or ["NAME: VALUE", ...], each checked
/// (fabric::check_http_header), a name once; errors name the entry ("headers.Host: ...",
/// "headers[1]: ...").
void read_headers(ObjectReader& o, const json& v, std::vector<fabric::HttpHeader>& out) {
    o.allow("headers");
    std::vector<fabric::HttpHeader> got;
    std::vector<std::string> where;
    if (v.is_object()) {
        for (const auto& [name, value] : v.items()) {
            if (!value.is_string()) {
                o.fail("headers." + name, "expected a string, got " + JsonReader::type_text(value));
                continue;
            }
            got.push_back({name, value.get<std::string>()});
            where.push_back("headers." + name);
        }
    } else if (v.is_array()) {
        for (std::size_t i = 0; i < v.size(); ++i) {
            const std::string at = "headers[" + std::to_string(i) + "]";
            if (!v[i].is_string()) {
                o.fail(at, "expected \"NAME: VALUE\", got " + JsonReader::type_text(v[i]));
                continue;
            }
            auto h = fabric::parse_http_header(v[i].get<std::string>());
            if (!h) {
                o.fail(at, h.error().detail + ", got " + v[i].dump());
                continue;
            }
            got.push_back(std::move(*h));
            where.push_back(at);
        }
    } else {
        o.fail("headers",
               "expected an object {\"NAME\": \"VALUE\"} or a list [\"NAME: VALUE\"], got " +
                   JsonReader::type_text(v));
        return;
    }
    if (got.size() > fabric::kMaxExtraHeaders) {
        o.fail("headers", "expected at most " + std::to_string(fabric::kMaxExtraHeaders) +
                              " headers, got " + std::to_string(got.size()));
        return;
    }
    bool bad = false;
    for (std::size_t i = 0; i < got.size(); ++i) {
        if (const std::string why = fabric::check_http_header_at(got, i); !why.empty()) {
            o.fail(where[i], why);
            bad = true;
        }
    }
    if (!bad) out = std::move(got);
}

void read_peers_prometheus(ObjectReader& r, const json& obj, PeersPrometheusConfig& p,
                           JsonErrors& errors) {
    ObjectReader o(obj, r.path("peers_prometheus."), errors);
    o.string("url", p.url);
    if (p.url.empty())
        o.fail("url", "missing: the Prometheus base URL, e.g. \"http://prom:9090\"");
    else if (auto ep = fabric::parse_prometheus_url(p.url); !ep)
        o.fail("url", ep.error().detail + ", got \"" + p.url + "\"");
    o.string("job", p.job);
    o.integer("max_answer_bytes", p.max_answer_bytes, 1024, std::int64_t{1} << 30);
    o.number("timeout_s", p.timeout_s, 0.1, 300, "seconds");
    if (obj.contains("headers")) read_headers(o, obj["headers"], p.headers);
}

void read_mesh(ObjectReader& r, const json& obj, MeshConfig& m, JsonErrors& errors) {
    ObjectReader o(obj, r.path("mesh."), errors);
    o.string_list("peers", m.peers, 0, kMaxMeshPeers, true, check_peer);
    o.string("peers_file", m.peers_file);
    o.string("peers_dns", m.peers_dns);
    if (const std::string why = check_dns_name(m.peers_dns); !why.empty()) o.fail("peers_dns", why);
    if (const json* p = o.object("peers_prometheus"))
        read_peers_prometheus(o, *p, m.peers_prometheus, errors);
    std::vector<std::string> given;
    if (!m.peers.empty()) given.push_back("mesh.peers");
    if (!m.peers_file.empty()) given.push_back("mesh.peers_file");
    if (!m.peers_dns.empty()) given.push_back("mesh.peers_dns");
    if (obj.contains("peers_prometheus")) given.push_back("mesh.peers_prometheus");
    if (given.size() > 1) {
        std::string list;
        for (std::size_t i = 0; i < given.size(); ++i)
            list += (i == 0 ? "" : i + 1 == given.size() ? " and " : ", ") + given[i];
        errors.add("mesh",
                   "give exactly one of mesh.peers, mesh.peers_file, mesh.peers_dns and "
                   "mesh.peers_prometheus (the fleet's source), got " +
                       list);
    }
    o.number("peers_refresh_s", m.peers_refresh_s, 10, 86400, "seconds");
    if (o.has("peers_refresh_s") && !m.dynamic())
        o.fail("peers_refresh_s", "applies to mesh.peers_dns and mesh.peers_prometheus only");
    o.integer("inter_tor_peers", m.inter_tor_peers, 1, 64);
    o.integer("intra_tor_cap", m.intra_tor_cap, 1, 256);
    o.string_list("ops", m.ops, 1, 2, true, check_op);
    o.integer_list("sizes_bytes", m.sizes_bytes, 1, 8, limits::kMinMessageBytes,
                   limits::kMaxMessageBytes, check_message_size);
    o.integer("iterations", m.iterations, 1, 100000);
    o.number("interval_s", m.interval_s, 0.1, 3600, "seconds");
    o.number("jitter", m.jitter, 0, 0.5, "(fraction of interval_s)");
    o.number("timeout_s", m.timeout_s, 0.01, 60, "seconds");
    o.number("summary_window_s", m.summary_window_s, 10, 3600, "seconds");
}

void read_incast(ObjectReader& r, const json& obj, IncastConfig& c, JsonErrors& errors) {
    ObjectReader o(obj, r.path("incast."), errors);
    o.string("receiver_address", c.receiver_address);
    if (!c.receiver_address.empty() && !is_host_port(c.receiver_address))
        o.fail("receiver_address", check_peer(c.receiver_address));
    o.number("max_duration_s", c.max_duration_s, 0.1, 600, "seconds");
    o.string_list("allowed_senders", c.allowed_senders, 0, 1024, true, check_allowed_sender);
}

/// `topology`: label name -> string value, each checked (topology.h), at most
/// kMaxTopologyLabels. "comment" is free text, as in every object.
void read_topology(ObjectReader& r, const json& obj, Topology& t, JsonErrors& errors) {
    ObjectReader o(obj, r.path("topology."), errors);
    Topology labels;
    for (const auto& [name, value] : obj.items()) {
        if (name == "comment") continue;
        o.allow(name.c_str());
        if (const std::string why = check_topology_label_name(name); !why.empty())
            o.fail(name, why);
        else if (!value.is_string())
            o.fail(name, "expected a string, got " +
                             (value.is_number()
                                  ? "a number (write it in quotes: \"" + value.dump() + "\")"
                                  : JsonReader::type_text(value)));
        else if (const std::string bad = check_topology_label_value(value.get<std::string>());
                 !bad.empty())
            o.fail(name, bad);
        else
            labels.emplace(name, value.get<std::string>());
    }
    if (labels.size() > kMaxTopologyLabels)
        r.fail("topology", std::to_string(labels.size()) + " labels: expected at most " +
                               std::to_string(kMaxTopologyLabels));
    else
        t = std::move(labels);
}

/// `lldp`: labels -> local interface names, the lldpcli program and its timeout.
void read_lldp(ObjectReader& r, const json& obj, LldpConfig& l, JsonErrors& errors) {
    ObjectReader o(obj, r.path("lldp."), errors);
    if (const json* labels = o.object("labels")) {
        ObjectReader lo(*labels, o.path("labels."), errors);
        for (const auto& [name, value] : labels->items()) {
            if (name == "comment") continue;
            lo.allow(name.c_str());
            if (const std::string why = check_topology_label_name(name); !why.empty())
                lo.fail(name, why);
            else if (!value.is_string() || value.get<std::string>().empty() ||
                     value.get<std::string>().size() > 15 ||
                     value.get<std::string>().find_first_of("/ \t\r\n") != std::string::npos)
                lo.fail(name,
                        "expected a local interface name (1 to 15 characters, no '/' or "
                        "space) whose LLDP neighbour names the label's value, got " +
                            value.dump());
            else
                l.labels.emplace(name, value.get<std::string>());
        }
        if (labels->size() > kMaxTopologyLabels)
            o.fail("labels", "expected at most " + std::to_string(kMaxTopologyLabels) + " labels");
    }
    o.string("lldpcli", l.lldpcli);
    if (l.lldpcli.empty()) o.fail("lldpcli", "must not be empty");
    o.number("timeout_s", l.timeout_s, 0.1, 60, "seconds");
}

}  // namespace

std::string check_message_size(std::uint64_t size) {
    // The limits of probes/wire/probe_limits.h: what `probe --sizes` and a responder take.
    if (!limits::valid_message_size(size))
        return std::to_string(size) + " is not a probe message size: a multiple of 8 from " +
               std::to_string(limits::kMinMessageBytes) + " to " +
               std::to_string(limits::kMaxMessageBytes) + " bytes";
    return "";
}

std::size_t AgentConfig::max_points() const {
    return static_cast<std::size_t>(std::ceil(retention_s / collect_interval_s)) + 16;
}

Result<AgentConfig> parse_agent_config(const json& doc, const std::string& name) {
    if (!doc.is_object())
        return Error{"config", name, 0,
                     "expected a JSON object at the top, got " + std::string(doc.type_name())};
    AgentConfig c;
    c.source = name;
    JsonErrors errors;
    {
        ObjectReader r(doc, "", errors);
        r.string("host", c.host);
        // Given, it names this host everywhere; left out, the kernel's name is used.
        if (const std::string why = r.has("host") ? check_host_name(c.host) : ""; !why.empty())
            r.fail("host", why +
                               ": expected this host's name (or leave \"host\" out for the "
                               "kernel's)");
        r.string("sysfs_root", c.sysfs_root);
        if (c.sysfs_root.empty()) r.fail("sysfs_root", "must not be empty");
        r.string("device", c.device);
        r.number("collect_interval_s", c.collect_interval_s, 0.1, 3600, "seconds");
        if (r.has("rules_interval_s")) {
            // Checked as before (a file valid for older agents stays valid), then ignored.
            double ignored = 0;
            r.number("rules_interval_s", ignored, 0.1, 3600, "seconds");
            c.deprecated.push_back({"rules_interval_s",
                                    "rules_interval_s is deprecated and ignored: the rules run "
                                    "after every collection pass"});
        }
        r.number("inventory_interval_s", c.inventory_interval_s, 1, 3600, "seconds");
        r.number("retention_s", c.retention_s, 60, 86400, "seconds");
        r.string("rules_file", c.rules_file);
        r.string_list("required_ports", c.required_ports, 0, kMaxRequiredPorts, true,
                      check_port_entry);
        if (const json* t = r.object("topology")) read_topology(r, *t, c.topology, errors);
        if (const json* l = r.object("lldp")) read_lldp(r, *l, c.lldp, errors);
        for (const auto& [name, netdev] : c.lldp.labels)
            if (c.topology.count(name))
                r.fail("lldp.labels." + name,
                       "topology." + name + " is given too: set the label in one of them");
        if (const json* h = r.object("http")) read_http(r, *h, c.http, errors);
        if (const json* p = r.object("responder")) read_responder(r, *p, c.responder, errors);
        if (const json* m = r.object("mesh")) read_mesh(r, *m, c.mesh, errors);
        if (const json* i = r.object("incast")) read_incast(r, *i, c.incast, errors);
    }
    if (errors.empty() && c.retention_s < 10 * c.collect_interval_s)
        errors.add("retention_s", fmt(c.retention_s) +
                                      " keeps fewer than 10 passes of collect_interval_s " +
                                      fmt(c.collect_interval_s) + "; the rules need a history");
    if (!errors.empty()) return Error{"config", name, 0, errors.joined()};
    return c;
}

std::string config_relative(const std::string& config_path, const std::string& path) {
    if (path.empty() || std::filesystem::path(path).is_absolute()) return path;
    return (std::filesystem::path(config_path).parent_path() / path).string();
}

Result<AgentConfig> load_agent_config(const std::string& path) {
    auto doc = read_json_file(path, "config");
    if (!doc) return doc.error();
    auto c = parse_agent_config(*doc, path);
    if (!c) return c;
    // Every path field the same way: a relative one is the config's neighbour, wherever the
    // agent was started from (systemd starts it in /).
    for (std::string* field :
         {&c->sysfs_root, &c->rules_file, &c->http.token_file, &c->http.action_token_file,
          &c->http.tls_cert_file, &c->http.tls_key_file, &c->responder.key_file,
          &c->responder.host_key_file, &c->responder.known_hosts_file, &c->mesh.peers_file})
        *field = config_relative(path, *field);
    // lldpcli is a program: a bare name is looked up in PATH, a path with a folder is a path.
    if (c->lldp.lldpcli.find('/') != std::string::npos)
        c->lldp.lldpcli = config_relative(path, c->lldp.lldpcli);
    if (c->mesh.peers_file.empty()) return c;
    auto fleet = load_mesh_peers_file(c->mesh.peers_file);
    if (!fleet) return Error{"config", path, 0, fleet.error().message()};
    c->mesh.fleet = std::move(*fleet);
    return c;
}

Result<std::string> load_token_file(const std::string& path) {
    // No symlink in the path, owner and mode checked on the open descriptor (secret_file.h).
    constexpr std::size_t kMaxTokenFile = 64 << 10;
    auto file = auth::read_secret_file("http.token_file", path, kMaxTokenFile);
    if (!file) return file.error();
    if (file->bytes().size() > kMaxTokenFile)
        return Error{"http.token_file", path, 0, "holds more than 65536 bytes"};
    std::string t(file->bytes().begin(), file->bytes().end());
    const auto first = t.find_first_not_of(" \t\r\n");
    if (first == std::string::npos) return Error{"http.token_file", path, 0, "empty"};
    t = t.substr(first, t.find_last_not_of(" \t\r\n") - first + 1);
    if (t.size() < 16)
        return Error{"http.token_file", path, 0,
                     "token has " + std::to_string(t.size()) +
                         " characters; use at least 16 (e.g. `openssl rand -hex 32`)"};
    if (t.find_first_of(" \t\r\n") != std::string::npos)
        return Error{"http.token_file", path, 0, "token contains whitespace"};
    return t;
}

}  // namespace rh::agent
