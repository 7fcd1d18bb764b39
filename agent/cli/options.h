// Shared command-line plumbing for the subcommands: parse with Boost.Program_options, print
// `--help`, and turn a bad option into a message naming it (exit 2).
#pragma once

#include <atomic>

#include <iostream>
#include <optional>
#include <string>
#include <vector>

#include <boost/program_options.hpp>

namespace rh::cli {

namespace po = boost::program_options;

/// Parses `args` against `desc` (and `positional`, if any). Returns the exit code to leave with
/// (0 after --help, 2 after an error, both already printed) or nullopt to go on.
/// `usage_line` is e.g. "rocehealth check [--peer HOST] [--json]".
std::optional<int> parse_options(const std::string& command, const std::string& usage_line,
                                 const std::string& about, const std::vector<std::string>& args,
                                 const po::options_description& desc, po::variables_map& vm,
                                 const po::positional_options_description* positional = nullptr);

/// Prints "rocehealth COMMAND: MSG", the usage line and "(rocehealth COMMAND --help for
/// details)" to stderr; returns kExitCannotRun. For a bad option value found after parsing.
int usage_error(const std::string& command, const std::string& usage_line, const std::string& msg);

/// Makes SIGINT and SIGTERM set the returned flag (no SA_RESTART: a sleep or wait returns at
/// once), for the commands that run until stopped (record, mesh, responder). One flag per
/// process, a lock-free atomic, so the handler is async-signal-safe.
std::atomic<bool>& stop_on_signals();

/// Checks that a --sysfs-root directory exists; prints "rocehealth CMD: sysfs root DIR does not
/// exist or is not a directory" and returns false otherwise.
bool sysfs_root_usable(const std::string& command, const std::string& root);

/// "--host: empty: expected ..." when --host was given and is not a usable host name
/// (core/hostname.h check_host_name: 1..253 printable bytes, no space), else nullopt. Left
/// out, the command uses the kernel's name.
std::optional<std::string> check_host_arg(const po::variables_map& vm, const std::string& host);

}  // namespace rh::cli
