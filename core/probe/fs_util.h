// Small, bounded readers for /proc and /sys files (internal to headroom_probe).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace headroom::probe::detail {

// Whole file up to 1 MiB (sysfs and procfs files are tiny; the cap keeps a wrong path pointing at
// something large from reading it all). The file is opened without blocking (O_NONBLOCK: a FIFO
// with no writer would otherwise hang the open, and one with a writer every read) and must be a
// regular file once symlinks are followed (procfs and sysfs files are); a FIFO, device, socket or
// directory is refused unread. nullopt when it cannot be opened, is not a regular file or is
// larger than the cap; `why`, when given, then says which ("is a FIFO (named pipe)", ...).
std::optional<std::string> readSmallFile(const std::string& path, std::string* why = nullptr);
std::string trim(std::string_view s);
// First line, trimmed.
std::optional<std::string> readLine(const std::string& path);
// Unsigned decimal ("25753026560\n"); nullopt on anything else.
std::optional<std::uint64_t> readU64(const std::string& path);
// "0x1002" or "1002" as hex.
std::optional<std::uint32_t> readHexId(const std::string& path);
std::optional<std::uint64_t> parseU64(std::string_view s);
std::string joinPath(const std::string& a, const std::string& b);
bool isDirectory(const std::string& path);
bool exists(const std::string& path);
// Names in a directory, sorted (deterministic order for tests and output).
std::vector<std::string> listDirectory(const std::string& path);
// "0000:01:00.0"
bool looksLikePciAddress(std::string_view s);

} // namespace headroom::probe::detail
