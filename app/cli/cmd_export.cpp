// headroom-cli export: the launch of the plan that `plan` would print, written for llama-server,
// llama-swap, Ollama or as the plan JSON. Files are written atomically and never replaced
// without --force.
#include "atomic_write.h"
#include "commands.h"
#include "export/llama_server.h"
#include "export/llama_swap.h"
#include "export/ollama.h"
#include "export/router_preset.h"
#include "export/shell.h"
#include "plan_args.h"
#include "plan_json.h"
#include "planner/fit_simulation.h"
#include "resources.h"

#include <filesystem>
#include <iostream>
#include <map>

namespace headroom::cli {

namespace {

struct ExportCommand {
    // Several models (llama-swap, router): MODEL… and --model ID…, each planned with the same
    // hardware and options.
    std::vector<std::string> paths;
    std::vector<std::string> ids;
    HardwareFlags hardware;
    OptionFlags options;
    std::string to;
    std::string output;
    bool force = false;
    std::string fit = "pin";
    std::string model_path;
    std::string server_binary = "llama-server";
    std::string host;
    std::string port;
    int ttl = 0;
    std::string swap_id;
    std::string swap_routing = "matrix";
};

const std::map<std::string, FitMode>& fitModes() {
    static const std::map<std::string, FitMode> modes = {{"pin", FitMode::Pin},
                                                         {"fit", FitMode::LeaveToFit}};
    return modes;
}

// The export flags' values, checked when the command line is read (addParseCheck): no I/O.
std::optional<Error> checkExportFlags(const ExportCommand& c) {
    if (fitModes().count(c.fit) == 0)
        return makeError(ErrorCode::InvalidArgument,
                         "--fit-policy '" + c.fit + "' is not valid (accepted: pin, fit)");
    // Every launch target runs llama-server, whose output rows the plan must price (--program).
    if (c.options.program == "library" && c.to != "json")
        return makeError(ErrorCode::InvalidArgument,
                         "--program library prices llama.cpp's library, but --to " + c.to +
                             " writes a llama-server launch",
                         "drop --program (llama-server is the default) or use --to json");
    const std::size_t n_models = c.paths.size() + c.ids.size();
    const bool multi = c.to == "llama-swap" || c.to == "router";
    if (n_models > 1 && !multi)
        return makeError(ErrorCode::InvalidArgument,
                         "--to " + c.to + " takes one model; several go to llama-swap or router");
    if (n_models > 1 && !c.swap_id.empty())
        return makeError(ErrorCode::InvalidArgument,
                         "--swap-id names one model; with several the ids are derived");
    if (c.ttl < 0)
        return makeError(ErrorCode::InvalidArgument,
                         "--ttl must be 0 (never unload) or a number of seconds");
    if (!c.port.empty()) {
        // llama-server --port takes a TCP port: 1-65535 (0 would ask the OS for any port, which
        // a launch config cannot then name).
        const bool digits =
            c.port.size() <= 5 && c.port.find_first_not_of("0123456789") == std::string::npos;
        const unsigned long n = digits ? std::stoul(c.port) : 0;
        if (!digits || n < 1 || n > 65535)
            return makeError(ErrorCode::InvalidArgument,
                             "--port '" + c.port + "' is not valid (accepted: 1 to 65535)");
    }
    return std::nullopt;
}

int run(const ExportCommand& c) {
    const FitMode fit = fitModes().at(c.fit); // checkExportFlags accepted it
    // Refuse an impossible target before spending time on planning: a device, FIFO or directory
    // (never replaced), or an existing file without --force. The write re-checks atomically.
    if (!c.output.empty() && c.output != "-")
        if (auto ok = checkOutputTarget(c.output, c.force); !ok) {
            const Error& e = ok.error();
            return fail("export",
                        e.details.empty() ? e.message : e.message + " (" + e.details + ")",
                        exitCodeFor(e));
        }

    std::vector<ModelFlags> models;
    for (const auto& p : c.paths)
        models.push_back({p, ""});
    for (const auto& id : c.ids)
        models.push_back({"", id});
    if (models.empty()) models.push_back({}); // buildPlan says "no model given"
    // Several models are priced together first (planModelSet), so the contexts written are
    // ones the set holds at once; a set that does not fit together is planned model by model,
    // and the groups say which of them may stay loaded together.
    std::vector<Plan> plans;
    if (models.size() > 1) {
        auto set = buildModelSet(models, c.hardware, c.options);
        if (!set) {
            const Error& e = set.error();
            return fail("export",
                        e.details.empty() ? e.message : e.message + " (" + e.details + ")",
                        exitCodeFor(e));
        }
        if (set->fits)
            plans = std::move(set->plans);
        else
            std::cerr << "headroom-cli export: the models do not fit together (" << set->blocked_why
                      << "); each is planned alone and grouped by what fits together\n";
    }
    for (size_t k = plans.size(); k < models.size(); ++k) {
        auto plan = buildPlan(models[k], c.hardware, c.options);
        if (!plan) {
            const Error& e = plan.error();
            return fail("export",
                        e.details.empty() ? e.message : e.message + " (" + e.details + ")",
                        exitCodeFor(e));
        }
        plans.push_back(std::move(*plan));
    }
    std::vector<SwapModel> planned;
    for (size_t k = 0; k < models.size(); ++k) {
        const ModelFlags& mf = models[k];
        Plan* plan = &plans[k];
        LaunchExportOptions launch;
        launch.fit = fit;
        launch.model_path = models.size() == 1 ? c.model_path : std::string();
        // hf:OWNER/REPO[:QUANT] is written as llama.cpp's -hf (the plan's id is the resolved URL).
        if (launch.model_path.empty() && mf.path.rfind("hf:", 0) == 0) launch.model_path = mf.path;
        launch.server_binary = c.server_binary;
        launch.host = c.host;
        launch.port = c.port;
        if (!c.options.mmproj.empty() && c.options.mmproj != "on")
            launch.mmproj_path = c.options.mmproj;
        planned.push_back({std::move(*plan), c.swap_id, launch});
    }
    const Plan* plan = &planned.front().plan;
    const LaunchExportOptions& launch = planned.front().launch;

    Result<std::string> text = std::string();
    if (c.to == "llama-server") {
        auto l = llamaServerLaunch(*plan, launch);
        if (l)
            text = llamaServerScript(*l);
        else
            text = l.error();
    } else if (c.to == "llama-swap") {
        LlamaSwapOptions so;
        so.ttl_seconds = c.ttl;
        so.routing = c.swap_routing == "groups" ? SwapRouting::Groups : SwapRouting::Matrix;
        text = llamaSwapYaml(planned, so);
    } else if (c.to == "router") {
        RouterPresetOptions ro;
        ro.server_binary = c.server_binary;
        ro.host = c.host;
        ro.port = c.port;
        if (!c.output.empty() && c.output != "-") ro.preset_path = c.output;
        auto r = routerPreset(planned, ro);
        if (r) {
            text = r->ini;
            std::cerr << "headroom-cli export: run " << shellJoin(r->server) << "\n";
        } else {
            text = r.error();
        }
    } else if (c.to == "ollama") {
        OllamaExportOptions oo;
        oo.model_path = c.model_path;
        auto mf = ollamaModelfile(*plan, oo);
        if (mf)
            text = mf->text;
        else
            text = mf.error();
    } else {
        // The same document as `plan --json`, with its fit simulation (llama.cpp's defaults).
        auto j = planToJson(*plan);
        if (auto fit = simulateFit(plan->model, plan->hardware, plan->options, {}, &*plan))
            j["fit_simulation"] = fitSimulationJson(*fit);
        text = j.dump(2, ' ', false, nlohmann::json::error_handler_t::replace) + "\n";
    }
    if (!text) {
        const Error& e = text.error();
        return fail("export", e.details.empty() ? e.message : e.message + " (" + e.details + ")",
                    exitCodeFor(e));
    }

    if (c.output.empty() || c.output == "-") {
        std::cout << *text;
        return std::cout.good() ? kExitOk : kExitUnreadableInput;
    }
    // A launch script is meant to be run: a new one is created 0777 minus the umask. A replaced
    // file keeps its own permissions and owner (atomic_write.h).
    auto written =
        writeFileAtomically(c.output, *text, c.force, c.to == "llama-server" ? 0777 : 0666);
    if (!written) {
        const Error& e = written.error();
        return fail("export", e.details.empty() ? e.message : e.message + " (" + e.details + ")",
                    exitCodeFor(e));
    }
    std::cerr << "headroom-cli export: wrote " << c.output << "\n";
    return kExitOk;
}

CommandRegistrar reg(
    "export", "write the planned launch for llama-server, llama-swap, Ollama or as JSON",
    [](CLI::App& sub) -> std::function<int()> {
        auto cmd = std::make_shared<ExportCommand>();
        sub.add_option("--to", cmd->to,
                       "what to write: llama-server, llama-swap, router (llama-server "
                       "--models-preset INI), ollama or json")
            ->required()
            ->check(CLI::IsMember({"llama-server", "llama-swap", "router", "ollama", "json"}));
        sub.add_option("-o,--output", cmd->output, "write to FILE (atomically) instead of stdout");
        sub.add_flag("--force", cmd->force, "replace FILE when it already exists");
        auto* g = sub.add_option_group("Export", "how the launch is written");
        g->add_option("--fit-policy", cmd->fit,
                      "pin: write every planned placement flag and --fit off (default); fit: "
                      "pin -c and the cache flags, leave layer placement to llama.cpp's --fit");
        g->add_option("--model-path", cmd->model_path,
                      "the GGUF path to write (default: the MODEL file; a catalog model gets a "
                      "placeholder to replace)");
        g->add_option("--server-binary", cmd->server_binary,
                      "the llama-server program to run (default: llama-server)");
        g->add_option("--host", cmd->host, "llama-server --host (llama-server target)");
        g->add_option("--port", cmd->port, "llama-server --port (llama-server target)");
        g->add_option("--ttl", cmd->ttl,
                      "llama-swap: seconds idle before unloading, 0 = never (default 0)");
        g->add_option("--swap-routing", cmd->swap_routing,
                      "llama-swap with several models: matrix (the sets that may run together, "
                      "default) or groups (groups whose members stay loaded together, swap: "
                      "false)")
            ->check(CLI::IsMember({"matrix", "groups"}));
        g->add_option("--swap-id", cmd->swap_id,
                      "llama-swap: the model id (default: catalog id or GGUF file name)");
        sub.add_option("MODEL", cmd->paths,
                       "GGUF files (first part of a split model), https:// or hf: references; "
                       "several for llama-swap or router");
        sub.add_option("--model", cmd->ids,
                       "catalog ids, optionally with a quant (repeatable: --model A --model B)");
        addHardwareFlags(sub, cmd->hardware);
        addOptionFlags(sub, cmd->options);
        addParseCheck(sub, [cmd] { return checkExportFlags(*cmd); });
        sub.footer(
            "The exported launch is the chosen rung of the plan `headroom-cli plan` prints for "
            "the same flags.\nExit codes: 0 written, 2 bad arguments (also: FILE exists without "
            "--force; FILE is a directory, FIFO, device node or a link to one, never replaced "
            "even with --force; or the plan refuses every context so there is nothing to "
            "launch), 3 unreadable input or unwritable FILE (its directory missing or read-only, "
            "disk full), 4 probe failed. A symbolic link as FILE is replaced itself with --force, "
            "never written through.");
        return [cmd]() -> int { return run(*cmd); };
    });

} // namespace

} // namespace headroom::cli
