#include "fs_util.h"

#include "text_file.h"

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <filesystem>
#include <sys/stat.h>
#include <unistd.h>

namespace headroom::probe::detail {

namespace fs = std::filesystem;

// Largest /proc or /sys file we read; the biggest real one (meminfo, cpuinfo on 256 threads) is
// far below, and a larger file is read up to it and no further. Not a knob.
constexpr std::size_t kMaxSmallFile = 1 << 20;

std::optional<std::string> readSmallFile(const std::string& path, std::string* why) {
    const auto refuse = [&](std::string reason) -> std::optional<std::string> {
        if (why) *why = std::move(reason);
        return std::nullopt;
    };
    // O_NONBLOCK: open(2) of a FIFO for reading waits for a writer, and read(2) of one blocks
    // until it writes; with it both return at once. O_NOCTTY: a terminal named here must not
    // become the controlling terminal. Harmless on the regular files /proc and /sys hold.
    const int fd = ::open(path.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY);
    if (fd < 0) return refuse(std::strerror(errno));
    struct Closer {
        int fd;
        ~Closer() { ::close(fd); }
    } closer{fd};
    struct stat st {};
    if (::fstat(fd, &st) != 0) return refuse(std::strerror(errno));
    // procfs files are regular with st_size 0 and sysfs attributes regular with st_size 4096;
    // anything else (a FIFO or /dev/zero planted under a fake root) is never read.
    if (!S_ISREG(st.st_mode))
        return refuse("is " + fileKindName(st.st_mode) + ", not a regular file");
    std::string out;
    char buf[8192];
    // At most kMaxSmallFile bytes: what lies past the cap is never read.
    while (out.size() < kMaxSmallFile) {
        const std::size_t want = std::min(sizeof buf, kMaxSmallFile - out.size());
        const ssize_t n = ::read(fd, buf, want);
        if (n < 0) {
            if (errno == EINTR) continue;
            return refuse(std::strerror(errno));
        }
        if (n == 0) break;
        out.append(buf, static_cast<std::size_t>(n));
    }
    return out;
}

std::string trim(std::string_view s) {
    while (!s.empty() && std::isspace(static_cast<unsigned char>(s.front())))
        s.remove_prefix(1);
    while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back())))
        s.remove_suffix(1);
    return std::string(s);
}

std::optional<std::string> readLine(const std::string& path) {
    auto text = readSmallFile(path);
    if (!text) return std::nullopt;
    const auto nl = text->find('\n');
    return trim(std::string_view(*text).substr(0, nl));
}

std::optional<std::uint64_t> parseU64(std::string_view s) {
    const std::string t = trim(s);
    if (t.empty() || t.size() > 20) return std::nullopt;
    std::uint64_t v = 0;
    for (char c : t) {
        if (c < '0' || c > '9') return std::nullopt;
        const std::uint64_t d = static_cast<std::uint64_t>(c - '0');
        if (v > (UINT64_MAX - d) / 10) return std::nullopt;
        v = v * 10 + d;
    }
    return v;
}

std::optional<std::uint64_t> readU64(const std::string& path) {
    auto line = readLine(path);
    if (!line) return std::nullopt;
    return parseU64(*line);
}

std::optional<std::uint32_t> readHexId(const std::string& path) {
    auto line = readLine(path);
    if (!line) return std::nullopt;
    std::string_view s = *line;
    if (s.size() > 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) s.remove_prefix(2);
    if (s.empty() || s.size() > 8) return std::nullopt;
    std::uint32_t v = 0;
    for (char c : s) {
        int d;
        if (c >= '0' && c <= '9')
            d = c - '0';
        else if (c >= 'a' && c <= 'f')
            d = c - 'a' + 10;
        else if (c >= 'A' && c <= 'F')
            d = c - 'A' + 10;
        else
            return std::nullopt;
        v = v * 16 + static_cast<std::uint32_t>(d);
    }
    return v;
}

std::string joinPath(const std::string& a, const std::string& b) {
    if (a.empty()) return b;
    if (b.empty()) return a;
    const bool aSlash = a.back() == '/', bSlash = b.front() == '/';
    if (aSlash && bSlash) return a + b.substr(1);
    if (aSlash || bSlash) return a + b;
    return a + "/" + b;
}

bool isDirectory(const std::string& path) {
    std::error_code ec;
    return fs::is_directory(path, ec);
}

bool exists(const std::string& path) {
    std::error_code ec;
    return fs::exists(path, ec);
}

std::vector<std::string> listDirectory(const std::string& path) {
    std::vector<std::string> names;
    std::error_code ec;
    fs::directory_iterator it(path, ec), end;
    for (; !ec && it != end; it.increment(ec))
        names.push_back(it->path().filename().string());
    std::sort(names.begin(), names.end());
    return names;
}

bool looksLikePciAddress(std::string_view s) {
    // dddd:bb:dd.f, all hex digits
    if (s.size() != 12 || s[4] != ':' || s[7] != ':' || s[10] != '.') return false;
    for (size_t i = 0; i < s.size(); ++i) {
        if (i == 4 || i == 7 || i == 10) continue;
        if (!std::isxdigit(static_cast<unsigned char>(s[i]))) return false;
    }
    return true;
}

} // namespace headroom::probe::detail
