#pragma once
// llama.cpp's llama-bench output as data: one row per test it ran (pp512, tg128,
// pp512 @ d4096, ...) with the model, the backend, the settings the output shows and the
// measured tokens per second. Pure: takes the text, prints nothing, reads no file.
//
// Reads the four formats llama-bench writes: the markdown table (its default, with whatever
// stderr lines came with it: device lines, `build: 1234abcd (5678)`), `-o json`, `-o jsonl`
// and `-o csv`, from 2023 builds ("pp 512", no n_depth, cuda/metal flags instead of
// `backends`) to current ones (depth tests, `fa`, `n_ubatch`, `mmap`, RPC). `-o sql` is not
// read.

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "canitrun/checked.hpp"
#include "canitrun/error.hpp"

namespace canitrun {

// Lines longer than this are skipped unread (and counted): no line llama-bench prints comes
// near it, a JSONL record with thousands of samples included.
inline constexpr std::size_t kMaxBenchLineBytes = std::size_t{64} * 1024;

struct LlamaBenchRow {
    std::string model;  // "llama 8B Q4_K - Medium" (markdown model, json model_type)
    // Markdown "4.58 GiB" / "4685.30 MiB" rounded to bytes; json model_size is exact.
    std::optional<Bytes> size;
    // Markdown "8.03 B" -> 8030000000 (two decimals); json model_n_params is exact.
    std::optional<std::uint64_t> params;
    std::string backend;             // "CUDA", "Metal,BLAS", "CUDA,RPC", "Vulkan", "ROCm"
    std::optional<int> ngl;          // -1 in builds whose default is "all layers"
    std::optional<bool> flash_attn;  // absent when not shown, or "auto" (-1)
    std::optional<std::uint64_t> n_ubatch, n_batch;
    std::string type_k, type_v;  // when shown ("q8_0"); json/csv always have them
    std::uint64_t n_prompt = 0, n_gen = 0, n_depth = 0;
    std::string test;              // in today's spelling: "pp512", "pp512+tg128 @ d4096"
    double tokens_per_second = 0;  // the mean (before "±")
    std::optional<double> stddev;  // after "±"
    std::string gpu_info;          // json/csv gpu_info, or the "Device 0: <name>, ..." lines
    std::string build;             // "1234abcd (5678)", from the build: line or the json fields
};

struct LlamaBenchOutput {
    std::vector<LlamaBenchRow> rows;
    std::string format;  // "markdown", "json", "jsonl", "csv"
    // Lines (or json entries) that looked like results but could not be read, and lines longer
    // than kMaxBenchLineBytes.
    std::uint64_t skipped_lines = 0;
};

// Detects the format from the first line that can only be llama-bench's (the table header, the
// CSV header, a JSON array or object). An error when the text holds no readable result.
Result<LlamaBenchOutput> parse_llama_bench(std::string_view text);

}  // namespace canitrun
