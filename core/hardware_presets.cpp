#include "hardware_presets.h"

#include "gpu_specs.h"

#include "hardware_json.h"
#include "resources.h"
#include "text_file.h"

#include <set>

namespace headroom {

using nlohmann::json;

namespace {

bool validId(const std::string& id) {
    if (id.empty() || id.size() > 64) return false;
    for (char c : id)
        if (!((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-')) return false;
    return true;
}

void fillProvenance(GpuDevice& g) {
    if (g.memory_provenance.empty()) g.memory_provenance = "preset";
    if (g.bandwidth_gbs > 0 && g.bandwidth_provenance.empty()) g.bandwidth_provenance = "preset";
    if (g.fp16_tflops > 0 && g.fp16_provenance.empty()) g.fp16_provenance = "preset";
    if (g.pcie_gen > 0 && g.pcie_provenance.empty()) g.pcie_provenance = "preset";
}

} // namespace

namespace {

Result<std::vector<HardwarePreset>> parsePresetsUnguarded(const std::string& text) {
    auto doc = parseJsonText(text, "presets file");
    if (!doc) return doc.error();
    const json& j = *doc;
    if (!j.is_object() || !j.contains("presets") || !j.at("presets").is_array())
        return makeError(ErrorCode::InvalidArgument, "presets: expected an object with an array "
                                                     "\"presets\"");
    if (j.contains("schema") && j.at("schema") != kPresetsSchema)
        return makeError(ErrorCode::Unsupported, std::string("schema: expected ") + kPresetsSchema);
    std::vector<HardwarePreset> out;
    std::set<std::string> seen;
    const json& arr = j.at("presets");
    for (size_t i = 0; i < arr.size(); ++i) {
        const std::string where = "presets[" + std::to_string(i) + "]";
        const json& e = arr[i];
        if (!e.is_object())
            return makeError(ErrorCode::InvalidArgument, where + ": expected an object");
        HardwarePreset p;
        if (!e.contains("id") || !e.at("id").is_string() ||
            !validId(p.id = e.at("id").get<std::string>()))
            return makeError(ErrorCode::InvalidArgument,
                             where + ".id: expected a lower-case id of [a-z0-9-]");
        if (!seen.insert(p.id).second)
            return makeError(ErrorCode::InvalidArgument,
                             where + ".id: '" + p.id + "' appears twice");
        if (!e.contains("source") || !e.at("source").is_string() ||
            e.at("source").get<std::string>().empty())
            return makeError(ErrorCode::InvalidArgument,
                             where + ".source: every preset cites where its numbers come from");
        p.citation = e.at("source").get<std::string>();
        json body = e;
        body.erase("id");
        body.erase("source");
        auto hw = hardwareFromJson(body, where);
        if (!hw) return hw.error();
        p.hw = std::move(*hw);
        p.hw.source = "preset:" + p.id;
        for (auto& g : p.hw.gpus) {
            // Speed facts come from the GPU table, the same figures a GPU typed by name or
            // probed by id gets (identical speeds for the same card).
            if (auto spec = gpuSpecById(g.vendor_id, g.device_id, g.name)) applyGpuSpec(g, *spec);
            fillProvenance(g);
        }
        if (p.hw.ram_provenance.empty()) p.hw.ram_provenance = "preset";
        if (p.hw.host_bandwidth_gbs > 0 && p.hw.host_bandwidth_provenance.empty())
            p.hw.host_bandwidth_provenance = "preset";
        if (p.hw.label.empty()) p.hw.label = p.id;
        out.push_back(std::move(p));
    }
    return out;
}

} // namespace

Result<std::vector<HardwarePreset>> parsePresets(const std::string& text) {
    // Each access is type-checked; the guard is for what cannot be (memory exhaustion).
    try {
        return parsePresetsUnguarded(text);
    } catch (const std::exception& e) {
        return makeError(ErrorCode::ParseError, "presets file could not be read", e.what());
    }
}

Result<std::vector<HardwarePreset>> loadBuiltinPresets() {
    auto path = findResource("presets.json");
    if (!path)
        // A missing shipped file is a broken install (unreadable input, exit 3), not an argument.
        return makeError(ErrorCode::IoError, path.error().message, path.error().details);
    auto text = readRegularTextFile(*path);
    if (!text) return text.error();
    auto presets = parsePresets(*text);
    // A bad preset is unreadable input (exit 3), the same as broken syntax.
    if (!presets) return asFileContentError(presets.error(), "'" + *path + "'");
    return presets;
}

Result<HardwareSnapshot> presetSnapshot(const std::string& id) {
    auto presets = loadBuiltinPresets();
    if (!presets) return presets.error();
    std::string ids;
    for (const auto& p : *presets) {
        if (p.id == id) return p.hw;
        ids += (ids.empty() ? "" : ", ") + p.id;
    }
    return makeError(ErrorCode::NotFound, "no hardware preset '" + id + "'", "known: " + ids);
}

} // namespace headroom
