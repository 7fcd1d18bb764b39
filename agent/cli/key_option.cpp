#include "agent/cli/key_option.h"

#include <iostream>

#include "agent/cli/commands.h"
#include "core/hostname.h"
#include "probes/auth/fabric_key.h"
#include "probes/auth/host_key.h"
#include "probes/auth/known_hosts.h"

namespace rh::cli {

namespace {

std::string g_known_hosts_file;  // --known-hosts
std::string g_host_key_file;     // --host-key-file (responder)

int cannot_run(const std::string& command, const std::string& why) {
    std::cerr << "rocehealth " << command << ": " << why << "\n";
    return kExitCannotRun;
}

}  // namespace

void add_key_file_option(po::options_description& desc, std::string& path, bool serves) {
    desc.add_options()("key-file", po::value(&path),
                       (std::string("the fabric key, readable by root only (`rocehealth keygen`); "
                                    "default ") +
                        auth::kDefaultKeyFile + " when it exists")
                           .c_str())(
        "known-hosts", po::value(&g_known_hosts_file),
        "responders' host keys, lines \"NAME ed25519 BASE64\" (`rocehealth keygen --host-key`): "
        "every responder this command commands must be listed and prove its key (optional)");
    if (serves)
        desc.add_options()("host-key-file", po::value(&g_host_key_file),
                           "this responder's own Ed25519 host key (`rocehealth keygen --host-key "
                           "FILE`): it signs every keyed handshake, for clients whose known_hosts "
                           "names this host (optional)");
}

std::string host_key_file_option() {
    return g_host_key_file;
}

std::string known_hosts_option() {
    return g_known_hosts_file;
}

bool host_key_options_given() {
    return !g_known_hosts_file.empty() || !g_host_key_file.empty();
}

std::optional<int> install_fabric_key(const std::string& command, const std::string& path) {
    auto k = auth::key_for_command(path);
    if (!k) return cannot_run(command, k.error().message());
    const bool keyed = *k != nullptr;
    auth::set_process_key(std::move(*k));
    for (const auto& [option, file] :
         {std::pair{"--known-hosts", &g_known_hosts_file}, {"--host-key-file", &g_host_key_file}})
        if (!file->empty() && !keyed)
            return cannot_run(command, std::string(option) + " " + *file +
                                           " needs the fabric key too (--key-file): host keys "
                                           "add to it, they do not replace it");
    if (!g_known_hosts_file.empty()) {
        auto known = auth::load_known_hosts(g_known_hosts_file);
        if (!known) return cannot_run(command, known.error().message());
        auth::set_process_known_hosts(std::make_shared<const auth::KnownHosts>(std::move(*known)));
    }
    if (!g_host_key_file.empty()) {
        auto hk = auth::HostKey::load(g_host_key_file);
        if (!hk) return cannot_run(command, hk.error().message());
        std::cerr << "rocehealth " << command << ": host key " << g_host_key_file
                  << ", fingerprint " << auth::host_key_fingerprint(hk->public_key())
                  << " (known_hosts line: " << host_name() << " ed25519 "
                  << auth::public_key_text(hk->public_key()) << ")\n";
        auth::set_process_host_key(std::make_shared<const auth::HostKey>(std::move(*hk)));
    }
    return std::nullopt;
}

}  // namespace rh::cli
