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
