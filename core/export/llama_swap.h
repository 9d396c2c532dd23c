// llama-swap configuration export (YAML, emitted with yaml-cpp): one `models` entry per plan with
// the planned llama-server command (on llama-swap's ${PORT} macro), a ttl and the planned memory
// per device as metadata; for several plans, the routing that says which models fit in memory
// together — the VRAM-aware swapping llama-swap users ask for (mostlygeek/llama-swap #158, #319).
#pragma once

#include "export/llama_server.h"
#include "plan.h"
#include "result.h"

#include <cstddef>
#include <string>
#include <vector>

namespace headroom {

// llama-swap's two routers (`routing.router.use`): `matrix` lists the combinations that may run
// together (newest config format), `group` partitions models into groups whose members run
// together (the older, default engine).
enum class SwapRouting { Matrix, Groups };
const char* swapRoutingName(SwapRouting r);

struct SwapModel {
    Plan plan;
    std::string id;             // llama-swap model id; "" = derived from the plan's model
    LaunchExportOptions launch; // port is forced to ${PORT}
};

struct LlamaSwapOptions {
    SwapRouting routing = SwapRouting::Matrix;
    // Seconds of idleness before llama-swap unloads a model; 0 = never (llama-swap's default).
    int ttl_seconds = 0;
};

// The most models whose co-residency is enumerated exactly (every subset is tried: 2^16 checks
// of a few additions each stay well under a millisecond). Not a knob.
inline constexpr std::size_t kMaxSwapModels = 16;

// Whether the chosen rungs of `plans` fit in memory together: for every device the sum of each
// plan's bytes on it within that device's usable budget, and the sum of host bytes within the
// RAM budget (unified memory: devices and host share the one pool). All plans must be made for
// the same devices; otherwise an Error names the mismatch.
Result<bool> fitTogether(const std::vector<const Plan*>& plans);

// The largest combinations (indices into `plans`, each of two or more models) that fit together;
// no returned set is contained in another. Refused plans take part in none.
Result<std::vector<std::vector<std::size_t>>> coResidentSets(const std::vector<const Plan*>& plans);

// A partition of the models into groups that each fit together (first fit, largest first).
Result<std::vector<std::vector<std::size_t>>>
coResidentGroups(const std::vector<const Plan*>& plans);

// The llama-swap id for a plan: the catalog id, or the GGUF file's name without ".gguf".
std::string swapModelId(const Plan& plan);

// The whole config as YAML text. Errors for a refused plan, duplicate ids, more than
// kMaxSwapModels models or plans made for different hardware.
Result<std::string> llamaSwapYaml(const std::vector<SwapModel>& models,
                                  const LlamaSwapOptions& options);

} // namespace headroom
