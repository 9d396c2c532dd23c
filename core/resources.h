// Locating shipped data files (catalog, hardware presets): an installed package keeps them in
// <prefix>/share/headroom, a build tree uses the source tree's resources/, and
// HEADROOM_RESOURCES overrides both (tests, relocated installs).
#pragma once

#include "atomic_write.h"
#include "result.h"

#include <string>
#include <vector>

namespace headroom {

// Directories searched, in order: $HEADROOM_RESOURCES, <exe>/../share/headroom, the source tree.
std::vector<std::string> resourceSearchPath();
// Full path of the first existing `name`, or NotFound naming every place looked; IoError when
// the first one found is not a regular file (a FIFO, a directory).
Result<std::string> findResource(const std::string& name);
// Whole file as text via readRegularTextFile() (text_file.h): regular files only, size-capped.
Result<std::string> readTextFile(const std::string& path);
// Output files: writeFileAtomically() lives in atomic_write.h (included for callers).

} // namespace headroom
