#include "launch/tensor_pattern.h"

#include <algorithm>

namespace headroom {

Result<std::regex> compileTensorPattern(const std::string& pattern) {
    const std::string who = "-ot/--override-tensor: '" +
                            (pattern.size() > 64 ? pattern.substr(0, 64) + "…" : pattern) + "'";
    if (pattern.size() > kMaxTensorPatternBytes)
        return makeError(ErrorCode::InvalidArgument, who + " is too long",
                         "at most " + std::to_string(kMaxTensorPatternBytes) + " bytes");
    // Groups open with an unescaped '(' outside a bracket expression; counting every one that
    // is not escaped over-counts '[(]', which only makes the bound stricter.
    std::size_t depth = 0, deepest = 0;
    for (std::size_t i = 0; i < pattern.size(); ++i) {
        if (pattern[i] == '\\') {
            ++i;
        } else if (pattern[i] == '(') {
            deepest = std::max(deepest, ++depth);
        } else if (pattern[i] == ')' && depth > 0) {
            --depth;
        }
    }
    if (deepest > kMaxTensorPatternNesting)
        return makeError(ErrorCode::InvalidArgument, who + " nests groups too deep",
                         "at most " + std::to_string(kMaxTensorPatternNesting) + " levels");
    try {
        auto flags = std::regex::ECMAScript;
#if defined(__GLIBCXX__)
        flags |= std::regex_constants::__polynomial;
#endif
        return std::regex(pattern, flags);
    } catch (const std::regex_error& e) {
        return makeError(ErrorCode::InvalidArgument, who + " is not a valid regular expression",
                         e.what());
    }
}

} // namespace headroom
