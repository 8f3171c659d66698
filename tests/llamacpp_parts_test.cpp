// The llama.cpp rule's parts: summed, they are estimate_llamacpp() term for term, for every
// database model the engine lays out; the layer kinds they use are the tensor layout's; and a
// few per-layer figures worked by hand.

#include <algorithm>

#include "canitrun/llamacpp_parts.hpp"

#include "canitrun/layer_kinds.hpp"
#include "canitrun/plan_settings.hpp"
#include "canitrun/tensor_layout.hpp"
#include "catch.hpp"
#include "test_support.hpp"

using namespace canitrun;

namespace {

LlamaCppOptions options_for(const Model& m, Backend backend) {
    LlamaCppOptions o;
    o.context = std::min<std::uint64_t>(8192, m.context_native);
    o.backend = backend;
    return o;
}

}  // namespace

TEST_CASE("llama.cpp parts add up to llama.cpp's terms for every database model") {
    std::size_t checked_models = 0;
    for (const auto& m : test::database().models) {
        if (!llama_arch(m)) continue;
        INFO(m.id);
        const Quant& q = test::quant("Q4_K_M");
        const auto parts = llamacpp_parts(m, q, options_for(m, Backend::cuda));
        REQUIRE(parts);
        const auto cpu = estimate_llamacpp(m, q, options_for(m, Backend::cpu)).value();
        Bytes layer_weights = 0;
        for (const auto& l : parts->layers) layer_weights += l.weights;
        // On the CPU the mapped file backs a tied output head: no duplicate.
        CHECK(parts->input_weights == cpu.term(TermKind::token_embd));
        CHECK(layer_weights + parts->output_weights == cpu.term(TermKind::weights));
        CHECK(parts->kv_cache() == cpu.term(TermKind::kv_cache));
        CHECK(parts->recurrent_state() == cpu.term(TermKind::recurrent_state));
        REQUIRE(parts->buffers);
        const auto on_cuda = estimate_llamacpp(m, q, options_for(m, Backend::cuda)).value();
        CHECK(parts->buffers->compute == cpu.term(TermKind::compute));
        // On one GPU with every layer and the head: the layers' phase with the masks' f32 copy
        // where it is kept (f32_mask_copy), or the logits batch with what CUDA's MoE reduction
        // fusion keeps under it, whichever is larger (placement.cpp's gpu_graph).
        const Bytes copy = parts->buffers->f32_mask_copy ? parts->buffers->mask_copy : 0;
        const Bytes logits = parts->buffers->logits_batch + parts->buffers->fused_moe_sum;
        CHECK(std::max(parts->buffers->attention_phase + copy, logits) ==
              on_cuda.term(TermKind::compute));
        CHECK(parts->buffers->output == cpu.term(TermKind::output));
        // Placed whole on one large GPU: the GPU and RAM shares are the CUDA profile's total.
        Hardware h = test::hardware_of({"h200-sxm"}, 4096);
        h.gpus[0].memory = 1ULL << 50;  // room for any model: this checks the sums, not a fit
        const auto placed = place(*parts, h, placement_for(h, PlanSettings{})).value();
        const auto cuda = estimate_llamacpp(m, q, options_for(m, Backend::cuda)).value();
        CHECK(placed.gpus[0].total() + placed.ram.total() == cuda.total());
        CHECK(placed.ram.total() == cuda.on(Device::cpu));
        ++checked_models;
    }
    CHECK(checked_models > 80);
}

TEST_CASE("llama.cpp parts: Llama 3.1 8B's per-layer cache and the host's terms, by hand") {
    const Model& m = test::model("llama-3.1-8b");
    LlamaCppOptions o;
    o.context = 8192;
    const auto parts = llamacpp_parts(m, test::quant("Q4_K_M"), o).value();
    REQUIRE(parts.layers.size() == 32);
    // 8 KV heads x 128 dims x (K + V) x 2 bytes (f16) x 8192 cells = 33,554,432 bytes a layer.
    for (const auto& l : parts.layers) CHECK(l.kv_cache == 33554432ULL);
    // token_embd: 128,256 x 4,096 values at Q4_K (144 bytes per 256 values), kept in RAM.
    CHECK(parts.input_weights == 128256ULL * 4096 / 256 * 144);
    // logits: 128,256 floats.
    CHECK(parts.buffers->output == 128256ULL * 4);
    // Dense: nothing is a routed expert, and a token reads the whole layer.
    for (const auto& l : parts.layers) {
        CHECK(l.routed_experts == 0);
        CHECK(l.active_weights == l.weights);
    }
}

