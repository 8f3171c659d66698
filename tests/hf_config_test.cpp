// Hugging Face config.json -> Model, on hand-written configs in tests/fixtures/hf/ (fields as
// the vendors' configs name them), and parameter counts from safetensors headers and indexes.
// Every KV figure below is worked out by hand from the config's fields.

#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>
#include <utility>
#include <vector>

#include "canitrun/hf_config.hpp"
#include "canitrun/hf_files.hpp"
#include "canitrun/kv_cache.hpp"
#include "canitrun/layer_kinds.hpp"
#include "catch.hpp"
#include "test_support.hpp"

using namespace canitrun;

namespace {

std::string fixture(const std::string& name) {
    return std::string(CANITRUN_FIXTURES) + "/hf/" + name;
}

Model load(const std::string& name) {
    auto m = read_hf_model(fixture(name));
    REQUIRE(m);
    return m->model;
}

const KvType& f16() {
    static const KvType t = *parse_kv_type("f16");
    return t;
}

std::string le64(std::uint64_t v) {
    std::string out;
    for (int k = 0; k < 8; ++k) out += static_cast<char>((v >> (8 * k)) & 0xFF);
    return out;
}

}  // namespace

TEST_CASE("hf: linear attention hybrid with full_attention_interval") {
    auto hf = read_hf_model(fixture("qwen3-next"));
    REQUIRE(hf);
    const Model& m = hf->model;
    CHECK(count_layers(m, LayerKind::full) == 12);  // layers 3, 7, ..., 47
    CHECK(count_layers(m, LayerKind::linear) == 36);
    CHECK(m.arch.attention.output_gate);
    // 12 layers x 8192 tokens x 2 KV heads x (256 + 256) x 2 bytes
    CHECK(kv_cache_bytes(m, 8192, f16()) == 12ULL * 8192 * 2 * 512 * 2);
    // conv 3 x (2 x 16 x 128 + 32 x 128) = 24576, state 32 x 128 x 128 = 524288; f32, 36 layers
    CHECK(recurrent_state_bytes(m) == 36ULL * (24576 + 524288) * 4);
    // model.safetensors.index.json: total_size 159,000,000,000 bytes of bfloat16 = 79.5e9
    CHECK(m.params_total == 79500000000ULL);
    CHECK(hf->params_source.find("index") != std::string::npos);
    REQUIRE(m.arch.moe);
    CHECK(m.arch.moe->experts == 512);
    CHECK(m.arch.moe->experts_per_token == 10);
}

TEST_CASE("hf: multimodal config reads its text_config with the sliding pattern") {
    const Model m = load("gemma3-multimodal/config.json");
    CHECK(m.arch.hidden_size == 5376);
    CHECK(count_layers(m, LayerKind::sliding) == 52);  // il % 6 < 5
    CHECK(count_layers(m, LayerKind::full) == 10);
    // full: 10 x 8192 x 16 x 256 x 2; sliding: 52 x 1024 x 16 x 256 x 2
    CHECK(kv_cache_bytes(m, 8192, f16()) ==
          10ULL * 8192 * 16 * 256 * 2 + 52ULL * 1024 * 16 * 256 * 2);
    CHECK(m.context_native == 131072);
}

TEST_CASE("hf: MLA from kv_lora_rank") {
    const Model m = load("deepseek-v2-lite");
    REQUIRE(count_layers(m, LayerKind::mla) == 27);
    // latent 512 + rope key 64 per token and layer
    CHECK(kv_cache_bytes(m, 4096, f16()) == 27ULL * 4096 * 576 * 2);
    REQUIRE(m.arch.moe);
    CHECK(m.arch.moe->moe_layers == 26);  // first_k_dense_replace 1
    CHECK(m.arch.moe->shared_experts == 2);
}

TEST_CASE("hf: layer_types lists each layer") {
    const Model m = load("layer-types");
    CHECK(count_layers(m, LayerKind::sliding) == 12);
    CHECK(count_layers(m, LayerKind::full) == 12);
    // full: 12 x 8192 x 8 x 128 x 2; sliding: 12 x 128 x 8 x 128 x 2
    CHECK(kv_cache_bytes(m, 8192, f16()) == 12ULL * 8192 * 8 * 128 * 2 + 12ULL * 128 * 8 * 128 * 2);
}

