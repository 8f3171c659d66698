// GGUF files -> Model: each layer kind llama.cpp derives from the metadata, the exact weights
// and quantization mix, split files, and the KV cache / recurrent state llama.cpp itself
// logged for four real architectures (tests/fixtures/llamacpp-cpu-buffers.json).

#include <unistd.h>
#include <cmath>

#include <filesystem>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>

#include "canitrun/gguf_files.hpp"
#include "canitrun/gguf_model.hpp"
#include "canitrun/kv_cache.hpp"
#include "canitrun/llamacpp_engine.hpp"
#include "canitrun/llamacpp_rules.hpp"
#include "canitrun/tensor_layout.hpp"
#include "catch.hpp"
#include "support/gguf_writer.hpp"

using namespace canitrun;
using canitrun::test::GgufWriter;

namespace {

GgufModel model_of(const GgufWriter& w) {
    auto f = read_gguf(MemorySource(w.bytes(), "t.gguf"));
    REQUIRE(f);
    auto m = gguf_to_model({*f});
    REQUIRE(m);
    return *m;
}

const KvType& f16() {
    static const KvType t = *parse_kv_type("f16");
    return t;
}

std::uint64_t layers_of(const Model& m, LayerKind kind) {
    return count_layers(m, kind);
}

// The metadata llama.cpp's converter writes, as the fixture logs print it.
GgufWriter llama31_8b() {
    GgufWriter w;
    w.str("general.architecture", "llama");
    w.str("general.name", "synthetic");
    w.u32("general.file_type", 15);
    w.u32("llama.vocab_size", 128256);
    w.u32("llama.context_length", 131072);
    w.u32("llama.embedding_length", 4096);
    w.u32("llama.block_count", 32);
    w.u32("llama.attention.head_count", 32);
    w.u32("llama.attention.head_count_kv", 8);
    w.u32("llama.attention.key_length", 128);
    w.u32("llama.attention.value_length", 128);
    w.f32("llama.attention.layer_norm_rms_epsilon", 1e-5F);
    w.f32("llama.rope.freq_base", 500000.0F);
    w.u32("llama.rope.dimension_count", 128);
    w.u32("llama.feed_forward_length", 14336);
    w.str("tokenizer.ggml.model", "no_vocab");
    return w;
}

// Qwen3-30B-A3B's config.json through convert_hf_to_gguf.py (Qwen3MoeModel).
GgufWriter qwen3_30b_a3b() {
    GgufWriter w;
    w.str("general.architecture", "qwen3moe");
    w.u32("qwen3moe.context_length", 40960);
    w.u32("qwen3moe.embedding_length", 2048);
    w.u32("qwen3moe.feed_forward_length", 6144);
    w.u32("qwen3moe.block_count", 48);
    w.u32("qwen3moe.attention.head_count", 32);
    w.u32("qwen3moe.attention.head_count_kv", 4);
    w.u32("qwen3moe.attention.key_length", 128);
    w.u32("qwen3moe.attention.value_length", 128);
    w.u32("qwen3moe.expert_count", 128);
    w.u32("qwen3moe.expert_used_count", 8);
    w.u32("qwen3moe.expert_feed_forward_length", 768);
    return w;
}

GgufWriter qwen35_35b_a3b() {
    GgufWriter w;
    w.str("general.architecture", "qwen35moe");
    w.u32("qwen35moe.vocab_size", 248320);
    w.u32("qwen35moe.context_length", 262144);
    w.u32("qwen35moe.embedding_length", 2048);
    w.u32("qwen35moe.block_count", 40);
    w.u32("qwen35moe.attention.head_count", 16);
    w.u32("qwen35moe.attention.head_count_kv", 2);
    w.u32("qwen35moe.attention.key_length", 256);
    w.u32("qwen35moe.attention.value_length", 256);
    w.u32("qwen35moe.rope.dimension_count", 64);
    w.u32("qwen35moe.expert_count", 256);
    w.u32("qwen35moe.expert_used_count", 8);
    w.u32("qwen35moe.expert_feed_forward_length", 512);
    w.u32("qwen35moe.expert_shared_feed_forward_length", 512);
    w.u32("qwen35moe.ssm.conv_kernel", 4);
    w.u32("qwen35moe.ssm.state_size", 128);
    w.u32("qwen35moe.ssm.group_count", 16);
    w.u32("qwen35moe.ssm.time_step_rank", 32);
    w.u32("qwen35moe.ssm.inner_size", 4096);
    w.u32("qwen35moe.full_attention_interval", 4);
    w.i32_array("qwen35moe.rope.dimension_sections", {11, 11, 10, 0});
    return w;
}

GgufWriter gemma3_27b() {
    GgufWriter w;
    w.str("general.architecture", "gemma3");
    w.u32("gemma3.vocab_size", 262208);
    w.u32("gemma3.context_length", 131072);
    w.u32("gemma3.embedding_length", 5376);
    w.u32("gemma3.block_count", 62);
    w.u32("gemma3.attention.head_count", 32);
    w.u32("gemma3.attention.head_count_kv", 16);
    w.u32("gemma3.attention.key_length", 128);
    w.u32("gemma3.attention.value_length", 128);
    w.u32("gemma3.feed_forward_length", 21504);
    w.u32("gemma3.attention.sliding_window", 1024);
    w.u32("gemma3.attention.sliding_window_pattern", 6);
    return w;
}

}  // namespace

