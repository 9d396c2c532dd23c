// HardwareSnapshot <-> JSON for saved profiles, the saved window state and reading
// `headroom-cli probe --json`: Qt-typed wrappers over core/hardware_json.h, so the GUI writes
// exactly the files the CLI reads (`--hardware FILE.json`).
#pragma once

#include "core/hardware.h"
#include "core/result.h"

#include <QByteArray>
#include <QJsonObject>

namespace headroom::ui {

QJsonObject snapshotToJson(const HardwareSnapshot& hw);
// Names the first malformed field.
Result<HardwareSnapshot> snapshotFromJson(const QByteArray& json);
Result<HardwareSnapshot> snapshotFromJsonObject(const QJsonObject& object);

} // namespace headroom::ui
