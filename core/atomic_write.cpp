#include "atomic_write.h"

#include "text_file.h"

#include <cerrno>
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

// The wrong kind of target (a directory, FIFO, device, or a link to one) is a bad argument: the
// user named something that is never a file to write. A path the OS will not let us write (its
// directory missing, read-only, not ours) stays IoError, as does a failure while writing.
Error targetError(const std::string& message) {
    return makeError(ErrorCode::InvalidArgument, message);
}

Error osError(const std::string& message, int e) {
    return ioError(message + ": " + std::strerror(e));
}

Error existsError(const std::string& path, const std::string& what) {
    return makeError(ErrorCode::InvalidArgument, "'" + path + "' already exists" + what,
                     "pass --force to replace it");
}

Error kindError(const std::string& path, const std::string& kind) {
    return targetError("'" + path + "' is " + kind + "; only a regular file is ever replaced");
}

// What the write will do to `path`.
struct Target {
    bool exists = false;     // a regular file or a symbolic link is at `path`
    bool link = false;       // it is a symbolic link: the link itself is replaced, never its target
    bool keep_owner = false; // a regular file: its owner and mode are kept
    bool keep_mode = false;  // a link to a regular file: that file's permission bits are kept
    struct stat st {};       // of the regular file (the link's target for a link)
};

Result<Target> classify(const std::string& path, bool overwrite) {
    if (path.empty()) return targetError("the output file name is empty");
    Target t;
    struct stat lst {};
    if (::lstat(path.c_str(), &lst) != 0) {
        if (errno == ENOENT) return t; // a new file
        return osError("cannot write '" + path + "'", errno);
    }
    if (S_ISLNK(lst.st_mode)) {
        // Writing through a link would let a link planted in a shared directory aim the write at
        // any file its owner can write; the link is replaced instead, as rename(2) does, and
        // the file it points to is never opened. A link to a directory, FIFO or device is
        // refused like the object itself.
        struct stat st {};
        if (::stat(path.c_str(), &st) == 0) {
            if (!S_ISREG(st.st_mode))
                return kindError(path, "a symbolic link to " + fileKindName(st.st_mode));
            t.keep_mode = true;
            t.st = st;
        } else if (errno != ENOENT && errno != ELOOP) {
            return osError("cannot write '" + path + "'", errno);
        }
        t.exists = true;
        t.link = true;
        if (!overwrite)
            return existsError(path, " (a symbolic link; with --force the link itself is "
                                     "replaced, never the file it points to)");
        return t;
    }
    if (!S_ISREG(lst.st_mode)) return kindError(path, fileKindName(lst.st_mode));
    t.exists = true;
    t.keep_owner = true;
    t.st = lst;
    if (!overwrite) return existsError(path, "");
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
    // The temporary file is made in the target's directory: it must be one this process may
    // create files in.
    const std::string dir = dirOf(path);
    struct stat st {};
    if (::stat(dir.c_str(), &st) != 0)
        return osError("cannot write '" + path + "': its directory '" + dir + "'", errno);
    if (!S_ISDIR(st.st_mode))
        return ioError("cannot write '" + path + "': '" + dir + "' is " + fileKindName(st.st_mode) +
                       ", not a directory");
    if (::access(dir.c_str(), W_OK | X_OK) != 0)
        return osError("cannot write '" + path + "': its directory '" + dir + "'", errno);
    return true;
}

Result<bool> writeFileAtomically(const std::string& path, const std::string& contents,
                                 bool overwrite, unsigned new_file_mode) {
    auto target = classify(path, overwrite);
    if (!target) return target.error();
    const std::string& dest = path;
    const std::string dir = dirOf(dest);

    TempFile tmp;
    int create_errno = 0; // why the temporary file could not be made (0: only name clashes)
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
            create_errno = errno;
            break;
        }
    }
    if (tmp.fd < 0) {
        const std::string what =
            "cannot create a temporary file in '" + dir + "' for '" + path + "'";
        return create_errno ? osError(what, create_errno) : ioError(what);
    }
    if (!writeAll(tmp.fd, contents))
        return ioError("cannot write '" + path + "': " + std::strerror(errno));
    if (target->keep_owner) {
        // --force keeps who owns the file and who may read it.
        struct stat mine {};
        if (::fstat(tmp.fd, &mine) != 0)
            return ioError("cannot write '" + path + "': " + std::strerror(errno));
        if ((mine.st_uid != target->st.st_uid || mine.st_gid != target->st.st_gid) &&
            ::fchown(tmp.fd, target->st.st_uid, target->st.st_gid) != 0)
            return ioError("'" + path + "' is owned by uid " + std::to_string(target->st.st_uid) +
                           " gid " + std::to_string(target->st.st_gid) +
                           "; replacing it would change its owner (" + std::strerror(errno) + ")");
    }
    // A replaced file's permission bits, or those of the file a replaced link pointed to: --force
    // never widens who may read what was there.
    if ((target->keep_owner || target->keep_mode) &&
        ::fchmod(tmp.fd, target->st.st_mode & 07777) != 0)
        return ioError("cannot keep the permissions of '" + path + "': " + std::strerror(errno));
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
                return osError("cannot create '" + path + "'", errno);
            }
            // tmp's destructor unlinks the temporary name; the new link keeps the data.
        } else {
            return osError("cannot create '" + path + "'", errno);
        }
    } else {
        // Look again right before replacing: anything but a regular file or a symbolic link (the
        // link itself is what rename(2) replaces) that appeared meanwhile is still refused.
        struct stat now {};
        if (::lstat(dest.c_str(), &now) == 0 && !S_ISREG(now.st_mode) && !S_ISLNK(now.st_mode))
            return kindError(path, fileKindName(now.st_mode));
        if (::rename(tmp.path.c_str(), dest.c_str()) != 0)
            return osError("cannot replace '" + path + "'", errno);
        tmp.committed = true;
    }
    syncDirectory(dir);
    return true;
}

} // namespace headroom
