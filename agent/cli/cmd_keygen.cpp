// rocehealth keygen: writes a new fabric key (probes/auth/fabric_key.h), or with --host-key a
// responder's own host key (probes/auth/host_key.h).
#include <iostream>

#include "agent/cli/commands.h"
#include "agent/cli/options.h"
#include "core/hostname.h"
#include "probes/auth/fabric_key.h"
#include "probes/auth/host_key.h"

namespace rh::cli {

namespace {

/// --host-key FILE: writes the key and prints the line every client's known_hosts needs.
int write_host_key(const std::string& path) {
    auto k = auth::write_new_host_key_file(path);
    if (!k) {
        std::cerr << "rocehealth keygen: " << k.error().message() << "\n";
        return kExitCannotRun;
    }
    const auth::PublicKey pub = k->public_key();
    const std::string name = host_name().empty() ? "HOST" : host_name();
    std::cerr << "wrote a new Ed25519 host key to " << path << " (mode 0600), fingerprint "
              << auth::host_key_fingerprint(pub)
              << "\nGive it to this host's responder (--host-key-file, or the agent's "
                 "responder.host_key_file), and add the line below to the known_hosts file of "
                 "every host that commands this one (NAME as they dial it: host name or "
                 "address):\n";
    std::cout << name << " ed25519 " << auth::public_key_text(pub) << "\n";
    return kExitOk;
}

}  // namespace

int run_keygen(const std::vector<std::string>& args) {
    std::string out = auth::kDefaultKeyFile, host_key;
    po::options_description desc("options");
    desc.add_options()("help,h", "show this help")("out", po::value(&out)->default_value(out),
                                                   "the new key file (refused if it exists)")(
        "host-key", po::value(&host_key),
        "instead of a fabric key, write this host's own Ed25519 host key to FILE (optional, "
        "e.g. /etc/rocehealth/host.key) and print its known_hosts line");
    po::variables_map vm;
    if (auto exit = parse_options(
            "keygen", "rocehealth keygen [--out FILE | --host-key FILE]",
            "Write a new fabric key: 32 random bytes, mode 0600 (new folders 0700), and print\n"
            "its fingerprint. Copy the same file to every\n"
            "host of the fabric (as root, e.g. with your configuration management), then start\n"
            "or SIGHUP the responders and agents. Control commands (incast, accept, the agent's\n"
            "incast API) work only between hosts holding the same key.\n"
            "With --host-key FILE: a per-host key instead, so that a holder of the fabric key\n"
            "cannot pose as this host to clients that list it in their known_hosts; prints the\n"
            "line \"HOST ed25519 BASE64\" (stdout) for them.\n"
            "Exit: 0 written, 2 not written (the file exists, or cannot be created).",
            args, desc, vm))
        return *exit;
    // An empty path (an unset shell variable) is a mistake, never "the default".
    if (vm.count("host-key") && host_key.empty())
        return usage_error("keygen", "rocehealth keygen [--out FILE | --host-key FILE]",
                           "--host-key: empty path");
    if (out.empty())
        return usage_error("keygen", "rocehealth keygen [--out FILE | --host-key FILE]",
                           "--out: empty path");
    if (vm.count("host-key")) {
        if (!vm["out"].defaulted())
            return usage_error("keygen", "rocehealth keygen [--out FILE | --host-key FILE]",
                               "--out and --host-key: one key a run");
        return write_host_key(host_key);
    }
    if (auto st = auth::write_new_key_file(out); !st) {
        std::cerr << "rocehealth keygen: " << st.error().message() << "\n";
        return kExitCannotRun;
    }
    // Read back as every command reads it: proves the file is usable and gives the fingerprint.
    auto k = auth::load_fabric_key(out);
    if (!k) {
        std::cerr << "rocehealth keygen: wrote " << out
                  << " but cannot read it back: " << k.error().message() << "\n";
        return kExitCannotRun;
    }
    std::cout << "wrote a new fabric key to " << out << " (mode 0600), fingerprint "
              << auth::key_fingerprint(k->bytes)
              << "\n(each host logs the fingerprint of the key it holds; they must all match)\n";
    return kExitOk;
}

}  // namespace rh::cli
