// Locating shipped data files (catalog, hardware presets): an installed package keeps them in
// <prefix>/share/headroom, a build tree uses the source tree's resources/, and
// HEADROOM_RESOURCES overrides both (tests, relocated installs).
#pragma once

#include "result.h"

#include <string>
#include <vector>

namespace headroom {

// Directories searched, in order: $HEADROOM_RESOURCES, <exe>/../share/headroom, the source tree.
std::vector<std::string> resourceSearchPath();
// Full path of the first existing `name`, or NotFound naming every place looked.
Result<std::string> findResource(const std::string& name);
// Whole file as text (resources are small); IoError names the path.
Result<std::string> readTextFile(const std::string& path);
// Writes via a temporary file in the same folder and rename(), so a crash never leaves a torn
// file; refuses to replace an existing file unless `overwrite`.
Result<bool> writeFileAtomically(const std::string& path, const std::string& contents,
                                 bool overwrite);

} // namespace headroom
