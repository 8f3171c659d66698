#pragma once
// Rounding and units for people: the CLI's alone, since the core never rounds. Token counts
// (format_thousands, format_context) are the core's too, for its messages (token_text.hpp).

#include <cstdint>
#include <string>

#include "canitrun/checked.hpp"
#include "canitrun/token_text.hpp"

namespace canitrun {

// "24.1 GB" (GB = 10^9 bytes); below 1 GB two decimals: "0.17 GB". Halves round up.
std::string format_gb(Bytes bytes);
std::string format_gb_number(Bytes bytes);  // the same without the unit
std::string format_gib(Bytes bytes);
// MiB (2^20 bytes), two decimals as llama.cpp's logs print them: "1234.56 MiB".
double to_mib(Bytes bytes);
std::string format_mib(Bytes bytes);
// A RAM size as typed and assumed, in GB without the unit: "32", "63.9" (--ram 63.9).
std::string format_ram_gb(Bytes bytes);
// The memory a GPU keeps free (--margin): "1 GiB", "512 MiB", "0 MiB".
std::string format_margin(Bytes bytes);  // "22.44 GiB" (2^30 bytes)

// A plan's context: "32k" for one sequence, "8 x 32k" for eight sharing 256k cells.
std::string format_plan_context(std::uint64_t cells, std::uint64_t sequences);
// "35B", "3.3B", "600M"
std::string format_params(std::uint64_t params);

// "a" or "an" before a number as it is read aloud: "an 8 GB card", "an 11 GB card", "a 12 GB
// card".
std::string article_for(const std::string& number);

// "1 GPU" or "3 GPUs", and the verb that agrees: "1 GPU runs", "3 GPUs run".
std::string count_of(std::size_t n, const std::string& noun);
std::string runs_for(std::size_t n);

}  // namespace canitrun
