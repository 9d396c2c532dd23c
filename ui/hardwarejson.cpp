#include "hardwarejson.h"

#include "hardware_json.h"
#include "text_file.h"

#include <QJsonDocument>

namespace headroom::ui {

// One document shape for profiles, presets and the probe's output: core/hardware_json.h.

QJsonObject snapshotToJson(const HardwareSnapshot& hw) {
    // dumpJson: a name that is not valid UTF-8 is replaced instead of throwing.
    return QJsonDocument::fromJson(QByteArray::fromStdString(dumpJson(hardwareToJson(hw), -1)))
        .object();
}

Result<HardwareSnapshot> snapshotFromJson(const QByteArray& json) {
    return hardwareFromJsonText(json.toStdString());
}

Result<HardwareSnapshot> snapshotFromJsonObject(const QJsonObject& object) {
    return snapshotFromJson(QJsonDocument(object).toJson(QJsonDocument::Compact));
}

} // namespace headroom::ui
