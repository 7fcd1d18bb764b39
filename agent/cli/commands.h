// The rocehealth commands. Each lives in its own file (agent/cli/cmd_<name>.cpp), parses its own
// options with Boost.Program_options (agent/cli/options.h) and returns the process exit code
// (core/exit_codes.h: 0 ok/healthy, 1 findings or a failed measurement, 2 could not run). The
// one table of commands — name, one-line help, entry point — is in agent/cli/commands.cpp.
#pragma once

#include <span>
#include <string>
#include <vector>

#include "core/exit_codes.h"

namespace rh::cli {

/// A command's entry point; `args` exclude the program and command names.
using CommandRun = int (*)(const std::vector<std::string>& args);

/// One row of the command table: `rocehealth NAME ...` runs `run`; `help` is its line in the
/// usage that `rocehealth --help` prints.
struct Command {
    const char* name;
    CommandRun run;
    const char* help;
};

/// The command table, in the order `rocehealth --help` lists it.
std::span<const Command> command_table();

/// The whole command line (argv[0] the program): finds the command in the table and runs it,
/// or prints the usage. Returns the exit code; an exception a command lets through is printed
/// as "rocehealth CMD: what" and is exit 2.
int dispatch(int argc, char** argv);

}  // namespace rh::cli
