#pragma once
// Parsers for what users type: context lengths ("256k"), sizes in GB.

#include <cstdint>
#include <string>

#include "canitrun/error.hpp"

namespace canitrun {

// Largest context accepted: 2^30 tokens. Beyond that no model exists and the arithmetic would
// only mislead.
inline constexpr std::uint64_t kMaxContext = 1ULL << 30;

// "262144", "256k", "32K", "1M" (k = 1024 tokens, M = 1048576), "128_000", "128,000".
Result<std::uint64_t> parse_context(const std::string& text);

// A memory size in GB: "24", "24GB", "24 GB", "11.5". Returns bytes (10^9 per GB).
Result<std::uint64_t> parse_gb(const std::string& text);

// "2026-06" or "2026-06-15" (a month or a day, as release dates are written in data/), returned
// as written; anything else, or a month or day out of range, is an error.
Result<std::string> parse_release_date(const std::string& text);

// A whole number between 0 and `max` for the option `flag` (named in the error): "-ngl 33".
Result<std::uint64_t> parse_count(const std::string& text, const std::string& flag,
                                  std::uint64_t max);

// The same, at least 1: a count of things there must be some of ("--ubatch 512", "--parallel 4").
// "5", "2.5": tokens per second, 0.1 to 100000 (--min-speed).
Result<double> parse_tokens_per_second(const std::string& text);

Result<std::uint64_t> parse_positive_count(const std::string& text, const std::string& flag,
                                           std::uint64_t max);

// --margin MIB: the MiB kept free on every GPU (0 up to 1 TiB), as bytes.
Result<std::uint64_t> parse_margin_mib(const std::string& text);

// --gpu-memory-utilization: "0.9" -> 90, a fraction in (0, 1] with two decimals at most, as a
// percentage.
Result<std::uint64_t> parse_utilization_pct(const std::string& text);

// A bandwidth in GB/s: "76.8", "100GB/s". Between 0.1 and 100000.
Result<double> parse_bandwidth(const std::string& text);

}  // namespace canitrun