TEST_CASE("hf: Nemotron-H hybrid_override_pattern") {
    const Model m = load("nemotron-h");
    // every block is one of llama.cpp's layers: 24 Mamba-2, 4 attention, 24 MLP alone
    CHECK(m.arch.layers == 52);
    CHECK(count_layers(m, LayerKind::ssm) == 24);
    CHECK(count_layers(m, LayerKind::full) == 4);
    CHECK(count_layers(m, LayerKind::ffn) == 24);
    CHECK(m.arch.layer_order == "M-M-M-M*-M-M-M-M-M*-M-M-M-M-M*-M-M-M-M-M*-M-M-M-M-M-");
    CHECK(layer_kinds(m)[7] == LayerKind::full);
    // untied embeddings 2 x 131072 x 4096; Mamba blocks 4096 x (8192 + 10240 + 128) in,
    // 8192 x 4096 out, 4 x 10240 conv; attention 4096 x 128 x (32 + 8) + 4096 x 128 x 8 +
    // 32 x 128 x 4096; relu2 MLPs two matrices of 4096 x 21504, on the 24 MLP blocks only
    CHECK_FALSE(m.arch.gated_ffn);
    CHECK(m.params_total ==
          2ULL * 131072 * 4096 + 24ULL * (4096ULL * 18560 + 8192ULL * 4096 + 4ULL * 10240) +
              4ULL * (4096ULL * 128 * 40 + 4096ULL * 128 * 8 + 32ULL * 128 * 4096) +
              24ULL * 2 * 4096 * 21504);
    // inner 128 heads x 64 = 8192: conv 3 x (8192 + 2 x 8 x 128) = 30720, state 128 x 8192
    CHECK(recurrent_state_bytes(m) == 24ULL * (30720 + 1048576) * 4);
    CHECK(kv_cache_bytes(m, 8192, f16()) == 4ULL * 8192 * 8 * 256 * 2);
}

TEST_CASE("hf: LFM2's short convolutions, listed attention layers and adjusted FFN width") {
    // LiquidAI/LFM2-700M's config.json (its keys as the official repo has them): attention at
    // full_attn_idxs, short convolutions of conv_L_cache 3 elsewhere, and block_ff_dim 10240
    // auto-adjusted: int(2 x 10240 / 3) = 6826, rounded up to a multiple of 256 = 6912.
    const Model m = load("lfm2-700m");
    CHECK(count_layers(m, LayerKind::conv) == 10);
    CHECK(count_layers(m, LayerKind::full) == 6);
    CHECK(layer_kinds(m)[2] == LayerKind::full);
    CHECK(layer_kinds(m)[3] == LayerKind::conv);
    CHECK(m.arch.intermediate_size == 6912);
    CHECK(m.arch.tied_embeddings);  // no tie key: transformers' default, tied
    // per sequence (3 - 1) x 1536 f32 values in each convolution layer
    CHECK(recurrent_state_bytes(m) == 10ULL * 2 * 1536 * 4);
    // convolutions 3 E^2 + 3 E + E^2, attention 2 E^2 + 2 x E x 512, SwiGLU 3 x E x 6912 on
    // all 16 layers, tied embeddings: the card's 742,489,344 less the norms' 51,456 values
    CHECK(m.params_total == 10ULL * (4 * 1536 * 1536 + 3 * 1536) +
                                6ULL * (2 * 1536 * 1536 + 2 * 1536 * 512) +
                                16ULL * 3 * 1536 * 6912 + 65536ULL * 1536);
    CHECK(m.params_total == 742489344ULL - 33ULL * 1536 - 6ULL * 2 * 64);
}

