// Where a plan's model comes from: the built-in catalog (--model ID[:QUANT]) or a GGUF file.
#include "catalog.h"
#include "plan_args.h"

#include <filesystem>

namespace headroom::cli {

Result<ModelShape> resolveModel(const ModelFlags& f) {
    if (!f.path.empty() && !f.model_id.empty())
        return makeError(ErrorCode::InvalidArgument, "give either MODEL.gguf or --model ID, not both");
    if (f.model_id.empty() && f.path.empty())
        return makeError(ErrorCode::InvalidArgument, "no model given",
                         "give MODEL.gguf or --model ID (see 'headroom-cli catalog')");
    if (!f.model_id.empty()) {
        auto catalog = loadBuiltinCatalog();
        if (!catalog) return catalog.error();
        return catalog->shape(f.model_id);
    }
    return makeError(ErrorCode::Unsupported, "cannot read '" + f.path + "' yet");
}

} // namespace headroom::cli
