// The thin adapter from the GGUF reader (core/gguf/gguf_reader.h) to shapeFromInput().
#include "arch/shape_from_gguf.h"
#include "gguf/gguf_reader.h"

namespace headroom {

ShapeInput shapeInputFromGguf(const GgufModel& model) {
    ShapeInput in;
    in.id = model.path;
    in.file_bytes = model.file_bytes;
    if (model.parts.empty()) return in;
    // llama.cpp reads hyper-parameters from the first split only (llama_model_loader).
    for (const auto& [key, value] : model.metadata().metadata)
        in.meta.emplace(key, value);
    std::size_t n = 0;
    for (const auto& part : model.parts)
        n += part.tensors.size();
    in.tensors.reserve(n);
    for (const auto& part : model.parts)
        for (const auto& t : part.tensors)
            in.tensors.push_back({t.name, t.dims, t.type, t.bytes});
    return in;
}

Result<ModelShape> shapeFromGguf(const GgufModel& model) {
    if (model.parts.empty())
        return makeError(ErrorCode::NotFound, model.path + ": no part of the model could be found");
    if (model.is_projector)
        return makeError(
            ErrorCode::Unsupported,
            model.path + " is a multimodal projector (general.architecture = clip), not a model",
            "pass it as --mmproj next to the model it belongs to");
    auto shape = shapeFromInput(shapeInputFromGguf(model));
    if (!shape) return shape;
    if (!model.complete) {
        std::string names;
        for (const auto& p : model.missing_parts)
            names += (names.empty() ? "" : ", ") + p;
        shape->notes.push_back("split model incomplete: missing " + names +
                               "; weight sizes cover the parts present only");
    }
    return shape;
}

Result<ModelShape> shapeFromGgufFile(const std::string& path) {
    auto model = openGgufModel(path);
    if (!model) return model.error();
    return shapeFromGguf(*model);
}

} // namespace headroom
