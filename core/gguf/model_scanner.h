// Finds GGUF models where people keep them: llama.cpp's cache, the Hugging Face hub cache
// (where llama.cpp's -hf downloads land), LM Studio's folders, Ollama's blob store (through its
// manifests) and any folder the user adds. Split parts are grouped into one model, each header
// is read with the GGUF reader, and a broken file is reported, never fatal.
//
// Every OS path comes from ModelScanOptions (home directory and environment values), so tests
// point the scanner at fake trees; ModelScanOptions::fromEnvironment() fills it for real use.
// Long-running: call it off the GUI thread; it reports progress and honours a cancel flag.
#pragma once

#include "gguf/gguf_reader.h"
#include "result.h"

#include <atomic>
#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace headroom {

// Folders deeper than this below a scan root are not entered: model stores are 2-6 levels
// deep, and the bound keeps a pathological tree from keeping a scan busy. Not a knob.
inline constexpr int kModelScanMaxDepth = 16;

struct ModelScanOptions {
    std::string home;                       // $HOME; "" disables the default locations
    std::map<std::string, std::string> env; // LLAMA_CACHE, HF_HUB_CACHE, HF_HOME, OLLAMA_MODELS...
    std::vector<std::string> extra_folders; // the user's own folders, scanned recursively
    bool default_locations = true;          // scan the well-known stores as well

    // HOME and the variables above from the process environment.
    static ModelScanOptions fromEnvironment();
};

enum class ModelSource { LlamaCppCache, HuggingFace, LmStudio, Ollama, UserFolder };

// One root the scanner looks at, after the environment is applied.
struct ModelScanRoot {
    ModelSource source;
    std::string path;
};
// The roots a scan with these options visits, in order (existing or not).
std::vector<ModelScanRoot> modelScanRoots(const ModelScanOptions& options);

struct ScannedModel {
    std::string name; // "Qwen3-8B-Q4_K_M", "org/repo/file.gguf", "llama3.2:3b"
    ModelSource source = ModelSource::UserFolder;
    std::string path;          // what to open: the file, split part 1, or the Ollama blob
    GgufModel model;           // header(s) read; model.complete=false names missing split parts
    bool is_projector = false; // an mmproj file itself
    std::vector<std::string> projector_paths; // projectors that belong with this model
                                              // (Ollama projector layers, mmproj*.gguf beside it)
};

struct ModelScanIssue {
    std::string path;
    Error error;
};

struct ModelScanProgress {
    std::uint64_t files_seen = 0; // directory entries looked at
    std::uint64_t models_found = 0;
    std::string current; // folder being scanned
};

struct ModelScanResult {
    std::vector<ScannedModel> models;   // in the order found
    std::vector<ModelScanIssue> issues; // unreadable folders, malformed files and manifests
    bool cancelled = false;
    std::uint64_t files_seen = 0;
};

// Scans every root. `progress` (optional) is called from the scanning thread as files are seen
// and models found; `cancel` (optional) stops the scan soon after it becomes true (the result
// then holds what was found so far, with cancelled=true). Never follows a symlink loop: every
// folder is entered at most once (tracked by device and inode), and each model file is
// reported once however many links point at it.
ModelScanResult scanForModels(const ModelScanOptions& options,
                              const std::function<void(const ModelScanProgress&)>& progress = {},
                              const std::atomic<bool>* cancel = nullptr);

} // namespace headroom
