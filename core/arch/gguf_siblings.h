// Other quants of a local GGUF's model in the same folder ("Qwen3-32B-Q6_K.gguf" next to
// "Qwen3-32B-Q4_K_M.gguf"): each one's header read with the GGUF reader and turned into its own
// shape, so the smaller-quant remedy prices the real file beside the one opened, as
// catalogShape() does for the catalog's quants.
#pragma once

#include "model_shape.h"

#include <cstddef>
#include <string>
#include <vector>

namespace headroom {

// Files a folder look examines at most: a quant family is a handful of files, and a download
// folder of hundreds of unrelated models must not make opening one model read every header.
// Not a knob.
inline constexpr std::size_t kMaxSiblingFilesExamined = 64;

// The quants of `shape`'s model among the *.gguf files in the folder of `path` (not below it):
// same general.architecture, same block count, width and vocabulary, and the same general.name
// when both files carry one. The file itself, its split parts, projectors, unreadable files and
// exact duplicates (same quant, same size) are left out. Largest file first; every entry has
// its shape (without siblings of its own) and its absolute path as `ref`.
std::vector<QuantSibling> ggufFolderSiblings(const ModelShape& shape, const std::string& path);

// Sets shape.siblings from the folder of `path` (a local file; the caller skips remote refs).
void addGgufFolderSiblings(ModelShape& shape, const std::string& path);

} // namespace headroom
