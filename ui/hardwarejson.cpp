#include "hardwarejson.h"

// The core's reader/writer (the probe's own document shape) once it is in the tree; this file's
// Qt reader of the plain field names is the fallback for builds without it.
#if __has_include("hardware_json.h")
#include "hardware_json.h"
#define HEADROOM_HAVE_CORE_HARDWARE_JSON 1
#endif

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonParseError>

namespace headroom::ui {

namespace {

QJsonValue bytesValue(Bytes b) {
    // JSON numbers are doubles: exact up to 2^53 bytes (8 PiB), far above kMaxPlausibleBytes.
    return QJsonValue(static_cast<double>(b));
}

QJsonValue optionalBytes(const std::optional<Bytes>& b) {
    return b ? bytesValue(*b) : QJsonValue(QJsonValue::Null);
}

QString str(const std::string& s) {
    return QString::fromStdString(s);
}

// Reads one field; absent means "keep the default". Errors name the path of the field.
struct Reader {
    const QJsonObject& o;
    QString path;
    std::optional<Error> error;

    void fail(const QString& key, const QString& what) {
        if (!error)
            error = makeError(ErrorCode::ParseError,
                              (path + key + QStringLiteral(": ") + what).toStdString());
    }
    void text(const char* key, std::string& out) {
        const QJsonValue v = o.value(QLatin1String(key));
        if (v.isUndefined() || v.isNull()) return;
        if (!v.isString()) return fail(QLatin1String(key), QStringLiteral("expected a string"));
        out = v.toString().toStdString();
    }
    void number(const char* key, double& out) {
        const QJsonValue v = o.value(QLatin1String(key));
        if (v.isUndefined() || v.isNull()) return;
        if (!v.isDouble() || v.toDouble() < 0)
            return fail(QLatin1String(key), QStringLiteral("expected a non-negative number"));
        out = v.toDouble();
    }
    template <typename U>
    void integer(const char* key, U& out) {
        double d = -1;
        const QJsonValue v = o.value(QLatin1String(key));
        if (v.isUndefined() || v.isNull()) return;
        number(key, d);
        if (error) return;
        if (d != static_cast<double>(static_cast<std::uint64_t>(d)) ||
            d > static_cast<double>(std::numeric_limits<U>::max()))
            return fail(QLatin1String(key), QStringLiteral("expected a whole number in range"));
        out = static_cast<U>(d);
    }
    void bytes(const char* key, Bytes& out) {
        integer(key, out);
        if (!error && out > kMaxPlausibleBytes)
            fail(QLatin1String(key), QStringLiteral("larger than 1 PiB"));
    }
    void optBytes(const char* key, std::optional<Bytes>& out) {
        const QJsonValue v = o.value(QLatin1String(key));
        if (v.isUndefined() || v.isNull()) return;
        Bytes b = 0;
        bytes(key, b);
        if (!error) out = b;
    }
    void boolean(const char* key, bool& out) {
        const QJsonValue v = o.value(QLatin1String(key));
        if (v.isUndefined() || v.isNull()) return;
        if (!v.isBool()) return fail(QLatin1String(key), QStringLiteral("expected true or false"));
        out = v.toBool();
    }
};

} // namespace

QJsonObject snapshotToJson(const HardwareSnapshot& hw) {
#ifdef HEADROOM_HAVE_CORE_HARDWARE_JSON
    return QJsonDocument::fromJson(QByteArray::fromStdString(hardwareToJson(hw).dump())).object();
#endif
    QJsonArray gpus;
    for (const GpuDevice& g : hw.gpus) {
        QJsonObject o;
        o[QStringLiteral("name")] = str(g.name);
        o[QStringLiteral("backend")] = str(g.backend);
        o[QStringLiteral("vendor_id")] = static_cast<double>(g.vendor_id);
        o[QStringLiteral("device_id")] = static_cast<double>(g.device_id);
        o[QStringLiteral("pci_address")] = str(g.pci_address);
        o[QStringLiteral("driver")] = str(g.driver);
        o[QStringLiteral("integrated")] = g.integrated;
        o[QStringLiteral("total_bytes")] = bytesValue(g.total_bytes);
        o[QStringLiteral("free_bytes")] = optionalBytes(g.free_bytes);
        o[QStringLiteral("memory_provenance")] = str(g.memory_provenance);
        o[QStringLiteral("bandwidth_gbs")] = g.bandwidth_gbs;
        o[QStringLiteral("bandwidth_provenance")] = str(g.bandwidth_provenance);
        o[QStringLiteral("fp16_tflops")] = g.fp16_tflops;
        o[QStringLiteral("pcie_gen")] = static_cast<double>(g.pcie_gen);
        o[QStringLiteral("pcie_width")] = static_cast<double>(g.pcie_width);
        gpus.append(o);
    }
    QJsonArray notes;
    for (const auto& n : hw.notes)
        notes.append(str(n));
    QJsonObject o;
    o[QStringLiteral("label")] = str(hw.label);
    o[QStringLiteral("source")] = str(hw.source);
    o[QStringLiteral("gpus")] = gpus;
    o[QStringLiteral("uma")] = hw.uma;
    o[QStringLiteral("ram_total")] = bytesValue(hw.ram_total);
    o[QStringLiteral("ram_available")] = optionalBytes(hw.ram_available);
    o[QStringLiteral("ram_provenance")] = str(hw.ram_provenance);
    o[QStringLiteral("swap_total")] = bytesValue(hw.swap_total);
    o[QStringLiteral("cgroup_limit")] = optionalBytes(hw.cgroup_limit);
    o[QStringLiteral("host_bandwidth_gbs")] = hw.host_bandwidth_gbs;
    o[QStringLiteral("host_bandwidth_provenance")] = str(hw.host_bandwidth_provenance);
    o[QStringLiteral("cpu_tflops")] = hw.cpu_tflops;
    o[QStringLiteral("cpu_threads")] = static_cast<double>(hw.cpu_threads);
    o[QStringLiteral("notes")] = notes;
    return o;
}

Result<HardwareSnapshot> snapshotFromJsonObject(const QJsonObject& top) {
    QJsonObject object = top;
    for (const char* wrapper : {"hardware", "snapshot"})
        if (top.value(QLatin1String(wrapper)).isObject() && !top.contains(QStringLiteral("gpus"))) {
            object = top.value(QLatin1String(wrapper)).toObject();
            break;
        }
    HardwareSnapshot hw;
    Reader r{object, QString(), std::nullopt};
    r.text("label", hw.label);
    r.text("source", hw.source);
    r.boolean("uma", hw.uma);
    r.bytes("ram_total", hw.ram_total);
    r.optBytes("ram_available", hw.ram_available);
    r.text("ram_provenance", hw.ram_provenance);
    r.bytes("swap_total", hw.swap_total);
    r.optBytes("cgroup_limit", hw.cgroup_limit);
    r.number("host_bandwidth_gbs", hw.host_bandwidth_gbs);
    r.text("host_bandwidth_provenance", hw.host_bandwidth_provenance);
    r.number("cpu_tflops", hw.cpu_tflops);
    r.integer("cpu_threads", hw.cpu_threads);
    if (r.error) return *r.error;
    const QJsonValue gpus = object.value(QStringLiteral("gpus"));
    if (!gpus.isUndefined() && !gpus.isArray())
        return makeError(ErrorCode::ParseError, "gpus: expected an array");
    const QJsonArray array = gpus.toArray();
    for (qsizetype i = 0; i < array.size(); ++i) {
        const QString path = QStringLiteral("gpus[%1].").arg(i);
        if (!array[i].isObject())
            return makeError(ErrorCode::ParseError, (path + "expected an object").toStdString());
        const QJsonObject go = array[i].toObject();
        GpuDevice g;
        Reader gr{go, path, std::nullopt};
        gr.text("name", g.name);
        gr.text("backend", g.backend);
        gr.integer("vendor_id", g.vendor_id);
        gr.integer("device_id", g.device_id);
        gr.text("pci_address", g.pci_address);
        gr.text("driver", g.driver);
        gr.boolean("integrated", g.integrated);
        gr.bytes("total_bytes", g.total_bytes);
        gr.optBytes("free_bytes", g.free_bytes);
        gr.text("memory_provenance", g.memory_provenance);
        gr.number("bandwidth_gbs", g.bandwidth_gbs);
        gr.text("bandwidth_provenance", g.bandwidth_provenance);
        gr.number("fp16_tflops", g.fp16_tflops);
        gr.integer("pcie_gen", g.pcie_gen);
        gr.integer("pcie_width", g.pcie_width);
        if (gr.error) return *gr.error;
        hw.gpus.push_back(std::move(g));
    }
    for (const QJsonValue n : object.value(QStringLiteral("notes")).toArray())
        hw.notes.push_back(n.toString().toStdString());
    if (auto ok = validateSnapshot(hw); !ok) return ok.error();
    return hw;
}

Result<HardwareSnapshot> snapshotFromJson(const QByteArray& json) {
#ifdef HEADROOM_HAVE_CORE_HARDWARE_JSON
    return hardwareFromJsonText(json.toStdString());
#endif
    QJsonParseError pe;
    const QJsonDocument doc = QJsonDocument::fromJson(json, &pe);
    if (pe.error != QJsonParseError::NoError)
        return makeError(ErrorCode::ParseError, "not valid JSON at offset " +
                                                    std::to_string(pe.offset) + ": " +
                                                    pe.errorString().toStdString());
    if (!doc.isObject())
        return makeError(ErrorCode::ParseError, "expected a JSON object describing the machine");
    return snapshotFromJsonObject(doc.object());
}

} // namespace headroom::ui