TEST_CASE("gguf model: full attention") {
    const GgufModel g = model_of(llama31_8b());
    const Model& m = g.model;
    CHECK(g.architecture == "llama");
    CHECK(m.arch.layers == 32);
    CHECK(layers_of(m, LayerKind::full) == 32);
    CHECK(m.arch.vocab_size == 128256);
    CHECK(m.context_native == 131072);
    // 32 layers x 4096 tokens x (8 heads x (128 + 128)) x 2 bytes = 512 MiB
    CHECK(kv_cache_bytes(m, 4096, f16()) == 32ULL * 4096 * 8 * 256 * 2);
}

TEST_CASE("gguf model: sliding window with its pattern") {
    const Model m = model_of(gemma3_27b()).model;
    // set_swa_pattern(6): layer il slides when il % 6 < 5: 10 periods give 50, layers 60 and 61
    // two more; layers 5, 11, ..., 59 are global.
    CHECK(layers_of(m, LayerKind::sliding) == 52);
    CHECK(layers_of(m, LayerKind::full) == 10);
    // The model's own window is 1024 tokens; llama.cpp keeps pad(1024 + 512 ubatch, 256) = 1536
    // cells for each sliding layer.
    const Model cache = llama_cache_model(m, 8192);
    for (const auto& g : cache.arch.layer_groups) {
        if (g.kind == LayerKind::sliding) CHECK(g.window == 1536);
    }
    // A per-layer boolean array overrides the period.
    std::vector<bool> is_swa(62, false);
    for (std::size_t k = 0; k < 31; ++k) is_swa[2 * k] = true;
    GgufWriter w2;
    w2.str("general.architecture", "gemma2");
    w2.u32("gemma2.block_count", 62);
    w2.u32("gemma2.embedding_length", 1024);
    w2.u32("gemma2.attention.head_count", 8);
    w2.u32("gemma2.attention.sliding_window", 4096);
    w2.bool_array("gemma2.attention.sliding_window_pattern", is_swa);
    const Model m2 = model_of(w2).model;
    CHECK(layers_of(m2, LayerKind::sliding) == 31);
    CHECK(layers_of(m2, LayerKind::full) == 31);
}

