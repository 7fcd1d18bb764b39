#include "agent/daemon/host_keys.h"

#include "agent/daemon/log.h"
#include "core/hostname.h"

namespace rh::agent {

Status load_host_keys(const AgentConfig& cfg, Runtime& rt) {
    const ResponderConfig& r = cfg.responder;
    const auto fail = [&cfg](const std::string& field, const std::string& why) {
        return Error{"config", cfg.source, 0, "responder." + field + ": " + why};
    };
    for (const auto& [field, file] : {std::pair{"host_key_file", &r.host_key_file},
                                      std::pair{"known_hosts_file", &r.known_hosts_file}})
        if (!file->empty() && !rt.key)
            return fail(field, *file +
                                   " needs the fabric key too (responder.key_file): host keys "
                                   "add to it, they do not replace it");
    if (!r.host_key_file.empty()) {
        auto k = auth::HostKey::load(r.host_key_file);
        if (!k) return fail("host_key_file", k.error().message());
        rt.host_key = std::make_shared<const auth::HostKey>(std::move(*k));
    }
    if (!r.known_hosts_file.empty()) {
        auto k = auth::load_known_hosts(r.known_hosts_file);
        if (!k) return fail("known_hosts_file", k.error().message());
        rt.known_hosts = std::make_shared<const auth::KnownHosts>(std::move(*k));
    }
    return ok_status();
}

void install_host_keys(const Runtime& rt) {
    auth::set_process_host_key(rt.host_key);
    auth::set_process_known_hosts(rt.known_hosts);
    if (rt.host_key) {
        const auth::PublicKey pub = rt.host_key->public_key();
        log_event("info", "host_key",
                  {{"path", rt.host_key->path()},
                   {"fingerprint", auth::host_key_fingerprint(pub)},
                   {"known_hosts_line", (rt.cfg.host.empty() ? host_name() : rt.cfg.host) +
                                            " ed25519 " + auth::public_key_text(pub)}});
    }
    if (rt.known_hosts)
        log_event("info", "known_hosts",
                  {{"path", rt.known_hosts->path}, {"hosts", rt.known_hosts->hosts.size()}});
}

}  // namespace rh::agent