TEST_CASE("hf: safetensors headers give exact parameter counts") {
    const std::string header =
        R"({"a":{"dtype":"BF16","shape":[3,4],"data_offsets":[0,24]},)"
        R"("b":{"dtype":"F32","shape":[5],"data_offsets":[24,44]},"__metadata__":{"format":"pt"}})";
    CHECK(params_from_safetensors_header(header) == 17U);  // 3 x 4 + 5
    CHECK_FALSE(params_from_safetensors_header("{not json"));
    CHECK(safetensors_header_length(le64(100), 200) == 100U);
    CHECK_FALSE(safetensors_header_length(le64(1ULL << 40), 200));  // past the file
    CHECK_FALSE(safetensors_header_length(le64(10), 12));           // 8 + 10 > 12
    CHECK_FALSE(safetensors_header_length("abc", 200));

    const auto dir =
        std::filesystem::temp_directory_path() / ("canitrun_hf_test_" + std::to_string(::getpid()));
    std::filesystem::remove_all(dir);
    std::filesystem::create_directories(dir);
    std::filesystem::copy_file(fixture("layer-types/config.json"), dir / "config.json");
    {
        std::ofstream f(dir / "model.safetensors", std::ios::binary);
        f << le64(header.size()) << header << std::string(44, '\0');
    }
    auto hf = read_hf_model(dir.string());
    REQUIRE(hf);
    CHECK(hf->model.params_total == 17U);
    CHECK(hf->params_source == "safetensors headers");
    {
        std::ofstream f(dir / "model.safetensors", std::ios::binary);
        f << le64(1ULL << 30) << "{}";
    }
    CHECK_FALSE(read_hf_model(dir.string()));
    std::filesystem::remove_all(dir);
}

TEST_CASE("hf: index total_size by dtype and bad configs") {
    const std::string index = R"({"metadata":{"total_size":1000},"weight_map":{}})";
    CHECK(params_from_safetensors_index(index, "bfloat16") == 500U);
    CHECK(params_from_safetensors_index(index, "float32") == 250U);
    CHECK_FALSE(params_from_safetensors_index(index, "int4"));
    CHECK_FALSE(parse_hf_config("[1,2]", "x"));
    CHECK_FALSE(parse_hf_config(R"({"model_type":"llama"})", "x"));
    CHECK_FALSE(read_hf_model(fixture("no-such-folder")));
}

// Found by fuzzing: a config whose sizes multiply past 64 bits threw out of the parser. Absurd
// sizes are now refused by name before any loop or product, and overflow is an error value.
TEST_CASE("hf: absurd sizes are refused by name, never thrown or looped over") {
    const std::string pattern(20000, 'M');
    const std::vector<std::pair<std::string, std::string>> cases = {
        {R"({"hidden_size": 4096, "num_hidden_layers": 1000000000000,
             "full_attention_interval": 4})",
         "x: config.json's num_hidden_layers 1000000000000 is past 10000"},
        {R"({"hidden_size": 4096, "num_hidden_layers": 32, "num_attention_heads": 99999999999})",
         "x: config.json's num_attention_heads 99999999999 is past 1000000"},
        {R"({"hidden_size": 4096, "num_hidden_layers": 32, "hybrid_override_pattern": ")" +
             pattern + "\"}",
         "x: config.json's layer list 20000 is past 10000"},
        // Every size at its bound: 10,000 layers of 10^6-wide experts x 10^5 experts is about
        // 10^4 x 3 x 10^6 x 10^6 x 10^5 = 3 x 10^21 parameters, past 2^64: an error, not a throw.
        {R"({"hidden_size": 1000000, "num_hidden_layers": 10000, "num_attention_heads": 1000000,
             "intermediate_size": 1000000, "vocab_size": 10000000, "num_experts": 100000,
             "num_experts_per_tok": 8, "moe_intermediate_size": 1000000})",
         "x: config.json's sizes overflow 64 bits"},
    };
    for (const auto& [config, message] : cases) {
        const auto model = parse_hf_config(config, "x");
        REQUIRE_FALSE(model);
        CHECK(model.error().message == message);
    }
}

