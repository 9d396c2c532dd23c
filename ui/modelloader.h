// Reading models from disk for the picker: one GGUF (its header becomes a ModelShape) and a
// folder scan that finds every model file below a folder. Both run off the GUI thread.
#pragma once

#include "metatypes.h"

#include <QFuture>
#include <QString>

namespace headroom::ui {

// One GGUF (the first part of a split model is enough). Errors name the file and the problem.
Result<ModelShape> loadModelFile(const QString& path);

// What a folder scan yields: a model, or a file that could not be read (and why).
struct ScanItem {
    QString path;
    std::optional<ModelShape> model;
    QString error;
};

// Reads every model below `folder` on a worker thread (core/gguf/model_scanner finds them). The
// future reports progress (models read of models found) and one ScanItem per model or per
// unreadable file; cancel() stops it.
QFuture<ScanItem> scanFolder(const QString& folder);

} // namespace headroom::ui

Q_DECLARE_METATYPE(headroom::ui::ScanItem)