TEST_CASE("llama.cpp parts: an MoE layer's experts are marked and read at top-k") {
    // Qwen 3.5 35B-A3B: 256 experts, 8 routed per token.
    const Model& m = test::model("qwen3.5-35b-a3b");
    const auto parts = llamacpp_parts(m, test::quant("Q4_K_M"), LlamaCppOptions{}).value();
    for (const auto& l : parts.layers) {
        REQUIRE(l.routed_experts > 0);
        CHECK(l.active_weights == l.weights - l.routed_experts + l.routed_experts * 8 / 256);
    }
}

TEST_CASE("one layer-kind rule: the tensor layout's recurrent layers are layer_kinds' ones") {
    std::size_t hybrids = 0;
    for (const auto& m : test::database().models) {
        const auto layout = tensor_layout(m);
        if (!layout) continue;
        INFO(m.id);
        const auto kinds = layer_kinds(m);
        std::vector<bool> has_ssm(kinds.size(), false);
        for (const auto& t : layout->tensors) {
            if (t.layer >= 0 && (t.name.find(".ssm_") != std::string::npos ||
                                 t.name.find(".shortconv.") != std::string::npos))
                has_ssm.at(static_cast<std::size_t>(t.layer)) = true;
        }
        const auto order = layer_group_order(m);
        for (std::size_t i = 0; i < kinds.size(); ++i) {
            INFO("layer " << i);
            // Falcon-H1's full layers run a Mamba-2 mixer beside their attention
            const bool recurrent =
                is_recurrent(kinds[i]) || has_parallel_ssm(m.arch.layer_groups[order.at(i)]);
            CHECK(has_ssm[i] == recurrent);
        }
        if (count_recurrent_layers(m) > 0) ++hybrids;
    }
    CHECK(hybrids >= 4);
}

TEST_CASE("layer kinds: of two groups as many, the full-attention layers end each period") {
    // Gemma 2 2B: 26 layers, 13 sliding and 13 global; llama.cpp's set_swa_pattern(2) makes
    // layer il sliding when il % 2 < 1: layers 0, 2, ..., 24 slide, 1, 3, ..., 25 are global.
    // (Before, the tie put the sliding layers last: every layer had the wrong kind.)
    const auto kinds = layer_kinds(test::model("gemma-2-2b"));
    REQUIRE(kinds.size() == 26);
    for (std::size_t i = 0; i < kinds.size(); ++i) {
        INFO("layer " << i);
        CHECK((kinds[i] == LayerKind::full) == (i % 2 == 1));
    }
}

TEST_CASE("layer kinds: the rarer group at the end of each period, as llama.cpp places it") {
    // Gemma 3 27B: 62 layers, 10 global; llama.cpp's set_swa_pattern(6) makes layer il global
    // when il % 6 == 5: layers 5, 11, ..., 59 (ten of them); 60 and 61 are sliding.
    const auto kinds = layer_kinds(test::model("gemma-3-27b"));
    REQUIRE(kinds.size() == 62);
    for (std::size_t i = 0; i < kinds.size(); ++i) {
        INFO("layer " << i);
        CHECK((kinds[i] == LayerKind::full) == (i % 6 == 5 && i < 60));
    }
}

