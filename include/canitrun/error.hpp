#pragma once
// Errors as values. Every parser and lookup returns std::expected<T, Error>; only the CLI's
// top-level handler turns an Error into text on stderr and an exit code.

#include <expected>
#include <string>

namespace canitrun {

enum class ErrorKind {
    bad_input,     // a flag value, a name, a number the user typed
    bad_database,  // a database file that is malformed or inconsistent
    io,            // a file that cannot be read
    overflow,      // arithmetic that would not fit in 64 bits
};

struct Error {
    ErrorKind kind = ErrorKind::bad_input;
    std::string message;  // one line, no trailing period needed
    std::string hint;     // "did you mean ..." or how to fix it; may be empty
};

template <typename T>
using Result = std::expected<T, Error>;

inline std::unexpected<Error> fail(ErrorKind kind, std::string message, std::string hint = {}) {
    return std::unexpected<Error>(Error{kind, std::move(message), std::move(hint)});
}

}  // namespace canitrun
