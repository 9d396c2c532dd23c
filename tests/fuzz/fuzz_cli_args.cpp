// libFuzzer target for headroom-cli's argument parser: the same CommandLine (app/cli/
// command_line.cpp) that main() uses, with every command's options and the checks of their values,
// fed fuzzed argument vectors. Nothing is run: a command line the parser accepts stops there, so
// nothing is probed, read or written. The input is split on NUL bytes into arguments (argv cannot
// hold a NUL, so every split is a command line a shell could pass), and parsed as given and once
// after a command's name. Every outcome must be one of the contract's: accepted; help or
// version (exit 0, text on stdout); or refused (exit 2, a message on stderr). An exception that
// escapes, a crash, a sanitizer report or a hang fails the run.
#include "command_line.h"

#include <cstddef>
#include <cstdint>
#include <sstream>
#include <string>
#include <vector>

using namespace headroom::cli;

namespace {

void parseOne(const std::vector<std::string>& args) {
    CommandLine cli;
    std::ostringstream out, err;
    const ParsedCommandLine parsed = cli.parse(args, out, err);
    if (parsed.run) return; // accepted; running it is the command's business, not the parser's
    if (parsed.exit_code == kExitOk) {
        if (out.str().empty()) __builtin_trap(); // help or version prints something
    } else if (parsed.exit_code == kExitBadArguments) {
        if (err.str().empty()) __builtin_trap(); // a refusal says why
    } else {
        __builtin_trap(); // no other exit code comes from reading arguments
    }
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    std::vector<std::string> words;
    std::string word;
    for (std::size_t i = 0; i < size; ++i) {
        if (data[i] == 0) {
            words.push_back(word);
            word.clear();
        } else {
            word.push_back(static_cast<char>(data[i]));
        }
    }
    if (size > 0) words.push_back(word);

    std::vector<std::string> args{"headroom-cli"};
    args.insert(args.end(), words.begin(), words.end());
    parseOne(args);
    // The registry is read once for the names: CommandLine sorts it, it never changes.
    static const std::vector<std::string> names = [] {
        std::vector<std::string> n;
        for (const auto& info : commandRegistry())
            n.push_back(info.name);
        return n;
    }();
    // One command's name before the same words, chosen by the input's length so that a
    // mutation reaches every command (parsing under all six each time would cost six times as
    // many runs).
    const std::string& name = names[size % names.size()];
    args.assign({"headroom-cli", name});
    args.insert(args.end(), words.begin(), words.end());
    parseOne(args);
    return 0;
}
