// Whatever verify cannot read, it names, line and reason (issue #31): every memory line the
// llama.cpp log reader leaves unread carries its number in the text and why; a log not planned
// per device says why.

#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "canitrun/llama_log.hpp"
#include "canitrun/verify.hpp"
#include "canitrun/verify_devices.hpp"
#include "catch.hpp"
#include "run_binary.hpp"
#include "test_support.hpp"

using namespace canitrun;
using canitrun::test::has;
using canitrun::test::run_cli;

namespace {

const LlamaLogUnread* unread_at(const LlamaLog& log, std::uint64_t line) {
    for (const auto& u : log.unread_lines) {
        if (u.line == line) return &u;
    }
    return nullptr;
}

}  // namespace

// Six lines: the buffer line (3) and the context's n_ctx (5, in the early-2025 tag
// llama_init_from_model) are read; line 4 is the January 2024 format's weights line and line 6
// a memory line of no shape the reader knows; lines 1 and 2 say nothing of memory.
TEST_CASE("llama log: each memory line left unread is named by number and reason") {
    const std::string text =
        "llama_model_loader: - kv   0: general.architecture str = llama\n"
        "print_info: file type   = Q4_K - Medium\n"
        "load_tensors:        CUDA0 model buffer size =   100.00 MiB\n"
        "llm_load_tensors: VRAM used           = 12603.02 MiB\n"
        "llama_init_from_model: n_ctx         = 2048\n"
        "some_func: a frobnicator of 3.00 MiB\n";
    const auto log = parse_llama_log(text);
    REQUIRE(log);
    CHECK(log->unread_lines.size() == 2);
    const auto* old_format = unread_at(*log, 4);
    REQUIRE(old_format != nullptr);
    CHECK(has(old_format->reason, "before its per-buffer lines"));
    CHECK(old_format->text == "llm_load_tensors: VRAM used           = 12603.02 MiB");
    const auto* unknown = unread_at(*log, 6);
    REQUIRE(unknown != nullptr);
    CHECK(unknown->reason == "a memory line of a shape verify does not read");
    REQUIRE(log->contexts.size() == 1);
    CHECK(log->contexts[0].n_ctx == 2048);
    // verify names both in its notes
    const auto report = verify_llama_log(*log, std::nullopt);
    REQUIRE(report);
    int named = 0;
    for (const auto& n : report->notes) named += n.starts_with("line 4 not read (") ? 1 : 0;
    for (const auto& n : report->notes) named += n.starts_with("line 6 not read (") ? 1 : 0;
    CHECK(named == 2);
}

// A published ik_llama.cpp log whose file type (IQ3_K) no quantization of the data names: the
// per-device plan is not made, and the report says why rather than nothing.
TEST_CASE("cli: verify says why a log is not planned per device") {
    const auto o =
        run_cli({"verify",
                 std::string(CANITRUN_SOURCE_DIR) +
                     "/validation/llama-logs/cudax-007-ik-qwen3-235b-a22b-iq3k-5090-4090-ot.log"});
    REQUIRE(o.code == 0);
    CHECK(has(o.out,
              "per device: not planned: the file type \"IQ3_K - 3.4325 bpw\" is no "
              "quantization canitrun's data holds"));
    // its line 132, the tensors' metadata, is named too
    CHECK(has(o.out, "line 132 not read (the tensors' metadata"));
}

