#include "agent/cli/options.h"

#include <csignal>
#include <filesystem>

#include "agent/cli/commands.h"
#include "core/hostname.h"

namespace rh::cli {

std::optional<int> parse_options(const std::string& command, const std::string& usage_line,
                                 const std::string& about, const std::vector<std::string>& args,
                                 const po::options_description& desc, po::variables_map& vm,
                                 const po::positional_options_description* positional) {
    auto usage = [&](std::ostream& out) {
        out << "usage: " << usage_line << "\n\n" << about << "\n\n" << desc;
    };
    try {
        po::command_line_parser parser(args);
        parser.options(desc);
        // Always set a positional description: without one, Boost silently drops stray words
        // ("check hostB" for "check --peer hostB"); with an empty one it rejects them.
        static const po::positional_options_description none;
        parser.positional(positional ? *positional : none);
        po::store(parser.run(), vm);
        if (vm.count("help")) {
            usage(std::cout);
            return kExitOk;
        }
        po::notify(vm);
    } catch (const po::error& e) {
        std::cerr << "rocehealth " << command << ": " << e.what() << "\n";
        usage(std::cerr);
        return kExitCannotRun;
    }
    return std::nullopt;
}

int usage_error(const std::string& command, const std::string& usage_line, const std::string& msg) {
    std::cerr << "rocehealth " << command << ": " << msg << "\nusage: " << usage_line
              << "\n(rocehealth " << command << " --help for details)\n";
    return kExitCannotRun;
}

namespace {
std::atomic<bool> g_stop_requested{false};
static_assert(std::atomic<bool>::is_always_lock_free);
extern "C" void on_stop_signal(int) {
    g_stop_requested.store(true);
}
}  // namespace

std::atomic<bool>& stop_on_signals() {
    struct sigaction sa {};
    sa.sa_handler = on_stop_signal;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGINT, &sa, nullptr);
    sigaction(SIGTERM, &sa, nullptr);
    return g_stop_requested;
}

std::optional<std::string> check_host_arg(const po::variables_map& vm, const std::string& host) {
    if (!vm.count("host")) return std::nullopt;
    const std::string why = check_host_name(host);
    if (why.empty()) return std::nullopt;
    return "--host: " + why + ": expected a host name (leave --host out for this host's)";
}

bool sysfs_root_usable(const std::string& command, const std::string& root) {
    std::error_code ec;
    if (std::filesystem::is_directory(root, ec)) return true;
    std::cerr << "rocehealth " << command << ": sysfs root " << root
              << " does not exist or is not a directory\n";
    return false;
}

}  // namespace rh::cli