TEST_CASE("gguf model: hybrid with 10 of 40 attention layers") {
    const Model m = model_of(qwen35_35b_a3b()).model;
    // full_attention_interval 4: layers 3, 7, ..., 39 attend, the other 30 are Gated DeltaNet.
    CHECK(layers_of(m, LayerKind::full) == 10);
    CHECK(layers_of(m, LayerKind::linear) == 30);
    CHECK(count_kv_layers(m) == 10);
    // 10 layers x 8192 x (2 heads x 512) x 2 bytes = 160 MiB (the log's KV buffer at 8192)
    CHECK(kv_cache_bytes(m, 8192, f16()) == 10ULL * 8192 * 2 * 512 * 2);
    // Per linear layer: conv 3 x (2 x 16 x 128 + 4096) = 24576 plus state 32 x 128 x 128 =
    // 524288 values, f32, 30 layers = 65,863,680 bytes (62.81 MiB in the log).
    CHECK(recurrent_state_bytes(m) == 30ULL * (24576 + 524288) * 4);
    REQUIRE(m.arch.moe);
    CHECK(m.arch.moe->experts == 256);
    CHECK(m.arch.moe->experts_per_token == 8);

    // The same 10-of-40 split written as a per-layer head_count_kv array (0 = recurrent).
    GgufWriter w;
    w.str("general.architecture", "granitehybrid");
    w.u32("granitehybrid.block_count", 40);
    w.u32("granitehybrid.embedding_length", 1536);
    w.u32("granitehybrid.attention.head_count", 12);
    std::vector<std::uint32_t> kv(40, 0);
    for (std::size_t il = 3; il < 40; il += 4) kv[il] = 4;
    w.u32_array("granitehybrid.attention.head_count_kv", kv);
    w.u32("granitehybrid.ssm.conv_kernel", 4);
    w.u32("granitehybrid.ssm.inner_size", 3072);
    w.u32("granitehybrid.ssm.state_size", 128);
    w.u32("granitehybrid.ssm.group_count", 1);
    w.u32("granitehybrid.ssm.time_step_rank", 48);
    const Model g = model_of(w).model;
    CHECK(layers_of(g, LayerKind::full) == 10);
    CHECK(layers_of(g, LayerKind::ssm) == 30);
    // head dim 1536 / 12 = 128: 10 layers x 1000 tokens x 4 x 256 x 2 bytes
    CHECK(kv_cache_bytes(g, 1000, f16()) == 10ULL * 1000 * 4 * 256 * 2);
    // Mamba-2: conv 3 x (3072 + 2 x 1 x 128) = 9984, state 128 x 3072 = 393216; f32, 30 layers
    CHECK(recurrent_state_bytes(g) == 30ULL * (9984 + 393216) * 4);
}

TEST_CASE("gguf model: nemotron_h_moe's experts are two-matrix, as in the database") {
    GgufWriter w;
    w.str("general.architecture", "nemotron_h_moe");
    w.u32("nemotron_h_moe.block_count", 4);
    w.u32("nemotron_h_moe.embedding_length", 2688);
    w.u32("nemotron_h_moe.attention.head_count", 32);
    w.u32("nemotron_h_moe.expert_count", 128);
    w.u32("nemotron_h_moe.expert_used_count", 6);
    w.u32("nemotron_h_moe.expert_feed_forward_length", 1856);
    const Model m = model_of(w).model;
    REQUIRE(m.arch.moe);
    CHECK_FALSE(m.arch.moe->gated);
    // A SwiGLU MoE's file is read as three-matrix experts.
    const Model q = model_of(qwen3_30b_a3b()).model;
    REQUIRE(q.arch.moe);
    CHECK(q.arch.moe->gated);
}

