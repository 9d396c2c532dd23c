// headroom-cli: the command-line face of the planning core. Subcommands come from the registry
// (cmd_*.cpp); this file only wires them to CLI11 and maps parse errors to exit code 2.
#include "commands.h"

#include <algorithm>
#include <iostream>
#include <map>
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
// type llama.cpp's flags; the contract (DESIGN.md) promises they work.
std::vector<std::string> expandLlamaAliases(int argc, char** argv) {
    static const std::pair<const char*, const char*> aliases[] = {
        {"-ctk", "--cache-type-k"}, {"-ctv", "--cache-type-v"},   {"-fa", "--flash-attn"},
        {"-ub", "--ubatch-size"},   {"-np", "--parallel"},        {"-kvu", "--kv-unified"},
        {"-ngl", "--gpu-layers"},   {"-ot", "--override-tensor"}, {"-ts", "--tensor-split"},
        {"-sm", "--split-mode"},    {"-cmoe", "--cpu-moe"},       {"-ncmoe", "--n-cpu-moe"},
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

} // namespace headroom::cli

int main(int argc, char** argv) {
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

    try {
        std::vector<std::string> args = expandLlamaAliases(argc, argv);
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
    for (auto& [sub, run] : runners)
        if (sub->parsed()) return run();
    return kExitBadArguments;
}
