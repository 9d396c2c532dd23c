#include "gguf/model_scanner.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>
#include <sys/stat.h>

namespace headroom {

namespace fs = std::filesystem;

namespace {

// An Ollama manifest is a few hundred bytes of JSON; anything this large is not one. Not a knob.
constexpr std::uintmax_t kMaxManifestBytes = 1 * 1024 * 1024;
// Progress is reported every this many directory entries (and whenever a model is found), so
// the callback costs nothing measurable on a large tree. Not a knob.
constexpr std::uint64_t kProgressEvery = 256;

// Ollama's layer media types (ollama server/images.go) and its default registry/namespace.
constexpr const char* kOllamaModelLayer = "application/vnd.ollama.image.model";
constexpr const char* kOllamaProjectorLayer = "application/vnd.ollama.image.projector";
constexpr const char* kOllamaDefaultRegistry = "registry.ollama.ai";
constexpr const char* kOllamaDefaultNamespace = "library";

std::string envOr(const ModelScanOptions& o, const char* name) {
    const auto it = o.env.find(name);
    return it == o.env.end() ? std::string() : it->second;
}

bool endsWithGguf(const std::string& name) {
    if (name.size() < 5) return false;
    std::string ext = name.substr(name.size() - 5);
    std::transform(ext.begin(), ext.end(), ext.begin(),
                   [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
    return ext == ".gguf";
}

std::string stripGguf(std::string s) {
    if (endsWithGguf(s)) s.resize(s.size() - 5);
    return s;
}

using FileId = std::pair<dev_t, ino_t>;

// Name for a file under `root`: "org/repo/<path in snapshot>" inside a Hugging Face cache
// (models--org--repo/snapshots/<rev>/...), else the path relative to the root; ".gguf" dropped.
std::string displayName(const fs::path& root, const fs::path& file) {
    std::vector<std::string> parts;
    for (const auto& p : file.lexically_relative(root))
        parts.push_back(p.string());
    if (parts.empty() || parts.front() == "..") return stripGguf(file.filename().string());
    for (std::size_t i = 0; i + 2 < parts.size(); ++i) {
        if (parts[i].rfind("models--", 0) == 0 && parts[i + 1] == "snapshots") {
            std::string repo = parts[i].substr(8);
            if (const auto sep = repo.find("--"); sep != std::string::npos)
                repo = repo.substr(0, sep) + "/" + repo.substr(sep + 2);
            std::string name = repo;
            for (std::size_t k = i + 3; k < parts.size(); ++k)
                name += "/" + parts[k];
            return stripGguf(name);
        }
    }
    std::string name;
    for (const auto& p : parts)
        name += (name.empty() ? "" : "/") + p;
    return stripGguf(name);
}

bool isHex64(std::string_view s) {
    return s.size() == 64 && std::all_of(s.begin(), s.end(), [](char c) {
               return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f');
           });
}

class Scanner {
public:
    Scanner(const ModelScanOptions& o, const std::function<void(const ModelScanProgress&)>& p,
            const std::atomic<bool>* c)
        : opts_(o), progress_(p), cancel_(c) {}

    ModelScanResult run() {
        for (const auto& root : modelScanRoots(opts_)) {
            if (stopped()) break;
            std::error_code ec;
            const bool exists = fs::exists(root.path, ec);
            if (!exists) {
                if (root.source == ModelSource::UserFolder)
                    issue(root.path, makeError(ErrorCode::NotFound,
                                               "folder '" + root.path + "' does not exist"));
                continue;
            }
            if (root.source == ModelSource::Ollama)
                scanOllama(root.path);
            else
                walk(root.path, root.source);
        }
        result_.files_seen = progress_state_.files_seen;
        report(true);
        return std::move(result_);
    }

private:
    bool stopped() {
        if (cancel_ && cancel_->load(std::memory_order_relaxed)) result_.cancelled = true;
        return result_.cancelled;
    }

    void report(bool force) {
        if (!progress_) return;
        if (force || progress_state_.files_seen % kProgressEvery == 0) progress_(progress_state_);
    }

    void seen(const std::string& where) {
        ++progress_state_.files_seen;
        progress_state_.current = where;
        report(false);
    }

    void issue(const std::string& path, Error e) { result_.issues.push_back({path, std::move(e)}); }

    void found(ScannedModel m) {
        result_.models.push_back(std::move(m));
        progress_state_.models_found = result_.models.size();
        report(true);
    }

    // True the first time a file (by device and inode, following links) is seen.
    bool firstSight(const fs::path& p, bool dir) {
        struct stat st {};
        if (::stat(p.c_str(), &st) != 0) return false;
        if (dir ? !S_ISDIR(st.st_mode) : !S_ISREG(st.st_mode)) return false;
        return (dir ? visited_dirs_ : seen_files_).insert({st.st_dev, st.st_ino}).second;
    }

    void walk(const std::string& root_path, ModelSource source) {
        const fs::path root(root_path);
        std::vector<std::pair<fs::path, int>> stack{{root, 0}};
        while (!stack.empty() && !stopped()) {
            auto [dir, depth] = stack.back();
            stack.pop_back();
            if (!firstSight(dir, /*dir=*/true)) continue; // symlink loop or seen via another root
            std::error_code ec;
            fs::directory_iterator it(dir, fs::directory_options::skip_permission_denied, ec);
            if (ec) {
                issue(dir.string(),
                      makeError(ErrorCode::IoError,
                                "cannot list folder '" + dir.string() + "': " + ec.message()));
                continue;
            }
            std::vector<fs::path> files, subdirs;
            for (; it != fs::directory_iterator(); it.increment(ec)) {
                if (ec || stopped()) break;
                seen(dir.string());
                const fs::path p = it->path();
                std::error_code sec;
                const auto st = fs::status(p, sec); // follows links; a dangling link is skipped
                if (sec) continue;
                if (fs::is_directory(st)) {
                    if (depth + 1 <= kModelScanMaxDepth) subdirs.push_back(p);
                } else if (fs::is_regular_file(st) && endsWithGguf(p.filename().string())) {
                    files.push_back(p);
                }
            }
            std::sort(files.begin(), files.end());
            std::sort(subdirs.rbegin(), subdirs.rend()); // popped in name order
            scanFolderFiles(root, files, source);
            for (auto& s : subdirs)
                stack.emplace_back(std::move(s), depth + 1);
        }
    }

    // Reads the models in one folder and hands its projectors to the models beside them.
    void scanFolderFiles(const fs::path& root, const std::vector<fs::path>& files,
                         ModelSource source) {
        std::vector<ScannedModel> here;
        for (const auto& f : files) {
            if (stopped()) return;
            if (!firstSight(f, /*dir=*/false)) continue;
            std::string open = f.string();
            std::string name = displayName(root, f);
            if (const auto split = parseGgufSplitName(open)) {
                const std::string key = split->stem + "/" + std::to_string(split->count);
                if (!split_groups_.insert(key).second) continue; // another part already did it
                open = ggufSplitPath(split->stem, 1, split->count);
                name = displayName(root, fs::path(split->stem));
            }
            auto m = openGgufModel(open);
            if (!m) {
                issue(open, m.error());
                continue;
            }
            ScannedModel s;
            s.name = std::move(name);
            s.source = source;
            s.path = open;
            s.is_projector = m->is_projector;
            s.model = std::move(*m);
            here.push_back(std::move(s));
        }
        std::vector<std::string> projectors;
        for (const auto& s : here)
            if (s.is_projector) projectors.push_back(s.path);
        for (auto& s : here) {
            if (!s.is_projector) s.projector_paths = projectors;
            found(std::move(s));
        }
    }

    void scanOllama(const std::string& root_path) {
        // Manifests live at manifests/<registry>/<namespace>/<model>/<tag>; each names its
        // layers by digest, stored as blobs/sha256-<hex> (ollama server/manifest.go, layer.go).
        const fs::path root(root_path);
        const fs::path manifests = root / "manifests";
        std::error_code ec;
        if (!fs::is_directory(manifests, ec)) return;
        fs::recursive_directory_iterator it(manifests,
                                            fs::directory_options::skip_permission_denied, ec);
        if (ec) {
            issue(manifests.string(),
                  makeError(ErrorCode::IoError,
                            "cannot list '" + manifests.string() + "': " + ec.message()));
            return;
        }
        std::vector<fs::path> tags;
        for (; it != fs::recursive_directory_iterator(); it.increment(ec)) {
            if (ec || stopped()) break;
            seen(manifests.string());
            if (it.depth() > 3) {
                it.disable_recursion_pending();
                continue;
            }
            std::error_code sec;
            if (it.depth() == 3 && it->is_regular_file(sec)) tags.push_back(it->path());
        }
        std::sort(tags.begin(), tags.end());
        for (const auto& tag : tags) {
            if (stopped()) return;
            scanOllamaManifest(root, tag.lexically_relative(manifests), tag);
        }
    }

    void scanOllamaManifest(const fs::path& root, const fs::path& rel, const fs::path& file) {
        std::vector<std::string> parts;
        for (const auto& p : rel)
            parts.push_back(p.string());
        if (parts.size() != 4) return;
        const std::string& registry = parts[0];
        const std::string& ns = parts[1];
        std::string name = parts[2] + ":" + parts[3];
        if (registry != kOllamaDefaultRegistry)
            name = registry + "/" + ns + "/" + name;
        else if (ns != kOllamaDefaultNamespace)
            name = ns + "/" + name;

        std::error_code ec;
        const auto size = fs::file_size(file, ec);
        if (ec || size > kMaxManifestBytes) {
            issue(file.string(),
                  makeError(ErrorCode::ParseError, "Ollama manifest '" + file.string() +
                                                       "' is unreadable or too large to be one"));
            return;
        }
        std::ifstream in(file, std::ios::binary);
        std::stringstream text;
        text << in.rdbuf();
        const auto json = nlohmann::json::parse(text.str(), nullptr, /*allow_exceptions=*/false);
        if (json.is_discarded() || !json.is_object() || !json.contains("layers") ||
            !json["layers"].is_array()) {
            issue(file.string(),
                  makeError(ErrorCode::ParseError, "Ollama manifest '" + file.string() +
                                                       "' is not JSON with a \"layers\" array"));
            return;
        }
        std::optional<fs::path> model_blob;
        std::vector<std::string> projectors;
        for (const auto& layer : json["layers"]) {
            if (!layer.is_object() || !layer.contains("mediaType") || !layer.contains("digest") ||
                !layer["mediaType"].is_string() || !layer["digest"].is_string())
                continue;
            const std::string media = layer["mediaType"].get<std::string>();
            if (media != kOllamaModelLayer && media != kOllamaProjectorLayer) continue;
            const std::string digest = layer["digest"].get<std::string>();
            // "sha256:<64 hex>"; anything else could point outside the blob store.
            if (digest.rfind("sha256:", 0) != 0 || !isHex64(std::string_view(digest).substr(7))) {
                issue(file.string(),
                      makeError(ErrorCode::ParseError, "Ollama manifest '" + file.string() +
                                                           "' has a malformed digest '" +
                                                           digest.substr(0, 80) + "'"));
                return;
            }
            const fs::path blob = root / "blobs" / ("sha256-" + digest.substr(7));
            if (media == kOllamaModelLayer)
                model_blob = blob;
            else
                projectors.push_back(blob.string());
        }
        if (!model_blob) return; // not a GGUF model (e.g. only an adapter or template)
        if (!firstSight(*model_blob, /*dir=*/false)) {
            // Several tags share one blob; report each tag, but a missing blob is an issue.
            std::error_code sec;
            if (!fs::exists(*model_blob, sec)) {
                issue(model_blob->string(),
                      makeError(ErrorCode::NotFound, "Ollama model '" + name + "': blob '" +
                                                         model_blob->string() + "' is missing"));
                return;
            }
        }
        auto m = openGgufModel(model_blob->string());
        if (!m) {
            issue(model_blob->string(), m.error());
            return;
        }
        ScannedModel s;
        s.name = std::move(name);
        s.source = ModelSource::Ollama;
        s.path = model_blob->string();
        s.is_projector = m->is_projector;
        s.model = std::move(*m);
        s.projector_paths = std::move(projectors);
        found(std::move(s));
    }

    const ModelScanOptions& opts_;
    const std::function<void(const ModelScanProgress&)>& progress_;
    const std::atomic<bool>* cancel_;
    ModelScanResult result_;
    ModelScanProgress progress_state_;
    std::set<FileId> visited_dirs_;
    std::set<FileId> seen_files_;
    std::set<std::string> split_groups_;
};

} // namespace

ModelScanOptions ModelScanOptions::fromEnvironment() {
    ModelScanOptions o;
    if (const char* h = std::getenv("HOME")) o.home = h;
    for (const char* name : {"LLAMA_CACHE", "XDG_CACHE_HOME", "HF_HUB_CACHE",
                             "HUGGINGFACE_HUB_CACHE", "HF_HOME", "OLLAMA_MODELS"})
        if (const char* v = std::getenv(name); v && *v) o.env[name] = v;
    return o;
}

std::vector<ModelScanRoot> modelScanRoots(const ModelScanOptions& o) {
    std::vector<ModelScanRoot> roots;
    if (o.default_locations) {
        const std::string home = o.home;
        const std::string xdg = envOr(o, "XDG_CACHE_HOME");
        const std::string cache = !xdg.empty() ? xdg : home.empty() ? "" : home + "/.cache";
        // llama.cpp common/common.cpp fs_get_cache_directory: $LLAMA_CACHE, else
        // $XDG_CACHE_HOME or ~/.cache, plus "llama.cpp".
        if (const std::string lc = envOr(o, "LLAMA_CACHE"); !lc.empty())
            roots.push_back({ModelSource::LlamaCppCache, lc});
        else if (!cache.empty())
            roots.push_back({ModelSource::LlamaCppCache, cache + "/llama.cpp"});
        // llama.cpp common/hf-cache.cpp get_cache_directory, without LLAMA_CACHE (above):
        // HF_HUB_CACHE, HUGGINGFACE_HUB_CACHE, HF_HOME/hub, XDG_CACHE_HOME/huggingface/hub,
        // ~/.cache/huggingface/hub.
        std::string hub = envOr(o, "HF_HUB_CACHE");
        if (hub.empty()) hub = envOr(o, "HUGGINGFACE_HUB_CACHE");
        if (hub.empty() && !envOr(o, "HF_HOME").empty()) hub = envOr(o, "HF_HOME") + "/hub";
        if (hub.empty() && !cache.empty()) hub = cache + "/huggingface/hub";
        if (!hub.empty()) roots.push_back({ModelSource::HuggingFace, hub});
        if (!home.empty()) {
            roots.push_back({ModelSource::LmStudio, home + "/.lmstudio/models"});
            roots.push_back({ModelSource::LmStudio, home + "/.cache/lm-studio/models"});
        }
        // Ollama: $OLLAMA_MODELS, else ~/.ollama/models (ollama envconfig.Models).
        if (const std::string om = envOr(o, "OLLAMA_MODELS"); !om.empty())
            roots.push_back({ModelSource::Ollama, om});
        else if (!home.empty())
            roots.push_back({ModelSource::Ollama, home + "/.ollama/models"});
    }
    for (const auto& f : o.extra_folders)
        roots.push_back({ModelSource::UserFolder, f});
    return roots;
}

ModelScanResult scanForModels(const ModelScanOptions& options,
                              const std::function<void(const ModelScanProgress&)>& progress,
                              const std::atomic<bool>* cancel) {
    return Scanner(options, progress, cancel).run();
}

} // namespace headroom
