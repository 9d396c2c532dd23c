// HardwareSnapshot <-> JSON for saved profiles and for reading `headroom-cli probe --json`.
// Keys are the struct's field names (the names validateSnapshot() reports), byte counts are
// integers, and an unknown live figure is absent or null — never 0, which would mean "full".
#pragma once

#include "core/hardware.h"
#include "core/result.h"

#include <QByteArray>
#include <QJsonObject>

namespace headroom::ui {

QJsonObject snapshotToJson(const HardwareSnapshot& hw);
// Accepts a bare snapshot object or one wrapped as {"hardware": {...}} (the probe's document);
// names the first malformed field.
Result<HardwareSnapshot> snapshotFromJson(const QByteArray& json);
Result<HardwareSnapshot> snapshotFromJsonObject(const QJsonObject& object);

} // namespace headroom::ui
