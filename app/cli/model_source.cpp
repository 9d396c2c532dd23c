// Where a plan's model comes from: the built-in catalog (--model ID[:QUANT]) or a GGUF file.
#include "arch/shape_from_gguf.h"
#include "catalog.h"
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
        auto catalog = loadBuiltinCatalog();
        if (!catalog) return catalog.error();
        return catalog->shape(f.model_id);
    }
    if (remote::isRemoteModelRef(f.path)) {
        auto m = openModelHeader(f.path);
        if (!m) return m.error();
        return shapeFromGguf(*m);
    }
    auto shape = shapeFromGgufFile(f.path);
    // A model file that is missing or unreadable is "unreadable input" (exit 3), not a bad
    // argument like an unknown catalog id.
    if (!shape && shape.error().code == ErrorCode::NotFound)
        return makeError(ErrorCode::IoError, shape.error().message, shape.error().details);
    return shape;
}

} // namespace headroom::cli
