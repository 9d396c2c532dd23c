// Where a plan's model comes from: the built-in catalog (--model ID[:QUANT]) or a GGUF file.
#include "arch/gguf_siblings.h"
#include "arch/shape_from_gguf.h"
#include "catalog.h"
#include "catalog_update.h"
#include "gguf/gguf_reader.h"
#include "model_open.h"
#include "plan_args.h"
#include "remote/remote_gguf.h"

#include <filesystem>
#include <iostream>

namespace headroom::cli {

Result<GgufModel> openModelHeader(const std::string& path_or_url) {
    if (!remote::isRemoteModelRef(path_or_url)) return openGgufModel(path_or_url);
    // https://… or hf:OWNER/REPO[:QUANT]: the header only, over HTTP ranges (core/remote).
    auto o = remote::remoteOptionsFromEnvironment();
    o.progress = [](const std::string& line) { std::cerr << "headroom-cli: " << line << "\n"; };
    return remote::openRemoteGgufModel(path_or_url, o);
}

Result<ModelShape> resolveModel(const ModelFlags& f) {
    if (!f.path.empty() && !f.model_id.empty())
        return makeError(ErrorCode::InvalidArgument,
                         "give either MODEL.gguf or --model ID, not both");
    if (f.model_id.empty() && f.path.empty())
        return makeError(ErrorCode::InvalidArgument, "no model given",
                         "give MODEL.gguf or --model ID (see 'headroom-cli catalog')");
    if (!f.model_id.empty()) {
        auto in_use = loadCatalogInUse();
        if (!in_use) return in_use.error();
        return in_use->catalog.shape(f.model_id);
    }
    const bool remote = remote::isRemoteModelRef(f.path);
    auto model = openModelHeader(f.path);
    // A model file that is missing or unreadable is "unreadable input" (exit 3), not a bad
    // argument like an unknown catalog id.
    if (!model) {
        if (!remote && (model.error().code == ErrorCode::NotFound ||
                        model.error().code == ErrorCode::InvalidArgument))
            return makeError(ErrorCode::IoError, model.error().message, model.error().details);
        return model.error();
    }
    // llama.cpp refuses to load a split model with a part missing (llama_model_loader opens
    // every split); planning part 1 alone would price a fraction of the weights and export a
    // launch that cannot start.
    if (!model->complete) {
        std::string names;
        for (const auto& p : model->missing_parts)
            names += (names.empty() ? "'" : ", '") + p + "'";
        return makeError(ErrorCode::IoError,
                         "split model '" + f.path + "' is incomplete: missing part " + names,
                         "llama.cpp loads every part; put them all next to the first");
    }
    auto shape = shapeFromGguf(*model);
    // Other quants of the model in the same folder: the smaller-quant remedy prices the real
    // file beside this one (a remote header has no folder to look in).
    if (shape && !remote) addGgufFolderSiblings(*shape, f.path);
    return shape;
}

Result<ModelShape> resolveDraftModel(const std::string& ref) {
    if (remote::isRemoteModelRef(ref) && ref.rfind("hf:", 0) != 0)
        return makeError(ErrorCode::InvalidArgument,
                         "-md/--model-draft '" + ref +
                             "': llama-server downloads no draft from "
                             "a URL",
                         "give the draft's GGUF file, an hf:user/repo reference or a catalog id");
    const bool file = ref.find('/') != std::string::npos || ref.rfind("hf:", 0) == 0 ||
                      (ref.size() > 5 && ref.substr(ref.size() - 5) == ".gguf");
    auto m = resolveModel(file ? ModelFlags{ref, ""} : ModelFlags{"", ref});
    if (!m) {
        Error e = m.error();
        e.message = "-md/--model-draft: " + e.message;
        return e;
    }
    return m;
}

} // namespace headroom::cli
