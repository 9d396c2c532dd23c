// Built-in hardware presets (resources/presets.json): machines people plan for, with sourced
// figures, so a plan can be made for hardware one does not own yet (`--preset ID`).
#pragma once

#include "hardware.h"
#include "result.h"

#include <string>
#include <vector>

namespace headroom {

inline constexpr const char* kPresetsSchema = "headroom.presets/1";

struct HardwarePreset {
    std::string id;       // "rtx-4090"
    std::string citation; // where the numbers come from (the entry's "source")
    HardwareSnapshot hw;  // source = "preset:<id>", blank provenances filled with "preset"
};

// Parses a presets document; errors name the entry ("presets[3].devices[0].total_bytes").
// Ids must be unique, non-empty, lower-case [a-z0-9-].
Result<std::vector<HardwarePreset>> parsePresets(const std::string& text);
// The shipped file, located with findResource("presets.json").
Result<std::vector<HardwarePreset>> loadBuiltinPresets();
// One preset by id; NotFound lists the known ids.
Result<HardwareSnapshot> presetSnapshot(const std::string& id);

} // namespace headroom
