// POSIX shell words: quoting an argument list into one safe command line and splitting a command
// line back into words. Exported launch commands (llama-server scripts, llama-swap `cmd`) go
// through shellJoin so a path with spaces or an -ot regex with `\.` and `|` reaches llama-server
// exactly as planned; shellSplit reads them back (tests, pasted commands).
#pragma once

#include "result.h"

#include <string>
#include <string_view>
#include <vector>

namespace headroom {

// `word` unchanged when it has only characters no POSIX shell treats specially
// ([A-Za-z0-9_@%+=:,./-] and not empty), else wrapped in single quotes with every ' written '\''.
std::string shellQuote(std::string_view word);

// Words joined by single spaces, each shellQuote'd.
std::string shellJoin(const std::vector<std::string>& words);

// Splits a command line the way sh(1) would before expansion: single quotes, double quotes
// (with \" \\ \$ \` and \<newline> escapes), backslash escapes, backslash-newline continuations,
// and `#` comments at the start of a word. Variables ($X, ${PORT}) are kept as text, never
// expanded. An unterminated quote or a trailing lone backslash is a ParseError naming the offset.
Result<std::vector<std::string>> shellSplit(std::string_view text);

} // namespace headroom