// llama-server reserves its graph for n_parallel x (1 + draft) outputs (server_output_limits at
// 0ad4a86), not a ubatch of them; llama-bench and the library's default reserve every token.
// Llama 3.1 8B: n_vocab 128,256, n_embd 4,096, so 132,352 floats an output.
TEST_CASE("llama.cpp parts: llama-server's outputs cap the logits it reserves for") {
    const Model& m = test::model("llama-3.1-8b");
    CHECK(llama_server_outputs(m, 1, 0) == 1);
    CHECK(llama_server_outputs(m, 4, 0) == 4);
    CHECK(llama_server_outputs(m, 4, 3) == 16);  // 4 slots x (1 verified + 3 drafted)
    // an embedding model's server lets a batch of outputs through (n_batch): no cap
    CHECK(llama_server_outputs(test::model("qwen3-embedding-0.6b"), 4, 3) == 0);

    LlamaCppOptions o = options_for(m, Backend::cuda);
    // every token: 512 x 4 x 132,352 = 271,056,896 B
    CHECK(llamacpp_logits_batch_bytes(m, o).value() == 271'056'896ULL);
    o.outputs = 4;  // 4 x 4 x 132,352 = 2,117,632 B
    CHECK(llamacpp_logits_batch_bytes(m, o).value() == 2'117'632ULL);
    // a cap past the ubatch is the ubatch (n_outputs_pp = min(n_tokens, n_outputs_max))
    o.outputs = 2048;
    CHECK(llamacpp_logits_batch_bytes(m, o).value() == 271'056'896ULL);
}

// DeepSeek-V2-Lite's MLA floats stay a ubatch's (logits_batch_of says why); its logits follow
// the outputs: 4 x 4 x (102,400 + 2,048) + 512 x 4 x 30,720 = 1,671,168 + 62,914,560 B.
TEST_CASE("llama.cpp parts: an MLA model's capped logits batch keeps the layer's floats") {
    const Model& m = test::model("deepseek-v2-lite");
    LlamaCppOptions o = options_for(m, Backend::cuda);
    o.outputs = 4;
    CHECK(llamacpp_logits_batch_bytes(m, o).value() == 64'585'728ULL);
}

// The CPU backend's compute buffer with llama-server's outputs, against the pinned libllama
// (tools/accuracy/llama_probe.cpp, LLAMA_PROBE_OUTPUTS=4 and unset: ctx 4096, ubatch 512,
// flash attention on, f16 cache): the output phase falls below the layers'.
TEST_CASE("llama.cpp parts: the CPU's compute buffer under llama-server's outputs") {
    const auto compute = [](const std::string& id, std::uint64_t outputs) {
        LlamaCppOptions o;
        o.context = 4096;
        o.flash_attn = FlashAttn::on;
        o.backend = Backend::cpu;
        o.outputs = outputs;
        return llamacpp_compute_bytes(test::model(id), o).value();
    };
    // Every token (llama.cpp's log: 266.50 MiB): the output phase, 512 x 4 x (128,256 + 2 x 4,096).
    CHECK(compute("llama-3.1-8b", 0) == 279'445'504ULL);
    // Four outputs (120.01 MiB): the layers' phase, 512 x (2 x 4,096 f16 mask cells
    // + 4 x (4 x 4,096 + 3 x 14,336) floats) = 512 x 245,760 = 125,829,120 B = 120.00 MiB.
    CHECK(compute("llama-3.1-8b", 4) == 125'829'120ULL);
    // Mixtral's 2 x 14,336 gate and up outputs hold the down products (204.01 MiB):
    // 512 x (8,192 + 4 x (4 x 4,096 + 3 x 2 x 14,336)) = 213,909,504 B = 204.00 MiB.
    CHECK(compute("mixtral-8x7b", 4) == 213'909'504ULL);
    // Qwen3-30B-A3B's 8 x 2,048 down floats do not fit its 2 x 8 x 768 freed gate and up
    // outputs, so they land above the three widths (moe_down_floats; 92.01 MiB):
    // 512 x (8,192 + 4 x (4 x 2,048 + 3 x 8 x 768 + 8 x 2,048)) = 512 x 180,224 = 92,274,688 B.
    CHECK(compute("qwen3-30b-a3b", 4) == 92'274'688ULL);
    // Every token: the output phase, 512 x 4 x (151,936 + 2 x 2,048) = 319,553,536 B (304.75).
    CHECK(compute("qwen3-30b-a3b", 0) == 319'553'536ULL);
}

