// Ollama Modelfile export: FROM the GGUF and the PARAMETERs Ollama takes per model (num_ctx,
// num_gpu, num_batch) from the priced rung; whatever Ollama can only set server-wide
// (flash attention, KV cache type, parallel sequences) or not at all (expert placement, tensor
// overrides) is written as a comment naming the setting, so nothing planned is silently dropped.
#pragma once

#include "plan.h"
#include "result.h"

#include <string>
#include <vector>

namespace headroom {

struct OllamaExportOptions {
    std::string model_path; // FROM; "" = as for llama-server (launchModelPath)
    int rung_index = -1;    // which rung of the plan (-1: the launch decision)
};

struct OllamaModelfile {
    std::string from;
    std::vector<std::pair<std::string, std::string>> parameters; // in file order
    std::vector<std::string> server_env;  // "OLLAMA_KV_CACHE_TYPE=q8_0", for `ollama serve`
    std::vector<std::string> unsupported; // planned settings Ollama cannot express
    std::string text;                     // the Modelfile
};

// Cache types Ollama's OLLAMA_KV_CACHE_TYPE accepts (Ollama FAQ: f16, q8_0, q4_0).
bool ollamaSupportsCacheType(GgmlType type);

Result<OllamaModelfile> ollamaModelfile(const Plan& plan, const OllamaExportOptions& options);

} // namespace headroom
