#include "atomic_write.h"

#include "text_file.h"

#include <cerrno>
#include <climits>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fcntl.h>
#include <random>
#include <sys/stat.h>
#include <unistd.h>

namespace headroom {

namespace {

Error ioError(const std::string& message) {
    return makeError(ErrorCode::IoError, message);
}

Error existsError(const std::string& path, const std::string& what) {
    return makeError(ErrorCode::InvalidArgument, "'" + path + "' already exists" + what,
                     "pass --force to replace it");
}

// What the write will do to `path`.
struct Target {
    std::string write_path; // where the new file goes (a symlink's target when it has one)
    bool exists = false;    // something is at write_path (a regular file or a dangling link)
    bool dangling = false;
    struct stat st {}; // of the regular file being replaced (exists && !dangling)
};

Result<Target> classify(const std::string& path, bool overwrite) {
    if (path.empty()) return makeError(ErrorCode::InvalidArgument, "the output file name is empty");
    Target t;
    t.write_path = path;
    struct stat lst {};
    if (::lstat(path.c_str(), &lst) != 0) {
        if (errno == ENOENT) return t; // a new file
        return ioError("cannot write '" + path + "': " + std::strerror(errno));
    }
    if (S_ISLNK(lst.st_mode)) {
        struct stat st {};
        if (::stat(path.c_str(), &st) != 0) {
            if (errno != ENOENT)
                return ioError("cannot write '" + path + "': " + std::strerror(errno));
            t.exists = true;
            t.dangling = true;
            if (!overwrite) return existsError(path, " (a symbolic link to a missing file)");
            return t; // --force: the link itself is replaced
        }
        if (!S_ISREG(st.st_mode))
            return ioError("'" + path + "' is a symbolic link to " + fileKindName(st.st_mode) +
                           "; only a regular file is ever replaced");
        char real[PATH_MAX];
        if (!::realpath(path.c_str(), real))
            return ioError("cannot resolve '" + path + "': " + std::strerror(errno));
        t.write_path = real;
        t.exists = true;
        t.st = st;
    } else if (S_ISREG(lst.st_mode)) {
        t.exists = true;
        t.st = lst;
    } else {
        return ioError("'" + path + "' is " + fileKindName(lst.st_mode) +
                       "; only a regular file is ever replaced");
    }
    if (t.exists && !overwrite) return existsError(path, "");
    return t;
}

std::string dirOf(const std::string& p) {
    const auto slash = p.rfind('/');
    if (slash == std::string::npos) return ".";
    if (slash == 0) return "/";
    return p.substr(0, slash);
}

std::string baseOf(const std::string& p) {
    const auto slash = p.rfind('/');
    return slash == std::string::npos ? p : p.substr(slash + 1);
}

// The temporary file: unlinked on destruction unless committed.
struct TempFile {
    std::string path;
    int fd = -1;
    bool committed = false;
    ~TempFile() {
        if (fd >= 0) ::close(fd);
        if (!committed && !path.empty()) ::unlink(path.c_str());
    }
};

bool writeAll(int fd, const std::string& s) {
    std::size_t done = 0;
    while (done < s.size()) {
        const ssize_t n = ::write(fd, s.data() + done, s.size() - done);
        if (n < 0) {
            if (errno == EINTR) continue;
            return false;
        }
        done += static_cast<std::size_t>(n);
    }
    return true;
}

void syncDirectory(const std::string& dir) {
    const int d = ::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (d < 0) return;
    ::fsync(d); // best effort: the data is already synced; this makes the name durable too
    ::close(d);
}

} // namespace

Result<bool> checkOutputTarget(const std::string& path, bool overwrite) {
    auto t = classify(path, overwrite);
    if (!t) return t.error();
    return true;
}

Result<bool> writeFileAtomically(const std::string& path, const std::string& contents,
                                 bool overwrite, unsigned new_file_mode) {
    auto target = classify(path, overwrite);
    if (!target) return target.error();
    const std::string& dest = target->write_path;
    const std::string dir = dirOf(dest);

    TempFile tmp;
    std::random_device rd;
    for (int attempt = 0; attempt < 100 && tmp.fd < 0; ++attempt) {
        char suffix[16];
        std::snprintf(suffix, sizeof suffix, "%08x", static_cast<unsigned>(rd()));
        const std::string candidate = dir + "/." + baseOf(dest) + ".tmp-" + suffix;
        // open(2) applies the umask to the mode, which is what a new file should get.
        const int fd = ::open(candidate.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC,
                              static_cast<mode_t>(new_file_mode & 0777));
        if (fd >= 0) {
            tmp.fd = fd;
            tmp.path = candidate;
        } else if (errno != EEXIST) {
            return ioError("cannot create a temporary file in '" + dir + "' for '" + path +
                           "': " + std::strerror(errno));
        }
    }
    if (tmp.fd < 0)
        return ioError("cannot create a temporary file in '" + dir + "' for '" + path + "'");
    if (!writeAll(tmp.fd, contents))
        return ioError("cannot write '" + path + "': " + std::strerror(errno));
    if (target->exists && !target->dangling) {
        // --force keeps who owns the file and who may read it.
        struct stat mine {};
        if (::fstat(tmp.fd, &mine) != 0)
            return ioError("cannot write '" + path + "': " + std::strerror(errno));
        if ((mine.st_uid != target->st.st_uid || mine.st_gid != target->st.st_gid) &&
            ::fchown(tmp.fd, target->st.st_uid, target->st.st_gid) != 0)
            return ioError("'" + path + "' is owned by uid " + std::to_string(target->st.st_uid) +
                           " gid " + std::to_string(target->st.st_gid) +
                           "; replacing it would change its owner (" + std::strerror(errno) + ")");
        if (::fchmod(tmp.fd, target->st.st_mode & 07777) != 0)
            return ioError("cannot keep the permissions of '" + path +
                           "': " + std::strerror(errno));
    }
    if (::fsync(tmp.fd) != 0)
        return ioError("cannot flush '" + path + "': " + std::strerror(errno));
    const int fd = tmp.fd;
    tmp.fd = -1;
    if (::close(fd) != 0) return ioError("cannot flush '" + path + "': " + std::strerror(errno));

    if (!overwrite) {
        // The kernel refuses to replace anything, atomically: of concurrent writers one wins.
        if (::renameat2(AT_FDCWD, tmp.path.c_str(), AT_FDCWD, dest.c_str(), RENAME_NOREPLACE) ==
            0) {
            tmp.committed = true;
        } else if (errno == EEXIST) {
            return existsError(path, "");
        } else if (errno == EINVAL || errno == ENOSYS) {
            // No RENAME_NOREPLACE on this file system: link() fails with EEXIST just as atomically.
            if (::link(tmp.path.c_str(), dest.c_str()) != 0) {
                if (errno == EEXIST) return existsError(path, "");
                return ioError("cannot create '" + path + "': " + std::strerror(errno));
            }
            // tmp's destructor unlinks the temporary name; the new link keeps the data.
        } else {
            return ioError("cannot create '" + path + "': " + std::strerror(errno));
        }
    } else {
        // Look again right before replacing: anything but a regular file (or the dangling link
        // --force accepted) that appeared meanwhile is still refused.
        struct stat now {};
        if (::lstat(dest.c_str(), &now) == 0 && !S_ISREG(now.st_mode) &&
            !(target->dangling && S_ISLNK(now.st_mode)))
            return ioError("'" + path + "' is " + fileKindName(now.st_mode) +
                           "; only a regular file is ever replaced");
        if (::rename(tmp.path.c_str(), dest.c_str()) != 0)
            return ioError("cannot replace '" + path + "': " + std::strerror(errno));
        tmp.committed = true;
    }
    syncDirectory(dir);
    return true;
}

} // namespace headroom
