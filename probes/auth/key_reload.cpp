#include "probes/auth/key_reload.h"

#include <memory>

#include "probes/auth/fabric_key.h"
#include "probes/auth/host_key.h"
#include "probes/auth/known_hosts.h"

namespace rh::auth {

Result<std::string> reload_process_keys(const KeyFiles& files) {
    auto key = key_for_command(files.key_file);
    if (!key) return key.error();
    for (const std::string* f : {&files.host_key_file, &files.known_hosts_file})
        if (!f->empty() && !*key)
            return Error{"keys", *f, 0,
                         "needs the fabric key too: host keys add to it, they do not replace it"};
    std::shared_ptr<const HostKey> host_key;
    if (!files.host_key_file.empty()) {
        auto k = HostKey::load(files.host_key_file);
        if (!k) return k.error();
        host_key = std::make_shared<const HostKey>(std::move(*k));
    }
    std::shared_ptr<const KnownHosts> known;
    if (!files.known_hosts_file.empty()) {
        auto k = load_known_hosts(files.known_hosts_file);
        if (!k) return k.error();
        known = std::make_shared<const KnownHosts>(std::move(*k));
    }
    std::string said = *key ? "fabric key " + (*key)->path + " (fingerprint " +
                                  key_fingerprint((*key)->bytes) + ")"
                            : "no fabric key: control commands are off";
    if (host_key)
        said += ", host key " + host_key->path() + " (fingerprint " +
                host_key_fingerprint(host_key->public_key()) + ")";
    if (known)
        said +=
            ", known_hosts " + known->path + " (" + std::to_string(known->hosts.size()) + " hosts)";
    set_process_key(std::move(*key));
    set_process_host_key(std::move(host_key));
    set_process_known_hosts(std::move(known));
    return said;
}

}  // namespace rh::auth