TEST_CASE("gguf model: MLA") {
    GgufWriter w;
    w.str("general.architecture", "deepseek2");
    w.u32("deepseek2.block_count", 27);
    w.u32("deepseek2.embedding_length", 2048);
    w.u32("deepseek2.attention.head_count", 16);
    w.u32("deepseek2.attention.head_count_kv", 1);
    w.u32("deepseek2.attention.key_length", 576);
    w.u32("deepseek2.attention.value_length", 512);
    w.u32("deepseek2.attention.key_length_mla", 192);
    w.u32("deepseek2.attention.value_length_mla", 128);
    w.u32("deepseek2.attention.kv_lora_rank", 512);
    w.u32("deepseek2.rope.dimension_count", 64);
    w.u32("deepseek2.leading_dense_block_count", 1);
    w.u32("deepseek2.expert_count", 64);
    w.u32("deepseek2.expert_used_count", 6);
    w.u32("deepseek2.expert_shared_count", 2);
    const Model m = model_of(w).model;
    REQUIRE(layers_of(m, LayerKind::mla) == 27);
    const LayerGroup& g = m.arch.layer_groups.front();
    CHECK(g.kv_lora_rank == 512);
    CHECK(g.qk_rope_head_dim == 64);
    CHECK(g.qk_nope_head_dim == 128);
    // A head's own sizes (key_length_mla 192, value_length_mla 128), not the latent's 576 / 512
    // that key_length / value_length give in an absorbed-MLA file: attn_v_b and attn_output are
    // 16 x 128 wide (with 512 they were 4x wider, 23e9 weights too many for DeepSeek V3).
    CHECK(m.arch.attention.head_dim == 192);
    CHECK(m.arch.attention.v_head_dim == 128);
    const auto layout = tensor_layout(m);
    REQUIRE(layout);
    std::uint64_t output_width = 0;
    for (const auto& t : layout->tensors) {
        if (t.name == "blk.1.attn_output.weight") output_width = t.ne[0];
    }
    CHECK(output_width == std::uint64_t{16} * 128);
    // One latent (512) + the rope key (64) per token per layer: 27 x 4096 x 576 x 2 bytes.
    CHECK(kv_cache_bytes(m, 4096, f16()) == 27ULL * 4096 * 576 * 2);
    REQUIRE(m.arch.moe);
    CHECK(m.arch.moe->moe_layers == 26);
}

TEST_CASE("gguf model: pure SSM") {
    GgufWriter w;
    w.str("general.architecture", "mamba2");
    w.u32("mamba2.block_count", 64);
    w.u32("mamba2.embedding_length", 2560);
    w.u32("mamba2.ssm.conv_kernel", 4);
    w.u32("mamba2.ssm.inner_size", 5120);
    w.u32("mamba2.ssm.state_size", 128);
    w.u32("mamba2.ssm.group_count", 8);
    w.u32("mamba2.ssm.time_step_rank", 80);
    const Model m = model_of(w).model;
    CHECK(layers_of(m, LayerKind::ssm) == 64);
    CHECK(kv_cache_bytes(m, 1 << 20, f16()) == 0);
    // conv 3 x (5120 + 2 x 8 x 128) = 21504, state 128 x 5120 = 655360; f32, 64 layers
    CHECK(recurrent_state_bytes(m) == 64ULL * (21504 + 655360) * 4);
}

TEST_CASE("gguf model: weights to the byte and the quantization mix") {
    GgufWriter w = llama31_8b();
    w.tensor("token_embd.weight", {4096, 128256}, 12);  // q4_K: 16 blocks x 144 per row
    w.tensor("blk.0.attn_norm.weight", {4096}, 0);      // f32
    w.tensor("output.weight", {4096, 128256}, 14);      // q6_K: 16 x 210
    w.tensor("blk.0.ffn_down.weight", {14336, 4096}, 12);
    const GgufModel g = model_of(w);
    const std::uint64_t q4 = 128256ULL * 16 * 144 + 4096ULL * 56 * 144;
    const std::uint64_t q6 = 128256ULL * 16 * 210;
    CHECK(g.weights_bytes == q4 + q6 + 4096ULL * 4);
    REQUIRE(g.mix.size() == 3);
    // Largest first: q6_K 430,940,160 bytes, then q4_K 328,531,968, then f32.
    CHECK(g.mix[0].type == "q6_K");
    CHECK(g.mix[0].bytes == q6);
    CHECK(g.mix[1].type == "q4_K");
    CHECK(g.mix[1].tensors == 2);
    CHECK(g.mix[1].bytes == q4);
    CHECK(g.mix[2].bytes == 4096ULL * 4);
    CHECK(g.model.params_total == 2 * 4096ULL * 128256 + 4096 + 14336ULL * 4096);
    CHECK_FALSE(g.model.arch.tied_embeddings);
}

