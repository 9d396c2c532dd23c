#include "resources.h"

#include "atomic_write.h"
#include "text_file.h"

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fcntl.h>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <sys/stat.h>
#include <unistd.h>

namespace headroom {

namespace fs = std::filesystem;

std::vector<std::string> resourceSearchPath() {
    std::vector<std::string> dirs;
    if (const char* env = std::getenv("HEADROOM_RESOURCES"); env && *env) dirs.emplace_back(env);
    std::error_code ec;
    const fs::path exe = fs::read_symlink("/proc/self/exe", ec);
    if (!ec) dirs.push_back((exe.parent_path().parent_path() / "share" / "headroom").string());
#ifdef HEADROOM_SOURCE_RESOURCES
    dirs.emplace_back(HEADROOM_SOURCE_RESOURCES);
#endif
    return dirs;
}

Result<std::string> findResource(const std::string& name) {
    std::string looked;
    for (const auto& dir : resourceSearchPath()) {
        const fs::path p = fs::path(dir) / name;
        struct stat st {};
        if (::stat(p.c_str(), &st) == 0) {
            if (S_ISREG(st.st_mode)) return p.string();
            // Something is there but it is no file: say so rather than silently falling back to
            // the next directory (or hanging later on a FIFO).
            return makeError(ErrorCode::IoError, "resource '" + p.string() + "' is " +
                                                     fileKindName(st.st_mode) +
                                                     ", not a regular file");
        }
        looked += (looked.empty() ? "" : ", ") + p.string();
    }
    return makeError(ErrorCode::NotFound, "resource '" + name + "' not found",
                     "looked in: " + looked);
}

Result<std::string> readTextFile(const std::string& path) {
    return readRegularTextFile(path);
}

} // namespace headroom
