#pragma once
// Token counts as the core's error messages name them ("context 1M is past qwen3.5-35b-a3b's
// window of 262,144 tokens"). The rest of the rounding for people (GB, GiB, parameters) is the
// CLI's (src/cli/format.hpp): the core never rounds a figure it returns.

#include <cstdint>
#include <string>

namespace canitrun {

// "262,144"
std::string format_thousands(std::uint64_t n);
// "8k", "256k", "1M", or the plain number with thousands separators when not a multiple of 1024.
std::string format_context(std::uint64_t tokens);
// A percentage as the fraction vLLM's flags take: 90 -> "0.90", 100 -> "1.00".
std::string format_fraction(std::uint64_t percent);

}  // namespace canitrun