TEST_CASE("gguf model: errors name what is missing") {
    GgufWriter w;
    w.u32("x", 1);
    auto f = read_gguf(MemorySource(w.bytes()));
    REQUIRE(f);
    const auto r = gguf_to_model({*f});
    REQUIRE_FALSE(r);
    CHECK(r.error().message.find("general.architecture") != std::string::npos);
    GgufWriter w2;
    w2.str("general.architecture", "llama");
    auto f2 = read_gguf(MemorySource(w2.bytes()));
    const auto r2 = gguf_to_model({*f2});
    REQUIRE_FALSE(r2);
    CHECK(r2.error().message.find("llama.block_count") != std::string::npos);
}

TEST_CASE("gguf model: split files are read as one model") {
    const auto dir = std::filesystem::temp_directory_path() /
                     ("canitrun_gguf_split_test_" + std::to_string(::getpid()));
    std::filesystem::remove_all(dir);
    std::filesystem::create_directories(dir);
    const std::string prefix = (dir / "m").string();
    std::uint64_t expected = 0;
    for (std::uint16_t k = 0; k < 3; ++k) {
        GgufWriter w = k == 0 ? llama31_8b() : GgufWriter();
        w.u16("split.no", k);
        w.u16("split.count", 3);
        w.i32("split.tensors.count", 6);
        for (int t = 0; t < 2; ++t) {
            w.tensor("blk." + std::to_string(2 * k + t) + ".w", {4096, 4096}, 8);  // q8_0
            expected += 4096ULL * 4096 / 32 * 34;
        }
        w.write_sparse_file(split_part_path(prefix, k + 1U, 3));
    }
    const auto parts = read_gguf_parts(split_part_path(prefix, 2, 3));
    REQUIRE(parts);
    CHECK(parts->size() == 3);
    const auto g = gguf_to_model(*parts);
    REQUIRE(g);
    CHECK(g->weights_bytes == expected);
    CHECK(g->tensor_count == 6);
    CHECK(g->parts == 3);
    CHECK(g->model.arch.layers == 32);

    std::filesystem::remove(split_part_path(prefix, 3, 3));
    const auto missing = read_gguf_parts(split_part_path(prefix, 1, 3));
    REQUIRE_FALSE(missing);
    CHECK(missing.error().message.find("part 3 of 3 is missing") != std::string::npos);
    CHECK(missing.error().message.find("m-00003-of-00003.gguf") != std::string::npos);
    std::filesystem::remove_all(dir);
}

// The four architectures llama.cpp loaded (tests/fixtures/llamacpp-cpu-buffers.json): the KV
// cache and recurrent state at each context must match its log within 0.01 MiB.
TEST_CASE("gguf model: KV cache and recurrent state match llama.cpp's buffers") {
    std::ifstream in(std::string(CANITRUN_FIXTURES) + "/llamacpp-cpu-buffers.json");
    REQUIRE(in);
    const auto doc = nlohmann::json::parse(in);
    const std::map<std::string, GgufWriter> files = {
        {"llama-3.1-8b", llama31_8b()},
        {"qwen3-30b-a3b", qwen3_30b_a3b()},
        {"qwen3.5-35b-a3b", qwen35_35b_a3b()},
        {"gemma-3-27b", gemma3_27b()},
    };
    const double tolerance = 0.01 * 1048576;
    int checked_contexts = 0;
    for (const auto& entry : doc["models"]) {
        const std::string name = entry["model"];
        INFO(name);
        REQUIRE(files.count(name) == 1);
        const GgufModel g = model_of(files.at(name));
        CHECK(g.architecture == entry["arch"].get<std::string>());
        for (const auto& c : entry["contexts"]) {
            const std::uint64_t ctx = c["n_ctx"];
            INFO(ctx);
            const Model cache = llama_cache_model(g.model, ctx);
            const auto kv =
                static_cast<double>(kv_cache_bytes(cache, llama_padded_context(ctx), f16()));
            const auto rs = static_cast<double>(recurrent_state_bytes(g.model));
            CHECK(std::abs(kv - c["kv_cache_bytes"].get<double>()) <= tolerance);
            CHECK(std::abs(rs - c["recurrent_state_bytes"].get<double>()) <= tolerance);
            ++checked_contexts;
        }
    }
    CHECK(checked_contexts == 16);
}

