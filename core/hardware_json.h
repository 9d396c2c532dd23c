// JSON form of a HardwareSnapshot: saved hardware profiles (`--hardware FILE.json`), the probe's
// output (`headroom-cli probe --json`, read back by the GUI from a child process), the built-in
// presets and the `hardware` object of `plan --json` all use this one shape, so a probe result
// saved to a file is a profile and a preset is a profile with an id.
//
//   { "schema": "headroom.hardware/1", "label", "source", "uma",
//     "devices": [ { "name", "backend", "vendor_id": "0x10de", "device_id": "0x2684",
//                    "pci_address", "driver", "device_type", "uuid", "integrated",
//                    "total_bytes", "free_bytes": int|null, "memory_provenance",
//                    "bandwidth_gbs", "bandwidth_provenance", "fp16_tflops", "fp16_provenance",
//                    "pcie": { "gen", "width", "provenance" },
//                    "heaps": [ { "size_bytes", "device_local", "budget_bytes", "usage_bytes" } ],
//                    "note" } ],
//     "ignored_devices": [ same shape ],
//     "ram": { "total_bytes", "available_bytes": int|null, "provenance", "available_provenance",
//              "swap_total_bytes", "swap_free_bytes", "bandwidth_gbs", "bandwidth_provenance",
//              "cgroup": null | { "version", "limit_bytes", "usage_bytes" } },
//     "cpu": { "name", "threads", "tflops", "tflops_provenance" },
//     "notes": [ "..." ] }
//
// Byte counts are integers in bytes. Vendor and device ids are written as "0x…" strings and read
// as either strings or integers. Unknown keys are ignored (newer writers may add some); a missing
// optional key takes the field's default; a key of the wrong type is an error naming the field.
#pragma once

#include "hardware.h"
#include "result.h"

#include <nlohmann/json.hpp>

#include <string>

namespace headroom {

inline constexpr const char* kHardwareSchema = "headroom.hardware/1";

// Bandwidths beyond 100 TB/s and throughputs beyond 100 PFLOPS are typos, not hardware; the
// probe drops larger readings with a note and profiles are refused with them. Not knobs.
inline constexpr double kMaxPlausibleGbs = 100000;
inline constexpr double kMaxPlausibleTflops = 100000;
// Devices seen but not planned for (software rasterisers, iGPUs, unknown-size GPUs): far more
// than any host carries, small enough that a hostile list cannot make the output huge.
inline constexpr std::size_t kMaxIgnoredDevices = 64;

nlohmann::json gpuDeviceToJson(const GpuDevice& g);
// The whole snapshot including "schema".
nlohmann::json hardwareToJson(const HardwareSnapshot& hw);

// Reads a snapshot object. `where` prefixes field names in errors ("presets[3]"). A "schema" key,
// when present, must be kHardwareSchema. The result also passes validateSnapshot().
Result<HardwareSnapshot> hardwareFromJson(const nlohmann::json& j, const std::string& where = "");
// Parses text first; ParseError names the line/column nlohmann reports.
Result<HardwareSnapshot> hardwareFromJsonText(const std::string& text,
                                              const std::string& where = "");

// nlohmann parse with the exception kept inside core: ParseError "<what> is not valid JSON",
// details carry nlohmann's line/column message.
Result<nlohmann::json> parseJsonText(const std::string& text, const std::string& what);

// Profile files. Loading sets source = "file:PATH". Saving is atomic and refuses to replace an
// existing file unless `overwrite`.
Result<HardwareSnapshot> loadHardwareProfile(const std::string& path);
Result<bool> saveHardwareProfile(const std::string& path, const HardwareSnapshot& hw,
                                 bool overwrite);

} // namespace headroom
