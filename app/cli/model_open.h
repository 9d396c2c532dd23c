// Opens a model header wherever it lives: a local GGUF (first part of a split model) or, for
// https://, http:// and hf:OWNER/REPO[:QUANT], over HTTP ranges (core/remote), with the fetch
// progress on stderr. Shared by plan/export (resolveModel) and inspect.
#pragma once

#include "gguf/gguf_reader.h"
#include "result.h"

#include <string>

namespace headroom::cli {

Result<GgufModel> openModelHeader(const std::string& path_or_url);

} // namespace headroom::cli