// The loader's count of the file's tensors per type (issue #31): a file typed otherwise than
// canitrun's data types it (a publisher's recipe) shows there, and verify says so instead of
// letting its weights stand for a rule. Qwen3.5-35B-A3B Q8_0 (qwen35moe, 40 layers: 30 linear
// attention, 10 full): the quantized tensors are each linear layer's attn_qkv, attn_gate,
// ssm_alpha, ssm_beta, ssm_out and each full layer's attn_q / k / v / output, each layer's
// three routed and three shared FFN matrices, token_embd and output: 30 x (5 + 6) + 10 x
// (4 + 6) + 2 = 432 q8_0; the other 733 - 432 = 301 of the loader's 733 are f32. The log's
// counts are those, so they match; moved by one tensor to f16 they do not.
TEST_CASE("llama log: verify compares the file's tensors per type with the plan's") {
    const std::string text =
        test::read_file(std::string(CANITRUN_FIXTURES) +
                        "/logs/cudab-012-qwen3.5-35b-a3b-q8_0-4xa6000-np4auto.log");
    const auto check = [](const std::string& log_text) {
        const auto log = parse_llama_log(log_text);
        REQUIRE(log);
        const auto report = verify_llama_log(*log, test::quant("Q8_0"));
        REQUIRE(report);
        REQUIRE(report->contexts.size() == 1);
        REQUIRE(report->contexts[0].devices);
        return std::make_pair(*log, *report->contexts[0].devices);
    };
    const auto [log, same] = check(text);
    const std::vector<std::pair<std::string, std::uint64_t>> counts{{"f32", 301}, {"q8_0", 432}};
    CHECK(log.type_counts == counts);
    CHECK(same.file_types_match == std::optional<bool>(true));

    std::string upcast = text;
    const std::string q8 = "- type q8_0:  432 tensors";
    REQUIRE(upcast.find(q8) != std::string::npos);
    upcast.replace(upcast.find(q8), q8.size(),
                   "- type q8_0:  431 tensors\nllama_model_loader: - type  f16:    1 tensors");
    const auto [moved, other] = check(upcast);
    CHECK(moved.type_counts.size() == 3);
    CHECK(other.file_types_match == std::optional<bool>(false));
    bool named = false;
    for (const auto& n : other.notes) {
        named = named || has(n,
                             "(f16 1, f32 301, q8_0 431) are not Q8_0's as canitrun types "
                             "this model (f32 301, q8_0 432)");
    }
    CHECK(named);
}

// A split the log does not print, read from its own buffers (validation/llama-logs/cudab-012:
// 4x RTX A6000, Qwen3.5-35B-A3B Q8_0, every buffer on CUDA2 and CUDA3). Its 40 layers are
// three Gated DeltaNet layers, then a full-attention one (layers 3, 7, ..., 39). The log's
// recurrent state, 251.25 MiB over 30 layers, is 8.375 MiB a layer: CUDA2's 134.00 MiB is
// 16 of them, CUDA3's 117.25 MiB 14; each GPU's 320.00 MiB of KV is 5 full layers (64 MiB each,
// 640.00 over 10). So CUDA2 holds layers 0 to 20 (21: 16 + 5, as -ts 0,0,1,1 puts them:
// llama.cpp gives unit i of 41 to CUDA2 while i / 41 < 1 / 2) and CUDA3 layers 21 to 39 and
// the head (20 units). Split by free memory (45200 and 48021 MiB) CUDA2 would take units i with
// i / 41 < 45200 / 93221, 0 to 19, and 15 recurrent layers (125.625 MiB). verify reads the
// split from the GPUs' model buffers and names it.
TEST_CASE("verify per device: a split the log does not print, read from its model buffers") {
    const auto log = parse_llama_log(
        test::read_file(std::string(CANITRUN_FIXTURES) +
                        "/logs/cudab-012-qwen3.5-35b-a3b-q8_0-4xa6000-np4auto.log"));
    REQUIRE(log);
    const auto report = verify_llama_log(*log, test::quant("Q8_0"));
    REQUIRE(report);
    REQUIRE(report->contexts.size() == 1);
    const auto& d = report->contexts[0].devices;
    REQUIRE(d);
    const auto estimate = [&](const std::string& device, const std::string& term) {
        for (const auto& r : d->rows) {
            if (r.device == device && r.term == term && r.estimate) return *r.estimate;
        }
        FAIL("no row " << device << " " << term);
        return Bytes{0};
    };
    constexpr Bytes kLayerState = 8375ULL * 1024 * 1024 / 1000;  // 8.375 MiB
    CHECK(estimate("CUDA2", "recurrent_state") == 16 * kLayerState);
    CHECK(estimate("CUDA3", "recurrent_state") == 14 * kLayerState);
    CHECK(estimate("CUDA2", "kv_cache") == 5 * (Bytes{64} << 20));
    CHECK(estimate("CUDA3", "kv_cache") == 5 * (Bytes{64} << 20));
    CHECK(estimate("CUDA0", "weights") == 0);
    bool named = false;
    for (const auto& n : d->notes) {
        named = named || has(n, "read from the GPUs' model buffers: CUDA2 21, CUDA3 20 of 41");
    }
    CHECK(named);
}
