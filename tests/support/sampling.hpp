#pragma once
// The exhaustive properties (every flag on every command, every model on a list of setups) in a
// sanitized build. ASan and UBSan make the core about ten times slower, and these properties
// took five of the sanitized run's minutes in CI (the flag table's refusals alone 192 s), so
// there they check every STRIDE-th case: the sanitizers still see each property's code on a
// spread of cases, and the plain build, which the README's test command runs, checks them all.
// tests/CMakeLists.txt defines CANITRUN_TEST_SANITIZED in the sanitized builds
// (CANITRUN_SANITIZE, CANITRUN_FUZZ).
#include <cstddef>

namespace canitrun::test {

#ifdef CANITRUN_TEST_SANITIZED
inline constexpr bool kSanitized = true;
#else
inline constexpr bool kSanitized = false;
#endif

// Whether the i-th case of a property runs: always in a plain build, every stride-th case
// (the first included) in a sanitized one.
constexpr bool sampled(std::size_t i, std::size_t stride = 4) {
    return !kSanitized || i % stride == 0;
}

// How many of n cases run, for properties that check they reached enough cases.
constexpr std::size_t sampled_count(std::size_t n, std::size_t stride = 4) {
    return kSanitized ? (n + stride - 1) / stride : n;
}

}  // namespace canitrun::test
