// libFuzzer target for the hardware-profile reader (--hardware FILE, the probe's JSON read back by
// the GUI) and the presets reader: any bytes give a snapshot or an Error, never an exception,
// crash or hang. A snapshot that loads must print and load back unchanged in size, which is what
// `probe --save` then `plan --hardware` relies on.
#include "hardware_json.h"
#include "hardware_presets.h"
#include "text_file.h"

#include <cstddef>
#include <cstdint>
#include <string>

using namespace headroom;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    const std::string text(reinterpret_cast<const char*>(data), size);
    const auto hw = hardwareFromJsonText(text, "");
    if (hw) {
        // Every size the reader accepts is in range; printing cannot throw (invalid UTF-8 in a
        // name is replaced) and what is printed reads back to the same figures.
        if (hw->ram_total > kMaxPlausibleBytes || hw->gpus.size() > kMaxDevices) __builtin_trap();
        const std::string out = dumpJson(hardwareToJson(*hw));
        const auto back = hardwareFromJsonText(out, "");
        if (!back || back->ram_total != hw->ram_total || back->gpus.size() != hw->gpus.size())
            __builtin_trap();
        for (std::size_t i = 0; i < hw->gpus.size(); ++i)
            if (back->gpus[i].total_bytes != hw->gpus[i].total_bytes) __builtin_trap();
    } else if (hw.error().message.empty()) {
        __builtin_trap(); // every refusal says what is wrong
    }
    const auto presets = parsePresets(text);
    if (!presets && presets.error().message.empty()) __builtin_trap();
    return 0;
}
