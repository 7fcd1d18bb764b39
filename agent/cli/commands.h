// The rocehealth subcommands. Each lives in its own file (agent/cmd_<name>.cpp), parses its own
// options with Boost.Program_options and returns the process exit code.
// Exit codes shared by all: 0 ok/healthy, 1 findings or a failed measurement, 2 could not run
// (bad input, no device, unreachable peer).
#pragma once

#include <string>
#include <vector>

namespace rh::cli {

inline constexpr int kExitOk = 0;
inline constexpr int kExitFindings = 1;
inline constexpr int kExitCannotRun = 2;

/// args exclude the program and subcommand names.
int run_snapshot(const std::vector<std::string>& args);
int run_check(const std::vector<std::string>& args);
int run_probe(const std::vector<std::string>& args);
int run_responder(const std::vector<std::string>& args);
int run_diagnose(const std::vector<std::string>& args);
int run_record(const std::vector<std::string>& args);
int run_agent(const std::vector<std::string>& args);
int run_incast(const std::vector<std::string>& args);
int run_mesh(const std::vector<std::string>& args);
int run_accept(const std::vector<std::string>& args);
int run_keygen(const std::vector<std::string>& args);
int run_fabric(const std::vector<std::string>& args);
int run_rules_command(const std::vector<std::string>& args);  ///< rules check / rules test

}  // namespace rh::cli