// Jamba and Llama 4 lay out their layers with fields of their own: attn_layer_period / offset and
// expert_layer_period / offset; attention_chunk_size with every fourth layer global (NoPE) and
// interleave_moe_layer_step. Their configs must give the architecture the database holds for the
// same models (data/models/jamba.json and llama.json, taken from those configs).
TEST_CASE("hf: Jamba and Llama 4 configs give the database's architecture") {
    const std::vector<std::pair<std::string, std::string>> pairs = {
        {"jamba-1.5-mini", "jamba-1.5-mini"},
        {"llama-4-scout", "llama-4-scout-17b-16e"},
        {"llama-4-maverick", "llama-4-maverick-17b-128e"}};
    for (const auto& [fixture_name, id] : pairs) {
        INFO(fixture_name);
        const Model hf = load(fixture_name);
        const Model& db = test::model(id);
        for (const LayerKind kind :
             {LayerKind::full, LayerKind::sliding, LayerKind::ssm, LayerKind::linear}) {
            CHECK(count_layers(hf, kind) == count_layers(db, kind));
        }
        for (const std::uint64_t context : {4096ULL, 8192ULL, 131072ULL, 1048576ULL}) {
            CHECK(kv_cache_bytes(hf, context, f16()) == kv_cache_bytes(db, context, f16()));
        }
        // Scout's text_config has a llama3 rope_scaling, Maverick's none: rope_freqs or not.
        CHECK(hf.arch.attention.rope_scaling == db.arch.attention.rope_scaling);
        REQUIRE(hf.arch.moe);
        REQUIRE(db.arch.moe);
        CHECK(hf.arch.moe->experts == db.arch.moe->experts);
        CHECK(hf.arch.moe->experts_per_token == db.arch.moe->experts_per_token);
        CHECK(hf.arch.moe->shared_experts == db.arch.moe->shared_experts);
        CHECK(hf.arch.moe->expert_intermediate_size == db.arch.moe->expert_intermediate_size);
        CHECK(hf.arch.moe->shared_expert_intermediate_size ==
              db.arch.moe->shared_expert_intermediate_size);
        CHECK(hf.arch.moe->moe_layers == db.arch.moe->moe_layers);
        // Without safetensors files the count comes from the architecture: within 2 % of the
        // vendor's published total (Scout: 107.8e9 of text stack against 109e9 with vision).
        CHECK(static_cast<double>(hf.params_total) ==
              Approx(static_cast<double>(db.params_total)).epsilon(0.02));
    }
    // By hand. Jamba 1.5 Mini: 4 attention layers (4, 12, 20, 28) x 8 KV heads x 128 x (K + V)
    // x 2 bytes x 8192 tokens = 134,217,728 B; the 28 Mamba layers cache no tokens.
    CHECK(kv_cache_bytes(load("jamba-1.5-mini"), 8192, f16()) == 134217728ULL);
    // Llama 4 Scout at 128k: 12 NoPE layers x 131,072 tokens + 36 chunked layers x 8,192 tokens,
    // each token 8 x 128 x 2 x 2 = 4,096 B: 6,442,450,944 + 1,207,959,552 = 7,650,410,496 B.
    CHECK(kv_cache_bytes(load("llama-4-scout"), 131072, f16()) == 7650410496ULL);
}

// A Gemma-3n-shaped config cut to 5 layers (4 sliding + 1 full, layer_types) whose last 2
// layers share KV: layers 0-2 keep a cache, all sliding: 3 x 64 (window) x 2 heads x
// (128 + 128) x 2 bytes = 196,608 bytes at any context past the window.
TEST_CASE("hf: num_kv_shared_layers leaves the sharing layers out of the KV cache") {
    const auto m = parse_hf_config(R"({"model_type":"gemma3n","text_config":{
        "model_type":"gemma3n_text","hidden_size":512,"num_hidden_layers":5,
        "num_attention_heads":4,"num_key_value_heads":2,"head_dim":128,"vocab_size":1000,
        "intermediate_size":1024,"max_position_embeddings":32768,"sliding_window":64,
        "layer_types":["sliding_attention","sliding_attention","sliding_attention",
                       "sliding_attention","full_attention"],
        "num_kv_shared_layers":2}})",
                                   "gemma3n-cut");
    REQUIRE(m);
    CHECK(m->arch.shared_kv_layers == 2);
    CHECK(kv_cache_bytes(*m, 4096, f16()) == 3ULL * 64 * 2 * 256 * 2);
}
