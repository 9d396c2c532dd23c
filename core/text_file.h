// The one way the program reads a text or JSON file it is given or ships with: hardware profiles
// (--hardware FILE), resources/catalog.json, resources/presets.json (also from
// $HEADROOM_RESOURCES). Each of these paths may be hostile: a FIFO that never delivers EOF, a
// symlink to /dev/zero, a directory, a file of gigabytes, JSON with 1e400 or nesting a million
// deep. The reader refuses every one of them with an Error naming the file and the reason, so
// no caller hangs, runs out of memory or lets a library exception escape.
#pragma once

#include "result.h"

#include <nlohmann/json.hpp>

#include <cstddef>
#include <string>
#include <string_view>

namespace headroom {

// Profiles are a few KiB and the shipped catalog about 50 KiB; 16 MiB leaves room for catalogs
// hundreds of times larger while keeping a hostile file far from the 2 GiB the CLI may use.
inline constexpr std::size_t kMaxTextFileBytes = 16u * 1024u * 1024u;
// JSON nested deeper than this is refused before parsing: no file the program reads nests more
// than 6 levels, and nlohmann's dump() and destructor recurse once per level.
inline constexpr std::size_t kMaxJsonDepth = 256;

// Opens `path` without blocking (O_NONBLOCK, so a FIFO with no writer cannot hang the open),
// refuses anything that is not a regular file after following symlinks ("is a FIFO", "is a
// directory", "is a character device", ...), and reads at most `max_bytes`. Errors are IoError:
// the CLI maps them to exit 3.
Result<std::string> readRegularTextFile(const std::string& path,
                                        std::size_t max_bytes = kMaxTextFileBytes);

// What a file-system object is, for messages: "a FIFO", "a directory", "a socket", ...
std::string fileKindName(unsigned mode);

// Parses JSON text and never throws. ParseError for every failure nlohmann can report
// (parse_error, out_of_range such as the number 1e400, type_error, ...), for nesting deeper than
// kMaxJsonDepth and for memory exhaustion. The message is "<what> is not valid JSON"; details say
// where ("line 3, column 12") and why.
Result<nlohmann::json> parseJsonDocument(std::string_view text, const std::string& what);

// readRegularTextFile + parseJsonDocument, with the path in every message.
Result<nlohmann::json> readJsonFile(const std::string& path,
                                    std::size_t max_bytes = kMaxTextFileBytes);

// Serialises JSON for output. Strings that are not valid UTF-8 (a file name, a profile path, a
// CPU name from /proc/cpuinfo) get U+FFFD in place of the bad bytes instead of a type_error
// exception, so printing a plan never aborts.
std::string dumpJson(const nlohmann::json& j, int indent = 2);

// A file's content is an input, not an argument: a semantic error found inside it (a field of
// the wrong type, a value out of range) becomes ParseError so the CLI exits 3 for it, the same
// as for broken syntax. `where` ("'profile.json'") is put in front of the message.
Error asFileContentError(Error e, const std::string& where);

} // namespace headroom
