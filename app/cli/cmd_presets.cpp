// headroom-cli presets [--json]: the built-in hardware presets (resources/presets.json) that
// `plan --preset ID` accepts, with the figures and where they come from.
#include "commands.h"
#include "text_file.h"

#include "hardware_json.h"
#include "hardware_presets.h"

#include <cstdio>
#include <iostream>
#include <memory>

namespace headroom::cli {
namespace {

const CommandRegistrar registrar{
    "presets", "Built-in hardware presets for plan --preset ID",
    [](CLI::App& sub) -> std::function<int()> {
        auto json = std::make_shared<bool>(false);
        sub.footer("Exit codes: 0 listed, 3 the presets file is missing or invalid.\n"
                   "--json prints {\"schema\": \"headroom.presets/1\", \"presets\": [{\"id\", "
                   "\"source\", ...headroom.hardware/1 fields}]}.");
        sub.add_flag("--json", *json, "Print the presets as JSON");
        return [json]() -> int {
            auto presets = loadBuiltinPresets();
            if (!presets) {
                const auto& e = presets.error();
                return fail("presets",
                            e.message + (e.details.empty() ? "" : " (" + e.details + ")"),
                            kExitUnreadableInput);
            }
            if (*json) {
                nlohmann::json arr = nlohmann::json::array();
                for (const auto& p : *presets) {
                    nlohmann::json j = hardwareToJson(p.hw);
                    j.erase("schema");
                    j["id"] = p.id;
                    j["source"] = p.citation;
                    arr.push_back(std::move(j));
                }
                std::cout << dumpJson(nlohmann::json{{"schema", kPresetsSchema}, {"presets", arr}})
                          << "\n";
                return kExitOk;
            }
            for (const auto& p : *presets) {
                const auto& hw = p.hw;
                std::string gpus;
                double bw = 0;
                for (const auto& g : hw.gpus) {
                    gpus += (gpus.empty() ? "" : " + ") + formatBytes(g.total_bytes);
                    bw = g.bandwidth_gbs;
                }
                if (gpus.empty()) gpus = "CPU only";
                char line[256];
                std::snprintf(line, sizeof line, "%-18s %-20s RAM %-10s %7.0f GB/s  %s\n",
                              p.id.c_str(), (gpus + (hw.uma ? " unified" : "")).c_str(),
                              formatBytes(hw.ram_total).c_str(),
                              bw > 0 ? bw : hw.host_bandwidth_gbs, hw.label.c_str());
                std::cout << line;
            }
            return kExitOk;
        };
    }};

} // namespace
} // namespace headroom::cli
