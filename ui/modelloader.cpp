#include "modelloader.h"

#include "core/gguf/gguf_reader.h"
#include "core/gguf/model_scanner.h"
#include "core/remote/remote_gguf.h"

#include "arch/gguf_siblings.h"
#include "arch/shape_from_gguf.h"

#include <QFileInfo>
#include <QPromise>
#include <QtConcurrent/QtConcurrentRun>

namespace headroom::ui {

Result<ModelShape> loadModelFile(const QString& path) {
    // https://… and hf:OWNER/REPO[:QUANT] (File > Open URL…): the header over HTTP ranges
    // (core/remote), on this worker thread like a file.
    const bool is_remote = remote::isRemoteModelRef(path.toStdString());
    const std::string p =
        is_remote ? path.toStdString() : QFileInfo(path).absoluteFilePath().toStdString();
    auto model = is_remote ? remote::openRemoteGgufModel(p, remote::remoteOptionsFromEnvironment())
                           : openGgufModel(p);
    if (!model) return model.error();
    if (model->is_projector)
        return makeError(ErrorCode::Unsupported,
                         p + " is a multimodal projector (mmproj), not a model");
    auto shape = shapeFromGguf(*model);
    // Other quants of the model beside the file: the quant selector and the smaller-quant
    // remedy switch to them, priced with their own headers.
    if (shape && !is_remote) addGgufFolderSiblings(*shape, p);
    return shape;
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
