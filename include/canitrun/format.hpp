#pragma once
// Rounding and units for people. Only the CLI uses these: the core never rounds.

#include <cstdint>
#include <string>

#include "canitrun/checked.hpp"

namespace canitrun {

// "24.1 GB" (GB = 10^9 bytes); below 1 GB two decimals: "0.17 GB". Halves round up.
std::string format_gb(Bytes bytes);
std::string format_gb_number(Bytes bytes);  // the same without the unit
std::string format_gib(Bytes bytes);        // "22.44 GiB" (2^30 bytes)

// "8k", "256k", "1M", or the plain number when not a multiple of 1024.
std::string format_context(std::uint64_t tokens);
// A plan's context: "32k" for one sequence, "8 x 32k" for eight sharing 256k cells.
std::string format_plan_context(std::uint64_t cells, std::uint64_t sequences);
// "262,144"
std::string format_thousands(std::uint64_t n);
// "35B", "3.3B", "600M"
std::string format_params(std::uint64_t params);

}  // namespace canitrun
