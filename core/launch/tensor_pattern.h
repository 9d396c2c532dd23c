// A -ot pattern compiled for matching tensor names. llama.cpp matches each pattern with
// std::regex_search on every tensor name (llama_model_loader's tensor_buft_overrides loop); the
// planner does the same to price a pinned placement, on the user's text. std::regex as such is
// not safe on hostile text: its compiler recurses once per nesting level (some thousands of
// nested groups overflow the stack) and its default matcher backtracks, so '(.|.)*z' takes
// minutes on one 27-character tensor name. The pattern is therefore bounded in length and
// nesting, and matched in libstdc++'s polynomial mode (a breadth-first matcher: whether a name
// matches is the same, only back-references are refused, which no tensor pattern needs).
#pragma once

#include "result.h"

#include <cstddef>
#include <regex>
#include <string>

namespace headroom {

inline constexpr std::size_t kMaxTensorPatternBytes = 4096;
inline constexpr std::size_t kMaxTensorPatternNesting = 64;

// An error (InvalidArgument) names the pattern and why: too long, nested too deep, or not a
// regular expression (std::regex_error's reason).
Result<std::regex> compileTensorPattern(const std::string& pattern);

} // namespace headroom
