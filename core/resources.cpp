#include "resources.h"

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
        std::error_code ec;
        if (fs::is_regular_file(p, ec)) return p.string();
        looked += (looked.empty() ? "" : ", ") + p.string();
    }
    return makeError(ErrorCode::NotFound, "resource '" + name + "' not found",
                     "looked in: " + looked);
}

Result<std::string> readTextFile(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    if (!in)
        return makeError(ErrorCode::IoError, "cannot open '" + path + "': " + std::strerror(errno));
    std::ostringstream ss;
    ss << in.rdbuf();
    if (in.bad()) return makeError(ErrorCode::IoError, "cannot read '" + path + "'");
    return ss.str();
}

Result<bool> writeFileAtomically(const std::string& path, const std::string& contents,
                                 bool overwrite) {
    std::error_code ec;
    if (!overwrite && fs::exists(path, ec))
        return makeError(ErrorCode::InvalidArgument, "'" + path + "' already exists",
                         "pass --force to replace it");
    const fs::path target(path);
    const fs::path dir = target.has_parent_path() ? target.parent_path() : fs::path(".");
    std::string tmpl = (dir / ("." + target.filename().string() + ".XXXXXX")).string();
    const int fd = ::mkstemp(tmpl.data());
    if (fd < 0)
        return makeError(ErrorCode::IoError, "cannot create a temporary file next to '" + path +
                                                 "': " + std::strerror(errno));
    size_t done = 0;
    while (done < contents.size()) {
        const ssize_t n = ::write(fd, contents.data() + done, contents.size() - done);
        if (n < 0) {
            if (errno == EINTR) continue;
            const std::string why = std::strerror(errno);
            ::close(fd);
            ::unlink(tmpl.c_str());
            return makeError(ErrorCode::IoError, "cannot write '" + path + "': " + why);
        }
        done += static_cast<size_t>(n);
    }
    if (::fsync(fd) != 0 || ::close(fd) != 0) {
        ::unlink(tmpl.c_str());
        return makeError(ErrorCode::IoError,
                         "cannot flush '" + path + "': " + std::strerror(errno));
    }
    ::chmod(tmpl.c_str(), 0644);
    if (!overwrite && fs::exists(path, ec)) { // raced with another writer: keep theirs
        ::unlink(tmpl.c_str());
        return makeError(ErrorCode::InvalidArgument, "'" + path + "' already exists",
                         "pass --force to replace it");
    }
    if (std::rename(tmpl.c_str(), path.c_str()) != 0) {
        const std::string why = std::strerror(errno);
        ::unlink(tmpl.c_str());
        return makeError(ErrorCode::IoError, "cannot replace '" + path + "': " + why);
    }
    return true;
}

} // namespace headroom
