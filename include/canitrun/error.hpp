#pragma once
// Errors as values. Every parser and lookup returns std::expected<T, Error>; only the CLI's
// top-level handler turns an Error into text on stderr and an exit code.

#include <expected>
#include <string>
#include <utility>

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

// Error propagation, as ccache's TRY: the error of a failed Result returns from the enclosing
// function unchanged, so a chain of parsing steps reads as the steps, not as their plumbing.
//   CANITRUN_TRY(check_context(m, ctx));                  // a Result whose value is not needed
//   CANITRUN_TRY_ASSIGN(const auto heads, read_heads(f)); // declares heads as the value
//   CANITRUN_TRY_ASSIGN(kv[il], read_kv(f, il));          // or assigns it
// Macros because a return from the caller cannot be written as a function; the names are
// unique per line so that two can share a scope, or one run inside a lambda of another.
#define CANITRUN_TRY_CONCAT_(a, b) a##b
#define CANITRUN_TRY_CONCAT(a, b) CANITRUN_TRY_CONCAT_(a, b)
#define CANITRUN_TRY_NAME CANITRUN_TRY_CONCAT(canitrun_try_, __LINE__)
#define CANITRUN_TRY(expr)                                                                    \
    do {                                                                                      \
        auto CANITRUN_TRY_NAME = (expr);                                                      \
        if (!CANITRUN_TRY_NAME) return std::unexpected(std::move(CANITRUN_TRY_NAME).error()); \
    } while (false)
// NOLINTBEGIN(bugprone-macro-parentheses): `target` is a declaration or an lvalue.
#define CANITRUN_TRY_ASSIGN(target, expr)                                                 \
    auto CANITRUN_TRY_NAME = (expr);                                                      \
    if (!CANITRUN_TRY_NAME) return std::unexpected(std::move(CANITRUN_TRY_NAME).error()); \
    target = std::move(*CANITRUN_TRY_NAME)
// NOLINTEND(bugprone-macro-parentheses)
