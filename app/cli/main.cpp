// headroom-cli: the command-line face of the planning core. Subcommands come from the registry
// (cmd_*.cpp); command_line.cpp reads the arguments, this file runs what it accepted.
#include "command_line.h"

#include <exception>
#include <iostream>

int main(int argc, char** argv) {
    // Nothing below is expected to throw (core returns Result, CLI11's errors are handled where
    // it parses); an exception that still escapes is a bug, said as one, not an abort.
    try {
        headroom::cli::CommandLine cli;
        auto parsed = cli.parse(std::vector<std::string>(argv, argv + argc), std::cout, std::cerr);
        return parsed.run ? parsed.run() : parsed.exit_code;
    } catch (const std::exception& e) {
        std::cerr << "headroom-cli: internal error: " << e.what() << " (please report this)\n";
    } catch (...) {
        std::cerr << "headroom-cli: internal error (please report this)\n";
    }
    return headroom::cli::kExitInternalError;
}