// Gemma 4 E2B's metadata as validation/llama-logs/metal-004 prints it (Unsloth's file): 35
// layers, the last 20 sharing their KV, feed_forward_length one width per layer (6144 for the 15
// with their own cache, 12288 for the 20 sharing: use_double_wide_mlp) and a per-layer input
// width of 256. The model keeps the two widths apart (not 12288 for all 35) and the per-layer
// width that sizes per_layer_token_embd (256 x 35 = 8960 per token).
TEST_CASE("gguf model: Gemma 4 E2B's per-layer inputs and its wider sharing layers") {
    GgufWriter w;
    w.str("general.architecture", "gemma4");
    w.u32("gemma4.block_count", 35);
    w.u32("gemma4.embedding_length", 1536);
    w.u32("gemma4.attention.head_count", 8);
    w.u32("gemma4.attention.head_count_kv", 1);
    w.u32("gemma4.attention.key_length", 512);
    w.u32("gemma4.attention.value_length", 512);
    w.u32("gemma4.attention.shared_kv_layers", 20);
    w.u32("gemma4.embedding_length_per_layer_input", 256);
    std::vector<std::int32_t> ffn(35, 6144);
    for (std::size_t il = 15; il < 35; ++il) ffn[il] = 12288;
    w.i32_array("gemma4.feed_forward_length", ffn);
    const Model m = model_of(w).model;
    CHECK(m.arch.per_layer_input_size == 256);
    CHECK(m.arch.shared_kv_layers == 20);
    CHECK(m.arch.intermediate_size == 6144);
    CHECK(m.arch.shared_kv_intermediate_size == 12288);
    // Without the key (Gemma 4 26B-A4B, 31B) there are no per-layer inputs, and one width for
    // every layer stays the model's width with none apart.
    GgufWriter plain;
    plain.str("general.architecture", "gemma4");
    plain.u32("gemma4.block_count", 4);
    plain.u32("gemma4.embedding_length", 1536);
    plain.u32("gemma4.attention.head_count", 8);
    plain.u32("gemma4.feed_forward_length", 6144);
    const Model p = model_of(plain).model;
    CHECK(p.arch.per_layer_input_size == 0);
    CHECK(p.arch.intermediate_size == 6144);
    CHECK(p.arch.shared_kv_intermediate_size == 0);
}

// <arch>.pooling_type (llama.h's llama_pooling_type: 1 mean, 2 cls, 3 last, 4 rank) makes a file
// an embedding or reranking model, served as the database's entry is (llama_serve); 0 (none)
// and no key leave a chat model. Qwen3-Embedding's converter writes 3 (last), Qwen3-Reranker's
// 4 (rank: conversion/qwen.py line 226 at 0ad4a86).
TEST_CASE("gguf model: the pooling type decides what llama-server serves the file for") {
    const auto with_pooling = [](std::optional<std::uint32_t> type) {
        GgufWriter w = llama31_8b();
        if (type) w.u32("llama.pooling_type", *type);
        return model_of(w).model;
    };
    const Model last = with_pooling(3);
    CHECK(last.run.pooling == "last");
    CHECK(last.run.pooling_source == "GGUF llama.pooling_type");
    CHECK(llama_serve(last) == LlamaServe::embeddings);
    CHECK(with_pooling(1).run.pooling == "mean");
    CHECK(with_pooling(2).run.pooling == "cls");
    CHECK(llama_serve(with_pooling(4)) == LlamaServe::reranking);
    CHECK(llama_serve(with_pooling(0)) == LlamaServe::completion);
    CHECK(llama_serve(with_pooling(std::nullopt)) == LlamaServe::completion);
    CHECK(llama_serve(with_pooling(7)) == LlamaServe::completion);  // no such type in llama.h
    // The embedding file's output buffer is a batch of outputs, as the database entry's:
    // (128,256 + 4,096) x 4 B x 512 = 271,056,896 B; the chat file's one sequence's logits,
    // 128,256 x 4 = 513,024 B.
    LlamaCppOptions o;
    o.context = 8192;
    CHECK(llamacpp_output_bytes(last, o) == 271'056'896ULL);
    CHECK(llamacpp_output_bytes(with_pooling(0), o) == 513'024ULL);
}
