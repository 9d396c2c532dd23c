#include "arch/gguf_siblings.h"

#include "arch/shape_from_gguf.h"
#include "gguf/gguf_reader.h"

#include <algorithm>
#include <cctype>
#include <filesystem>
#include <memory>
#include <system_error>

namespace headroom {

namespace fs = std::filesystem;

namespace {

std::string lower(std::string s) {
    std::transform(s.begin(), s.end(), s.begin(),
                   [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
    return s;
}

bool sameModel(const ModelShape& a, const ModelShape& b) {
    if (a.architecture != b.architecture || a.nLayer() != b.nLayer() || a.n_embd != b.n_embd ||
        a.n_vocab != b.n_vocab)
        return false;
    // A fine-tune shares every dimension with its base: the name tells them apart when both
    // files carry one (general.name, written by llama.cpp's converter).
    return a.name.empty() || b.name.empty() || a.name == b.name;
}

} // namespace

std::vector<QuantSibling> ggufFolderSiblings(const ModelShape& shape, const std::string& path) {
    std::vector<QuantSibling> out;
    std::error_code ec;
    const fs::path self = fs::absolute(fs::path(path), ec);
    if (ec) return out;
    const fs::path dir = self.parent_path();
    const auto selfSplit = parseGgufSplitName(self.string());
    std::vector<fs::path> files;
    for (fs::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec)) {
        std::error_code fe;
        if (!it->is_regular_file(fe) || fe) continue;
        const fs::path& p = it->path();
        const std::string name = lower(p.filename().string());
        if (name.size() < 5 || name.substr(name.size() - 5) != ".gguf") continue;
        if (name.rfind("mmproj", 0) == 0) continue; // a projector, not a quant of the model
        if (fs::equivalent(p, self, fe)) continue;
        if (const auto split = parseGgufSplitName(p.string())) {
            // Part 1 stands for its split model (openGgufModel joins the others); the parts of
            // the file opened are that file.
            if (split->index != 1) continue;
            if (selfSplit && split->stem == selfSplit->stem) continue;
        }
        files.push_back(p);
    }
    // Directory order is the file system's: sort so the files examined do not depend on it.
    std::sort(files.begin(), files.end());
    if (files.size() > kMaxSiblingFilesExamined) files.resize(kMaxSiblingFilesExamined);
    for (const fs::path& p : files) {
        auto model = openGgufModel(p.string());
        // Another file's trouble is not this model's: an unreadable, incomplete or projector
        // file is simply no quant to switch to.
        if (!model || !model->complete || model->is_projector) continue;
        auto other = shapeFromGguf(*model);
        if (!other || !sameModel(shape, *other)) continue;
        if (other->quant == shape.quant && other->file_bytes == shape.file_bytes) continue;
        QuantSibling q;
        q.quant = other->quant.empty() ? p.filename().string() : other->quant;
        q.ref = p.string();
        q.file_bytes = other->file_bytes;
        q.shape = std::make_shared<const ModelShape>(std::move(*other));
        out.push_back(std::move(q));
    }
    std::stable_sort(out.begin(), out.end(), [](const QuantSibling& a, const QuantSibling& b) {
        return a.file_bytes > b.file_bytes;
    });
    return out;
}

void addGgufFolderSiblings(ModelShape& shape, const std::string& path) {
    shape.siblings = ggufFolderSiblings(shape, path);
}

} // namespace headroom
