// Fuzzes the llama-bench output parser: any text is rows or a clear error, and every row holds
// a test and a rate llama-bench could have printed.

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string_view>

#include "canitrun/llama_bench.hpp"

namespace {

bool bad_rate(double v) {
    return !std::isfinite(v) || v < 0;
}

bool bad_row(const canitrun::LlamaBenchRow& r) {
    if (bad_rate(r.tokens_per_second) || (r.stddev && bad_rate(*r.stddev))) return true;
    if (r.test.empty() || (r.n_prompt == 0 && r.n_gen == 0)) return true;
    if ((r.n_prompt > 0) != r.test.starts_with("pp")) return true;
    if ((r.n_gen > 0) != (r.test.find("tg") != std::string_view::npos)) return true;
    return (r.n_depth > 0) != (r.test.find(" @ d") != std::string_view::npos);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    const std::string_view text(reinterpret_cast<const char*>(data), size);
    const auto out = canitrun::parse_llama_bench(text);
    if (!out) {
        if (out.error().message.empty()) std::abort();
        return 0;
    }
    if (out->rows.empty() || out->skipped_lines > size) std::abort();
    const std::string_view f = out->format;
    if (f != "markdown" && f != "json" && f != "jsonl" && f != "csv") std::abort();
    for (const auto& row : out->rows) {
        if (bad_row(row)) std::abort();
    }
    return 0;
}
