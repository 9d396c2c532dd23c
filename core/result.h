// Result<T>: a value or an Error, shaped like std::expected so it can be swapped for it once
// the toolchain has it (g++ 12 does not). core never throws across its boundary; anything that
// "cannot compute" comes back as an Error, while a plan that does not fit is an answer.
#pragma once

#include <string>
#include <utility>
#include <variant>

namespace headroom {

// Stable error codes: scripts and the GUI branch on these, so never renumber.
enum class ErrorCode {
    InvalidArgument, // a user-supplied value is out of range or malformed
    ParseError,      // a file or document could not be parsed
    Truncated,       // input ended early
    Unsupported,     // well-formed but not something we can handle (version, type id)
    IoError,         // the OS refused (open, read, rename)
    NotFound,        // a catalog id, preset id or file that does not exist
    ProbeFailed,     // the hardware probe could not produce a figure
};

const char* errorCodeName(ErrorCode code);

struct Error {
    ErrorCode code = ErrorCode::InvalidArgument;
    std::string message; // one sentence, names the problem and the input
    std::string details; // optional: offset, field, accepted values
};

template <typename T>
class Result {
public:
    Result(T value) : v_(std::move(value)) {}
    Result(Error error) : v_(std::move(error)) {}

    bool has_value() const { return v_.index() == 0; }
    explicit operator bool() const { return has_value(); }

    T& value() & { return std::get<0>(v_); }
    const T& value() const& { return std::get<0>(v_); }
    T&& value() && { return std::get<0>(std::move(v_)); }
    T& operator*() & { return value(); }
    const T& operator*() const& { return value(); }
    T* operator->() { return &value(); }
    const T* operator->() const { return &value(); }

    const Error& error() const { return std::get<1>(v_); }

private:
    std::variant<T, Error> v_;
};

inline Error makeError(ErrorCode code, std::string message, std::string details = {}) {
    return Error{code, std::move(message), std::move(details)};
}

} // namespace headroom
