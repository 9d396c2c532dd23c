#include "command_line.h"

#include <algorithm>
#include <iostream>
#include <optional>
#include <stdexcept>

namespace headroom::cli {

std::vector<CommandInfo>& commandRegistry() {
    static std::vector<CommandInfo> registry;
    return registry;
}

// Users type llama.cpp's flags; the README promises they work.
std::vector<std::string> expandLlamaAliases(std::vector<std::string> args) {
    static const std::pair<const char*, const char*> aliases[] = {
        {"-ctk", "--cache-type-k"},
        {"-ctv", "--cache-type-v"},
        {"-fa", "--flash-attn"},
        {"-ub", "--ubatch-size"},
        {"-np", "--parallel"},
        {"-kvu", "--kv-unified"},
        {"-ngl", "--gpu-layers"},
        {"-ot", "--override-tensor"},
        {"-ts", "--tensor-split"},
        {"-sm", "--split-mode"},
        {"-cmoe", "--cpu-moe"},
        {"-ncmoe", "--n-cpu-moe"},
        {"-lm", "--load-mode"},
        {"-fitt", "--fit-target"},
        {"-fitc", "--fit-ctx"},
        {"-bs", "--backend-sampling"},
        {"-nkvo", "--no-kv-offload"},
        {"-md", "--model-draft"},
        {"-ngld", "--gpu-layers-draft"},
        {"-ctkd", "--cache-type-k-draft"},
        {"-ctvd", "--cache-type-v-draft"},
    };
    for (auto& a : args) {
        for (const auto& [shortName, longName] : aliases) {
            const std::string s = shortName;
            if (a == s)
                a = longName;
            else if (a.rfind(s + "=", 0) == 0)
                a = std::string(longName) + a.substr(s.size());
        }
    }
    return args;
}

int fail(const std::string& command, const std::string& message, int code) {
    std::cerr << "headroom-cli " << command << ": " << message << "\n";
    return code;
}

void addParseCheck(CLI::App& sub, ParseCheck check) {
    // The checks live with the application the command belongs to (one per parse).
    CLI::App* root = &sub;
    while (root->get_parent() != nullptr)
        root = root->get_parent();
    auto* line = dynamic_cast<CommandLine*>(root);
    // Every command is set up by CommandLine; a check with nowhere to go would be silently lost.
    if (line == nullptr)
        throw std::logic_error("addParseCheck: the command is not in a CommandLine");
    line->checks_[&sub].push_back(std::move(check));
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

// An empty argument that is neither an option's value nor a positional (MODEL) still free.
// CLI11 2.1.2 would take it for the name of one of the command's option groups, which are
// nameless, and never return (`plan x '' -c 1` hung; found by fuzz_cli_args). The walk mirrors
// CLI11's: "--" ends the options, an option without "=" that takes a value takes the next
// argument, anything else fills the positionals in order.
std::optional<std::string> strayEmptyArgumentMessage(const CLI::App& sub,
                                                     const std::vector<std::string>& args) {
    const auto positionals =
        sub.get_options([](const CLI::Option* o) { return o->get_positional(); });
    std::size_t filled = 0;
    bool options_end = false;
    for (std::size_t i = 2; i < args.size(); ++i) {
        const std::string& a = args[i];
        if (!options_end && a == "--") {
            options_end = true;
            continue;
        }
        if (!options_end && a.size() > 1 && a[0] == '-') {
            if (a.find('=') != std::string::npos) continue;
            const CLI::Option* opt = sub.get_option_no_throw(a);
            if (opt != nullptr && opt->get_items_expected_max() > 0) ++i; // its value, empty or not
            continue;
        }
        if (filled < positionals.size()) {
            ++filled;
            continue;
        }
        if (a.empty()) {
            std::string taken;
            for (const CLI::Option* o : positionals)
                taken += (taken.empty() ? "" : ", ") + o->get_name();
            return "argument " + std::to_string(i) + " is empty and is no option's value" +
                   (taken.empty() ? std::string(" (the command takes no other arguments)")
                                  : " (" + taken + " is given already)");
        }
    }
    return std::nullopt;
}

} // namespace

CommandLine::CommandLine()
    : CLI::App("Headroom: will this model fit, at what context, how fast, launched how?",
               "headroom-cli") {
    set_version_flag("--version", std::string("headroom-cli ") + HEADROOM_VERSION);
    require_subcommand(1);
    fallthrough(false);
    auto& registry = commandRegistry();
    std::sort(registry.begin(), registry.end(),
              [](const CommandInfo& a, const CommandInfo& b) { return a.name < b.name; });
    for (auto& info : registry) {
        CLI::App* sub = add_subcommand(info.name, info.description);
        runners_[sub] = info.setup(*sub);
    }
}

ParsedCommandLine CommandLine::parse(const std::vector<std::string>& argv, std::ostream& out,
                                     std::ostream& err) {
    const std::vector<std::string> args = expandLlamaAliases(argv);
    if (auto m = unknownCommandMessage(args)) {
        err << "headroom-cli: " << *m << "\n";
        return {{}, kExitBadArguments};
    }
    if (args.size() > 1)
        for (const auto& [sub, run] : runners_)
            if (sub->get_name() == args[1])
                if (auto m = strayEmptyArgumentMessage(*sub, args)) {
                    err << "headroom-cli " << args[1] << ": " << *m << "\n";
                    return {{}, kExitBadArguments};
                }
    try {
        // CLI11 takes the arguments after the program name, reversed. An empty argument is
        // refused either way (as an option's value or MODEL by emptyValueMessage, elsewhere by
        // strayEmptyArgumentMessage or CLI11), but CLI11 2.1.2 must never see one: it matches ""
        // against the nameless option groups and loops. A blank is refused the same way.
        std::vector<std::string> rest(args.rbegin(), args.rend() - (args.empty() ? 0 : 1));
        for (auto& a : rest)
            if (a.empty()) a = " ";
        CLI::App::parse(rest);
    } catch (const CLI::CallForHelp& e) {
        return {{}, exit(e, out, err)};
    } catch (const CLI::CallForAllHelp& e) {
        return {{}, exit(e, out, err)};
    } catch (const CLI::CallForVersion& e) {
        return {{}, exit(e, out, err)};
    } catch (const CLI::ParseError& e) {
        exit(e, out, err);
        return {{}, kExitBadArguments};
    }
    for (auto& [sub, run] : runners_) {
        if (!sub->parsed()) continue;
        const std::string prefix = "headroom-cli " + sub->get_name() + ": ";
        if (auto m = emptyValueMessage(*this)) {
            err << prefix << *m << "\n";
            return {{}, kExitBadArguments};
        }
        for (const auto& check : checks_[sub])
            if (auto e = check()) {
                err << prefix << e->message << (e->details.empty() ? "" : " (" + e->details + ")")
                    << "\n";
                return {{}, kExitBadArguments};
            }
        return {run, kExitOk};
    }
    // require_subcommand(1) makes CLI11 refuse a line without one; this is never reached.
    err << "headroom-cli: a command is required\n";
    return {{}, kExitBadArguments};
}

} // namespace headroom::cli
