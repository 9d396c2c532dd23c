// Reading headroom-cli's command line, apart from running it: llama.cpp's short aliases, CLI11
// with every registered command's options, empty values, and the checks of option values that need
// no I/O. main() runs what this accepts; the argv fuzzer (tests/fuzz/fuzz_cli_args.cpp) feeds it
// hostile command lines without running anything, so nothing here probes, reads or writes a file.
#pragma once

#include "commands.h"

#include <CLI/CLI.hpp>

#include <functional>
#include <map>
#include <ostream>
#include <string>
#include <vector>

namespace headroom::cli {

// llama.cpp spells some options with one dash and several letters (-ctk, -fa, -ub); CLI11 reads
// those as bundles of one-letter flags, so they are rewritten to their long names first.
std::vector<std::string> expandLlamaAliases(std::vector<std::string> args);

// What reading a command line gave: the command to run, or the exit code of a command line that
// was answered already (help or version: 0, with the text on `out`; refused: 2, with a message
// naming the argument on `err`).
struct ParsedCommandLine {
    std::function<int()> run; // set when the arguments were accepted
    int exit_code = kExitOk;  // when run is empty
};

// The application: every registered command with its options. One parse per object (CLI11 keeps
// the values it read in the commands' own variables).
class CommandLine : public CLI::App {
public:
    CommandLine();

    // args[0] is the program name. Never throws for any argument vector.
    ParsedCommandLine parse(const std::vector<std::string>& args, std::ostream& out,
                            std::ostream& err);

private:
    friend void addParseCheck(CLI::App& sub, ParseCheck check);
    std::map<const CLI::App*, std::function<int()>> runners_;
    std::map<const CLI::App*, std::vector<ParseCheck>> checks_;
};

} // namespace headroom::cli
