// llama-server's router mode: one server that loads several models on demand, configured by a
// preset INI (`llama-server --models-preset FILE --models-max N`, llama.cpp v0.5.0
// tools/server/README.md "Model presets", parsed by common/preset.cpp
// common_preset_context::load_from_ini). Each model is a section named by its id whose keys are
// the launch's flags without leading dashes (`c = 65536`, `ngl = 33`); a flag without a value is
// written `= true`; several -ot overrides are one comma-separated value (llama.cpp splits -ot on
// ','). The router owns --host and --port, so the sections leave them out.
//
// --models-max is the router's only memory control: it loads at most N models and unloads the
// least recently used past that (tools/server/server-models.cpp). Headroom writes the largest N
// for which every N models of the file fit in memory together (the co-residency check of the
// llama-swap export), so whichever N a client asks for, they fit.
#pragma once

#include "export/llama_swap.h"
#include "result.h"

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace headroom {

struct RouterPreset {
    std::string ini;                 // the --models-preset file
    std::uint32_t models_max = 1;    // every this many models fit together
    std::vector<std::string> server; // llama-server --models-preset FILE --models-max N …
};

struct RouterPresetOptions {
    std::string preset_path = "models.ini"; // what the server line names
    std::string server_binary = "llama-server";
    std::string host; // router's --host ("" = llama-server's default)
    std::string port; // router's --port
};

// The sections of a preset INI as (section, [(key, value)…]) in file order, keys before the
// first section under "" (common/preset.cpp's rules: ';' and '#' start comments, "key = value",
// surrounding spaces trimmed). For tests and for reading a preset back.
Result<std::vector<std::pair<std::string, std::vector<std::pair<std::string, std::string>>>>>
parsePresetIni(const std::string& text);

// The preset for several plans (one section each, id as SwapModel::id or swapModelId) and the
// router's command line. Errors like llamaSwapYaml: a refused plan, duplicate ids, more than
// kMaxSwapModels models, plans for different hardware.
Result<RouterPreset> routerPreset(const std::vector<SwapModel>& models,
                                  const RouterPresetOptions& options);

} // namespace headroom
