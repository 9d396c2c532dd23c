// The user's placement as typed, llama.cpp's flags as text (the CLI's arguments, the GUI's
// placement fields), read into the one typed PinnedPlacement the planner prices. The CLI and the
// GUI both read through here, so the same text is accepted, refused and priced the same way.
#pragma once

#include "options.h"
#include "result.h"

#include <string>
#include <vector>

namespace headroom {

struct PlacementFlags {
    std::string gpu_layers;                   // -ngl N|auto|all ("": not given)
    std::string n_cpu_moe;                    // --n-cpu-moe N ("": not given)
    bool cpu_moe = false;                     // --cpu-moe
    std::vector<std::string> override_tensor; // -ot REGEX=DEV[,…], one entry per flag
    std::string tensor_split;                 // -ts a,b,… ("": not given)
    std::string split_mode;                   // -sm layer|row|none|tensor ("": not given)
};

// An error names the flag and the accepted forms (exit 2 in the CLI, an inline message in the GUI).
Result<PinnedPlacement> readPlacementFlags(const PlacementFlags& flags);

} // namespace headroom
