#pragma once
// Checked 64-bit arithmetic for byte and parameter counts. An overflow throws
// OverflowError, which the public entry points (estimate(), the database loader) turn into an
// Error of kind `overflow`: a 1T-parameter model at 10M context must come out right or be
// refused, never wrap.

#include <cstdint>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <utility>

#include "canitrun/error.hpp"

namespace canitrun {

using Bytes = std::uint64_t;

// The units output names: GB = 10^9 bytes (marketed sizes, the page), MiB and GiB = 2^20 and
// 2^30 bytes (llama.cpp's logs, runtime buffers).
inline constexpr Bytes kGB = 1000000000ULL;
inline constexpr Bytes kMiB = 1ULL << 20;
inline constexpr Bytes kGiB = 1ULL << 30;
// One f32 value: llama.cpp's recurrent states, logits and activations are f32 whatever the
// weights' and the cache's types.
inline constexpr Bytes kF32Bytes = 4;

struct OverflowError : std::overflow_error {
    using std::overflow_error::overflow_error;
};

namespace checked {

// __extension__ keeps -Wpedantic quiet about __int128; it does not apply to an alias
// declaration, hence the typedef.
__extension__ typedef unsigned __int128 Wide;  // NOLINT(modernize-use-using)

// Throws OverflowError(what). Out of line and cold, so the checks below stay a few
// instructions and are inlined wherever they are used: with the throw written in them they
// were too big for -O2's inliner, and a placement's sums were calls (a third of the time of
// the planner's property tests).
[[noreturn]] void throw_overflow(const char* what);

inline std::uint64_t add(std::uint64_t a, std::uint64_t b) {
    std::uint64_t out = 0;
    if (__builtin_add_overflow(a, b, &out)) [[unlikely]]
        throw_overflow("byte count overflows 64 bits");
    return out;
}

inline std::uint64_t mul(std::uint64_t a, std::uint64_t b) {
    std::uint64_t out = 0;
    if (__builtin_mul_overflow(a, b, &out)) [[unlikely]]
        throw_overflow("byte count overflows 64 bits");
    return out;
}

inline std::uint64_t sub(std::uint64_t a, std::uint64_t b) {
    if (b > a) [[unlikely]]
        throw_overflow("byte count underflows");
    return a - b;
}

// a * b / c, rounded up, without overflowing in the intermediate product when the result fits.
inline std::uint64_t mul_div_ceil(std::uint64_t a, std::uint64_t b, std::uint64_t c) {
    if (c == 0) [[unlikely]]
        throw_overflow("division by zero");
    // A 64-bit product divides natively; the 128-bit division is a slow library call.
    std::uint64_t product = 0;
    if (!__builtin_mul_overflow(a, b, &product)) return product / c + (product % c != 0 ? 1 : 0);
    const Wide wide = static_cast<Wide>(a) * b;
    const Wide q = (wide + c - 1) / c;
    if (q > UINT64_MAX) [[unlikely]]
        throw_overflow("byte count overflows 64 bits");
    return static_cast<std::uint64_t>(q);
}

// a * b / c, rounded down.
inline std::uint64_t mul_div_floor(std::uint64_t a, std::uint64_t b, std::uint64_t c) {
    if (c == 0) [[unlikely]]
        throw_overflow("division by zero");
    std::uint64_t product = 0;
    if (!__builtin_mul_overflow(a, b, &product)) return product / c;
    const Wide q = static_cast<Wide>(a) * b / c;
    if (q > UINT64_MAX) [[unlikely]]
        throw_overflow("byte count overflows 64 bits");
    return static_cast<std::uint64_t>(q);
}

// A 128-bit intermediate back to 64 bits.
inline std::uint64_t narrow(Wide value) {
    if (value > UINT64_MAX) [[unlikely]]
        throw_overflow("count overflows 64 bits");
    return static_cast<std::uint64_t>(value);
}

}  // namespace checked

// The one place an OverflowError is caught. Checked arithmetic throws so that a deep sum need
// not pass a Result up through every step; each entry point that does such arithmetic runs its
// body through catch_overflow (the body returns T or Result<T>), which turns an overflow into
// the error that `on_overflow` returns, as fail() makes it (built only then, so the hot path
// builds no message).
namespace checked_detail {
template <typename T>
struct AsResult {
    using type = Result<T>;
};
template <typename T>
struct AsResult<Result<T>> {
    using type = Result<T>;
};
}  // namespace checked_detail

template <typename Body, typename OnOverflow>
auto catch_overflow(Body&& body, OnOverflow&& on_overflow) ->
    typename checked_detail::AsResult<std::invoke_result_t<Body>>::type {
    try {
        return std::forward<Body>(body)();
    } catch (const OverflowError&) {
        return std::forward<OnOverflow>(on_overflow)();
    }
}

// Where an overflow is not an error but means "no such value" (a size no log prints, a speed
// term that is then left out): the body's value, or `fallback`.
template <typename Body, typename T>
auto overflow_or(Body&& body, T fallback) -> std::invoke_result_t<Body> {
    try {
        return std::forward<Body>(body)();
    } catch (const OverflowError&) {
        return fallback;
    }
}

// The usual error: "<what> does not fit in 64-bit byte counts", with how to make it smaller.
inline std::unexpected<Error> overflow_error(std::string what, std::string hint = "lower --ctx") {
    return fail(ErrorKind::overflow, std::move(what) + " does not fit in 64-bit byte counts",
                std::move(hint));
}

}  // namespace canitrun
