#include "modelloader.h"

#include "core/gguf/gguf_reader.h"
#include "core/gguf/model_scanner.h"

// The header -> ModelShape derivation (core/arch) once it is in the tree; without it a file can
// still be checked, but not priced.
#if __has_include("arch/shape_from_gguf.h")
#include "arch/shape_from_gguf.h"
#define HEADROOM_HAVE_SHAPE_FROM_GGUF 1
#endif

#include <QDirIterator>
#include <QFileInfo>
#include <QPromise>
#include <QtConcurrent/QtConcurrentRun>

namespace headroom::ui {

Result<ModelShape> loadModelFile(const QString& path) {
    const std::string p = QFileInfo(path).absoluteFilePath().toStdString();
    auto model = openGgufModel(p);
    if (!model) return model.error();
    if (model->is_projector)
        return makeError(ErrorCode::Unsupported,
                         p + " is a multimodal projector (mmproj), not a model");
#ifdef HEADROOM_HAVE_SHAPE_FROM_GGUF
    // core/arch declares shapeFromGgufFile() but main does not define it yet; the adapter is
    // three lines, so the GUI feeds shapeFromInput() the opened model itself (metadata of part
    // 1, the tensors of every part) and reads the file only once.
    ShapeInput in;
    in.id = p;
    for (const auto& [key, value] : model->metadata().metadata)
        in.meta.emplace(key, value);
    for (const GgufFile& part : model->parts)
        for (const GgufTensorInfo& t : part.tensors)
            in.tensors.push_back(GgufTensorDesc{t.name, t.dims, t.type, t.bytes});
    in.file_bytes = model->file_bytes;
    return shapeFromInput(in);
#else
    return makeError(
        ErrorCode::Unsupported,
        p + ": this build cannot derive a model shape from a GGUF header (architecture " +
            model->architecture() + ")");
#endif
}

QStringList findModelFiles(const QString& folder) {
    QStringList out;
    QDirIterator it(folder, {QStringLiteral("*.gguf"), QStringLiteral("*.GGUF")},
                    QDir::Files | QDir::Readable,
                    QDirIterator::Subdirectories | QDirIterator::FollowSymlinks);
    while (it.hasNext()) {
        const QString path = it.next();
        // Parts 2..n of a split model are read with part 1.
        if (auto split = parseGgufSplitName(path.toStdString()); split && split->index != 1)
            continue;
        out << path;
    }
    out.sort();
    return out;
}

QFuture<ScanItem> scanFolder(const QString& folder) {
    return QtConcurrent::run([folder](QPromise<ScanItem>& promise) {
        // The GGUF helper's scanner finds the files (split parts grouped, projectors marked,
        // symlink loops avoided); each model's header then becomes a shape.
        ModelScanOptions options;
        options.default_locations = false;
        options.extra_folders = {folder.toStdString()};
        std::atomic<bool> cancel{false};
        const ModelScanResult found = scanForModels(
            options,
            [&](const ModelScanProgress& p) {
                if (promise.isCanceled()) cancel = true;
                promise.setProgressValueAndText(0, QString::number(p.files_seen));
            },
            &cancel);
        for (const ModelScanIssue& issue : found.issues) {
            ScanItem item;
            item.path = qs(issue.path);
            item.error = qs(issue.error.message);
            promise.addResult(std::move(item));
        }
        std::vector<const ScannedModel*> models;
        for (const ScannedModel& m : found.models)
            if (!m.is_projector) models.push_back(&m);
        promise.setProgressRange(0, int(models.size()));
        int done = 0;
        for (const ScannedModel* m : models) {
            if (promise.isCanceled()) return;
            ScanItem item;
            item.path = qs(m->path);
            auto shape = loadModelFile(item.path);
            if (shape)
                item.model = std::move(shape).value();
            else
                item.error = qs(shape.error().message);
            promise.addResult(std::move(item));
            promise.setProgressValue(++done);
        }
    });
}

} // namespace headroom::ui