// The layers' peak under llama-server's outputs at 32768 cells, ubatch 512, flash attention,
// by hand from the graphs' tensor shapes (read with tools/accuracy/galloc_replay.py on the pinned
// libllama's CPU reservations; llama.cpp's figures in brackets).
TEST_CASE(
    "llama.cpp parts: the layers' peak of MSA, shared-expert, relu^2 and per-layer-input models") {
    const auto compute = [](const std::string& id, std::uint64_t n_seq) {
        LlamaCppOptions o;
        o.context = 32768;
        o.flash_attn = FlashAttn::on;
        o.backend = Backend::cpu;
        o.n_seq = n_seq;
        o.outputs = n_seq;
        return llamacpp_compute_bytes(test::model(id), o).value();
    };
    // MiniMax-M3, 4 streams of 8192 cells: the f16 mask (2 x 8192 a token), one stream's 128
    // tokens' block scores and their transposed copy (2 x 4 B x 4 indexer heads x 8192 cells),
    // and the larger of the f32 mask copy with 4 rows of 6144 and the 64 x 128 query's two blocks
    // (4 x 8192 + 4 x 40,960) or the 4 rows over the 4 experts' gate and up (4 x (24,576 + 2 x 4
    // x 3072)), both 196,608: 512 x 16,384 + 128 x 262,144 + 512 x 196,608 = 142,606,336 B,
    // 136.00 MiB (137.65).
    CHECK(compute("minimax-m3", 4) == 142'606'336ULL);
    // Llama 4 Scout: its shared expert runs after the routed one; at its GLU the masks (32768 +
    // 8704 chunked cells, f16), 4 rows of 5120, the routed down's freed 5120 and the shared
    // gate, up and GLU (3 x 8192): 512 x (2 x 41,472 + 4 x 50,176) = 145,227,776 B = 138.50 MiB
    // (138.62).
    CHECK(compute("llama-4-scout-17b-16e", 1) == 145'227'776ULL);
    // Nemotron-3-Nano's relu^2 experts: up (6 x 1856) with relu and sqr in place, the down
    // products (6 x 2688) above it: 512 x (2 x 32768 + 4 x (4 x 2688 + 11,136 + 16,128)) =
    // 111,411,200 B = 106.25 MiB (109.01: its Mamba layer's freed 8 MiB y sits under them).
    CHECK(compute("nemotron-3-nano-30b-a3b", 1) == 111'411'200ULL);
    // Gemma 4 E2B: the double-wide FFN (3 x 12,288), the per-layer inputs (35 x 256) alive
    // under it, and the 8 x 512 global query's block in place of two of the 4 rows of 1536:
    // 512 x (2 x (32768 + 1024) + 4 x (2 x 1536 + 4096 + 36,864 + 8960)) = 143,130,624 B =
    // 136.50 MiB (142.52: two 7 MiB holes of the narrower layers' FFNs under it).
    CHECK(compute("gemma-4-e2b", 1) == 143'130'624ULL);
}

// A plan's outputs are llama-server's (server_output_limits at 0ad4a86: n_parallel x (1 +
// --spec-draft-n-max, 3, with a draft)), or every token with --reserve-outputs all (0).
TEST_CASE("llama.cpp parts: plans reserve llama-server's outputs unless asked for all") {
    const Model& m = test::model("llama-3.1-8b");
    const auto outputs = [&](const Model& model, const PlanSettings& s) {
        return llamacpp_options(model, s, Backend::cuda).value().outputs;
    };
    PlanSettings s;
    CHECK(outputs(m, s) == 1);  // --parallel 1, no draft
    s.n_seq = 4;
    CHECK(outputs(m, s) == 4);
    s.server.draft = ResidentModel{&test::model("llama-3.2-1b"), &test::quant("Q4_K_M"), nullptr};
    CHECK(outputs(m, s) == 16);  // 4 x (1 + 3)
    s.outputs = OutputReserve::all;
    CHECK(outputs(m, s) == 0);
    // an embedding model's server reserves every token either way
    CHECK(outputs(test::model("qwen3-embedding-0.6b"), PlanSettings{}) == 0);
}
