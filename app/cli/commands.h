// headroom-cli subcommands register themselves here, one per cmd_*.cpp, so adding a command never
// edits main.cpp. Each command's run callback returns the process exit code.
#pragma once

#include "result.h"

#include <CLI/CLI.hpp>

#include <functional>
#include <optional>
#include <string>
#include <vector>

namespace headroom::cli {

// Exit codes of the CLI contract (README, "Using the CLI"); scripts depend on them.
inline constexpr int kExitOk = 0;
// An exception no command expected (core never throws; this is a bug, reported, never a crash).
inline constexpr int kExitInternalError = 1;
inline constexpr int kExitBadArguments = 2;
inline constexpr int kExitUnreadableInput = 3;
inline constexpr int kExitProbeFailed = 4;

// setup adds the subcommand's options to `sub` and returns the function that runs it.
using CommandSetup = std::function<std::function<int()>(CLI::App& sub)>;

struct CommandInfo {
    std::string name;
    std::string description;
    CommandSetup setup;
};

std::vector<CommandInfo>& commandRegistry();

struct CommandRegistrar {
    CommandRegistrar(std::string name, std::string description, CommandSetup setup) {
        commandRegistry().push_back({std::move(name), std::move(description), std::move(setup)});
    }
};

// A check of a command's parsed option values that needs no I/O (a malformed -ngl, --vram or
// --port): an error is exit 2, said before the command runs, so nothing is probed or read for a
// command line that cannot work. Registered by a command's setup on its own CLI::App `sub`; the
// checks run in the order they were added (command_line.cpp).
using ParseCheck = std::function<std::optional<Error>()>;
void addParseCheck(CLI::App& sub, ParseCheck check);

// Prints "headroom-cli <cmd>: <message>" to stderr and returns `code`.
int fail(const std::string& command, const std::string& message, int code);

} // namespace headroom::cli
