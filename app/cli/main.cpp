// headroom-cli: the command-line face of the planning core. Subcommands come from the registry
// (cmd_*.cpp); this file only wires them to CLI11 and maps parse errors to exit code 2.
#include "commands.h"

#include <algorithm>
#include <iostream>
#include <map>

namespace headroom::cli {

std::vector<CommandInfo>& commandRegistry() {
    static std::vector<CommandInfo> registry;
    return registry;
}

int fail(const std::string& command, const std::string& message, int code) {
    std::cerr << "headroom-cli " << command << ": " << message << "\n";
    return code;
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
        app.parse(argc, argv);
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
