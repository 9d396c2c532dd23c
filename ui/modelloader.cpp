#include "modelloader.h"

#include "core/gguf/gguf_reader.h"

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
    return shapeFromGgufFile(p);
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
        const QStringList files = findModelFiles(folder);
        promise.setProgressRange(0, int(files.size()));
        int done = 0;
        for (const QString& f : files) {
            if (promise.isCanceled()) return;
            ScanItem item;
            item.path = f;
            auto shape = loadModelFile(f);
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
