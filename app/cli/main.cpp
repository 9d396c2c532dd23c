// headroom-cli: the command-line face of the planning core. Subcommands come from the registry
// (cmd_*.cpp); this file only wires them to CLI11 and maps parse errors to exit code 2.
#include "commands.h"

#include <algorithm>
#include <exception>
#include <iostream>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace headroom::cli {

std::vector<CommandInfo>& commandRegistry() {
    static std::vector<CommandInfo> registry;
    return registry;
}

int fail(const std::string& command, const std::string& message, int code) {
    std::cerr << "headroom-cli " << command << ": " << message << "\n";
    return code;
}

// llama.cpp spells some options with one dash and several letters (-ctk, -fa, -ub); CLI11 reads
// those as bundles of one-letter flags, so they are rewritten to their long names first. Users
// type llama.cpp's flags; the README promises they work.
std::vector<std::string> expandLlamaAliases(int argc, char** argv) {
    static const std::pair<const char*, const char*> aliases[] = {
        {"-ctk", "--cache-type-k"}, {"-ctv", "--cache-type-v"},   {"-fa", "--flash-attn"},
        {"-ub", "--ubatch-size"},   {"-np", "--parallel"},        {"-kvu", "--kv-unified"},
        {"-ngl", "--gpu-layers"},   {"-ot", "--override-tensor"}, {"-ts", "--tensor-split"},
        {"-sm", "--split-mode"},    {"-cmoe", "--cpu-moe"},       {"-ncmoe", "--n-cpu-moe"},
        {"-lm", "--load-mode"},     {"-fitt", "--fit-target"},    {"-fitc", "--fit-ctx"},
    };
    std::vector<std::string> args;
    for (int i = 0; i < argc; ++i) {
        std::string a = argv[i];
        for (const auto& [shortName, longName] : aliases) {
            const std::string s = shortName;
            if (a == s)
                a = longName;
            else if (a.rfind(s + "=", 0) == 0)
                a = std::string(longName) + a.substr(s.size());
        }
        args.push_back(a);
    }
    return args;
}

namespace {

// Levenshtein distance, for "did you mean" on a misspelt subcommand.
std::size_t editDistance(const std::string& a, const std::string& b) {
    std::vector<std::size_t> row(b.size() + 1);
    for (std::size_t j = 0; j <= b.size(); ++j)
        row[j] = j;
    for (std::size_t i = 1; i <= a.size(); ++i) {
        std::size_t diag = row[0];
        row[0] = i;
        for (std::size_t j = 1; j <= b.size(); ++j) {
            const std::size_t up = row[j];
            row[j] = std::min({row[j] + 1, row[j - 1] + 1, diag + (a[i - 1] != b[j - 1] ? 1 : 0)});
            diag = up;
        }
    }
    return row[b.size()];
}

// The first word names no command: say so, with the closest names, instead of CLI11's
// "A subcommand is required".
std::optional<std::string> unknownCommandMessage(const std::vector<std::string>& args) {
    if (args.size() < 2 || args[1].empty() || args[1][0] == '-') return std::nullopt;
    std::string all, close;
    for (const auto& info : commandRegistry()) {
        if (info.name == args[1]) return std::nullopt;
        all += (all.empty() ? "" : ", ") + info.name;
        // Two edits (a swapped pair, a missing letter) or a prefix: a likely typo.
        if (editDistance(args[1], info.name) <= 2 || info.name.rfind(args[1], 0) == 0)
            close += (close.empty() ? "" : " or ") + ("'" + info.name + "'");
    }
    return "'" + args[1] + "' is not a command" +
           (close.empty() ? std::string() : "; did you mean " + close + "?") +
           " (commands: " + all + ")";
}

// An option given an empty value ("--preset ''", "-c ''", "--vram ''") is a mistake, never "not
// given": CLI11 would store the empty string and the command would fall back to its default.
std::optional<std::string> emptyValueMessage(const CLI::App& app) {
    for (const CLI::Option* opt : app.get_options()) {
        if (opt->count() == 0 || opt->get_type_size_max() == 0) continue; // not given, or a flag
        for (const auto& v : opt->results())
            if (v.find_first_not_of(" \t") == std::string::npos) {
                std::string name = opt->get_name();
                return name + ": an empty value is not accepted (" + opt->get_description() + ")";
            }
    }
    // Every child, option groups included (the no-argument overload lists parsed subcommands
    // only, and option groups are never "parsed").
    for (const CLI::App* sub : app.get_subcommands([](const CLI::App*) { return true; }))
        if (auto m = emptyValueMessage(*sub)) return m;
    return std::nullopt;
}

} // namespace

} // namespace headroom::cli

namespace {

int runCli(int argc, char** argv) {
    using namespace headroom::cli;
    CLI::App app{"Headroom: will this model fit, at what context, how fast, launched how?",
                 "headroom-cli"};
    app.set_version_flag("--version", std::string("headroom-cli ") + HEADROOM_VERSION);
    app.require_subcommand(1);
    app.fallthrough(false);

    auto& registry = commandRegistry();
    std::sort(registry.begin(), registry.end(),
              [](const CommandInfo& a, const CommandInfo& b) { return a.name < b.name; });
    std::map<CLI::App*, std::function<int()>> runners;
    for (auto& info : registry) {
        CLI::App* sub = app.add_subcommand(info.name, info.description);
        runners[sub] = info.setup(*sub);
    }

    std::vector<std::string> args = expandLlamaAliases(argc, argv);
    if (auto m = unknownCommandMessage(args)) {
        std::cerr << "headroom-cli: " << *m << "\n";
        return kExitBadArguments;
    }
    try {
        std::vector<std::string> rest(args.rbegin(), args.rend() - 1); // CLI11 wants them reversed
        app.parse(rest);
    } catch (const CLI::CallForHelp& e) {
        return app.exit(e);
    } catch (const CLI::CallForAllHelp& e) {
        return app.exit(e);
    } catch (const CLI::CallForVersion& e) {
        return app.exit(e);
    } catch (const CLI::ParseError& e) {
        app.exit(e);
        return kExitBadArguments;
    }
    if (auto m = emptyValueMessage(app)) {
        for (auto& [sub, run] : runners)
            if (sub->parsed()) return fail(sub->get_name(), *m, kExitBadArguments);
        std::cerr << "headroom-cli: " << *m << "\n";
        return kExitBadArguments;
    }
    for (auto& [sub, run] : runners)
        if (sub->parsed()) return run();
    return kExitBadArguments;
}

} // namespace

int main(int argc, char** argv) {
    // Nothing below is expected to throw (core returns Result, CLI11's errors are handled where
    // it parses); an exception that still escapes is a bug, said as one, not an abort.
    try {
        return runCli(argc, argv);
    } catch (const std::exception& e) {
        std::cerr << "headroom-cli: internal error: " << e.what() << " (please report this)\n";
    } catch (...) {
        std::cerr << "headroom-cli: internal error (please report this)\n";
    }
    return headroom::cli::kExitInternalError;
}
