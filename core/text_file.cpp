#include "text_file.h"

#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <new>
#include <sys/stat.h>
#include <unistd.h>

namespace headroom {

using nlohmann::json;

std::string fileKindName(unsigned mode) {
    switch (mode & S_IFMT) {
    case S_IFREG:
        return "a regular file";
    case S_IFDIR:
        return "a directory";
    case S_IFIFO:
        return "a FIFO (named pipe)";
    case S_IFCHR:
        return "a character device";
    case S_IFBLK:
        return "a block device";
    case S_IFSOCK:
        return "a socket";
    case S_IFLNK:
        return "a symbolic link";
    default:
        return "not a regular file";
    }
}

namespace {

struct Fd {
    int fd = -1;
    ~Fd() {
        if (fd >= 0) ::close(fd);
    }
};

std::string positionOf(std::string_view text, std::size_t byte) {
    if (byte > text.size()) byte = text.size();
    std::size_t line = 1, col = 1;
    for (std::size_t i = 0; i < byte; ++i) {
        if (text[i] == '\n') {
            ++line;
            col = 1;
        } else {
            ++col;
        }
    }
    return "line " + std::to_string(line) + ", column " + std::to_string(col);
}

// Deepest [ / { nesting outside strings, and where it first exceeds `limit` (npos: never).
std::size_t depthExceededAt(std::string_view text, std::size_t limit) {
    std::size_t depth = 0;
    bool inString = false, escaped = false;
    for (std::size_t i = 0; i < text.size(); ++i) {
        const char c = text[i];
        if (inString) {
            if (escaped)
                escaped = false;
            else if (c == '\\')
                escaped = true;
            else if (c == '"')
                inString = false;
            continue;
        }
        if (c == '"') {
            inString = true;
        } else if (c == '[' || c == '{') {
            if (++depth > limit) return i;
        } else if ((c == ']' || c == '}') && depth > 0) {
            --depth;
        }
    }
    return std::string_view::npos;
}

// nlohmann's out_of_range and type_error carry no offset; they quote the offending token
// ("number overflow parsing '1e400'"), which is found in the text to say where it is.
std::string locateQuotedToken(std::string_view text, const std::string& what) {
    const auto open = what.find('\'');
    if (open == std::string::npos) return {};
    const auto close = what.find('\'', open + 1);
    if (close == std::string::npos || close == open + 1) return {};
    const auto at = text.find(what.substr(open + 1, close - open - 1));
    if (at == std::string_view::npos) return {};
    return positionOf(text, at);
}

// "[json.exception.out_of_range.406] number overflow ..." -> "number overflow ...".
std::string reasonOf(const std::string& what) {
    const auto bracket = what.find("] ");
    return bracket == std::string::npos ? what : what.substr(bracket + 2);
}

} // namespace

Result<std::string> readRegularTextFile(const std::string& path, std::size_t max_bytes) {
    if (path.empty()) return makeError(ErrorCode::IoError, "an empty file name cannot be read");
    Fd f;
    // O_NONBLOCK: opening a FIFO for reading otherwise waits for a writer forever. O_NOCTTY: a
    // terminal device must not become the controlling terminal. Both are harmless on files.
    f.fd = ::open(path.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY);
    if (f.fd < 0)
        return makeError(ErrorCode::IoError, "cannot open '" + path + "': " + std::strerror(errno));
    struct stat st {};
    if (::fstat(f.fd, &st) != 0)
        return makeError(ErrorCode::IoError, "cannot read '" + path + "': " + std::strerror(errno));
    if (!S_ISREG(st.st_mode))
        return makeError(ErrorCode::IoError,
                         "'" + path + "' is " + fileKindName(st.st_mode) + ", not a regular file",
                         "give the path of a JSON file");
    if (static_cast<std::uint64_t>(st.st_size) > max_bytes)
        return makeError(ErrorCode::IoError,
                         "'" + path + "' is too large (" + std::to_string(st.st_size) +
                             " bytes; the limit is " + std::to_string(max_bytes) + ")");
    // Back to blocking reads: a regular file never blocks, and EAGAIN handling is not needed.
    const int flags = ::fcntl(f.fd, F_GETFL);
    if (flags >= 0) ::fcntl(f.fd, F_SETFL, flags & ~O_NONBLOCK);
    std::string out;
    try {
        out.resize(static_cast<std::size_t>(st.st_size));
    } catch (const std::bad_alloc&) {
        return makeError(ErrorCode::IoError, "'" + path + "': out of memory reading it");
    }
    std::size_t done = 0;
    char extra = 0;
    for (;;) {
        // The file may have grown since fstat: read one byte past the end to notice, and refuse
        // rather than read without bound.
        const bool atEnd = done == out.size();
        char* dst = atEnd ? &extra : out.data() + done;
        const std::size_t want = atEnd ? 1 : out.size() - done;
        const ssize_t n = ::read(f.fd, dst, want);
        if (n < 0) {
            if (errno == EINTR) continue;
            return makeError(ErrorCode::IoError,
                             "cannot read '" + path + "': " + std::strerror(errno));
        }
        if (n == 0) break;
        if (atEnd) {
            if (out.size() >= max_bytes)
                return makeError(ErrorCode::IoError, "'" + path + "' is too large (more than " +
                                                         std::to_string(max_bytes) + " bytes)");
            out.push_back(extra);
        }
        done += static_cast<std::size_t>(n);
    }
    out.resize(done);
    return out;
}

Result<json> parseJsonDocument(std::string_view text, const std::string& what) {
    const std::string invalid = what + " is not valid JSON";
    if (const auto at = depthExceededAt(text, kMaxJsonDepth); at != std::string_view::npos)
        return makeError(ErrorCode::ParseError, invalid,
                         positionOf(text, at) + ": nested more than " +
                             std::to_string(kMaxJsonDepth) + " levels deep");
    try {
        return json::parse(text);
    } catch (const json::parse_error& e) {
        return makeError(ErrorCode::ParseError, invalid,
                         positionOf(text, e.byte > 0 ? e.byte - 1 : 0) + ": " + reasonOf(e.what()));
    } catch (const json::exception& e) {
        // out_of_range (a number beyond double, 1e400), type_error, invalid_iterator, other_error.
        const std::string where = locateQuotedToken(text, e.what());
        return makeError(ErrorCode::ParseError, invalid,
                         (where.empty() ? "" : where + ": ") + reasonOf(e.what()));
    } catch (const std::bad_alloc&) {
        return makeError(ErrorCode::ParseError, invalid, "out of memory while parsing");
    } catch (const std::exception& e) {
        return makeError(ErrorCode::ParseError, invalid, e.what());
    }
}

Result<json> readJsonFile(const std::string& path, std::size_t max_bytes) {
    auto text = readRegularTextFile(path, max_bytes);
    if (!text) return text.error();
    return parseJsonDocument(*text, "'" + path + "'");
}

std::string dumpJson(const json& j, int indent) {
    return j.dump(indent, ' ', false, json::error_handler_t::replace);
}

Error asFileContentError(Error e, const std::string& where) {
    if (e.code == ErrorCode::InvalidArgument || e.code == ErrorCode::NotFound)
        e.code = ErrorCode::ParseError;
    if (!where.empty() && e.message.rfind(where, 0) != 0) e.message = where + ": " + e.message;
    return e;
}

} // namespace headroom
