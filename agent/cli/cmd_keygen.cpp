// rocehealth keygen: writes a new fabric key (probes/auth/fabric_key.h).
#include <iostream>

#include "agent/cli/commands.h"
#include "agent/cli/options.h"
#include "probes/auth/fabric_key.h"

namespace rh::cli {

int run_keygen(const std::vector<std::string>& args) {
    std::string out = auth::kDefaultKeyFile;
    po::options_description desc("options");
    desc.add_options()("help,h", "show this help")("out", po::value(&out)->default_value(out),
                                                   "the new key file (refused if it exists)");
    po::variables_map vm;
    if (auto exit = parse_options(
            "keygen", "rocehealth keygen [--out FILE]",
            "Write a new fabric key: 32 random bytes, mode 0600 (new folders 0700), and print\n"
            "its fingerprint. Copy the same file to every\n"
            "host of the fabric (as root, e.g. with your configuration management), then start\n"
            "or SIGHUP the responders and agents. Control commands (incast, accept, the agent's\n"
            "incast API) work only between hosts holding the same key.\n"
            "Exit: 0 written, 2 not written (the file exists, or cannot be created).",
            args, desc, vm))
        return *exit;
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
