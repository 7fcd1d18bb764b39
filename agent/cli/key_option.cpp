#include "agent/cli/key_option.h"

#include "agent/cli/commands.h"
#include "probes/auth/fabric_key.h"

namespace rh::cli {

void add_key_file_option(po::options_description& desc, std::string& path) {
    desc.add_options()("key-file", po::value(&path),
                       (std::string("the fabric key, readable by root only (`rocehealth keygen`); "
                                    "default ") +
                        auth::kDefaultKeyFile + " when it exists")
                           .c_str());
}

std::optional<int> install_fabric_key(const std::string& command, const std::string& path) {
    auto k = auth::key_for_command(path);
    if (!k) {
        std::cerr << "rocehealth " << command << ": " << k.error().message() << "\n";
        return kExitCannotRun;
    }
    auth::set_process_key(std::move(*k));
    return std::nullopt;
}

}  // namespace rh::cli
