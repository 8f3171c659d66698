// The MTP layers a GGUF file carries and what --mtp plans from them, and --load-mode's staging
// of the weights (server_terms.hpp), each figure worked by hand from llama.cpp's source in the
// comments.

#include "canitrun/server_terms.hpp"

#include <algorithm>

#include <nlohmann/json.hpp>
#include "canitrun/cpu_repack.hpp"
#include "canitrun/gguf_file_size.hpp"
#include "canitrun/hardware_questions.hpp"
#include "canitrun/launch_command.hpp"
#include "canitrun/llamacpp_engine.hpp"
#include "canitrun/llamacpp_parts.hpp"
#include "canitrun/plan_settings.hpp"
#include "canitrun/speculative_speed.hpp"
#include "canitrun/verify_server.hpp"

#include "catch.hpp"
#include "run_binary.hpp"
#include "server_terms_support.hpp"
#include "test_support.hpp"

using namespace canitrun;
using canitrun::test::at_context;
using canitrun::test::plan_of;
using canitrun::test::term;
using canitrun::test::with_mtp_files;

// Qwen 3.5 27B with its MTP layer (mtp_num_hidden_layers 1) drafting, at FP16 and 8,192
// tokens. The MTP block is a full-attention layer like the stack's: q 5120 x 12,288 (24 heads x
// 256, doubled for the output gate), k and v 5120 x 1024 (4 KV heads x 256), o 6144 x 5120,
// FFN gate / up / down 3 x 5120 x 17,408 = 372,244,480 weights x 2 B = 744,488,960 B; the two
// layer norms (5120) and q / k norms (256) in f32: 43,008 B. Its nextn.eh_proj 10,240 x 5120
// x 2 B = 104,857,600 B and three norms 3 x 5120 x 4 B = 61,440 B. Weights: 849,451,008 B.
// Its KV at 8,192 cells: 8,192 x 4 x 256 x 2 B x 2 = 33,554,432 B. The MTP context's compute
// buffer (mtp_compute.cpp), per ubatch token in f32 under flash attention: the FFN phase, two
// rows and gate / up / GLU, 2 x 5,120 + 3 x 17,408 = 62,464 floats, over the attention's two
// rows, q with its gate (12,288), k and v (2,048) and the output (6,144) = 30,720 floats beside
// the f16 mask (8,192 x 2 B): 512 x 62,464 x 4 B = 127,926,272 B. In all 1,010,931,712 B, held
// from load on the GPU with the output head;
// nothing without --mtp. The published files do not carry the block (run.gguf_mtp): planned
// as a file converted with it.
TEST_CASE("server terms: Qwen 3.5 27B with its MTP layer") {
    const Model m = with_mtp_files("qwen3.5-27b");
    CHECK(m.arch.mtp_layers == 1);
    CHECK(llamacpp_mtp_weight_bytes(m, test::quant("FP16")).value() == 849'451'008ULL);
    PlanSettings s = at_context(8192);
    CHECK(term(plan_of(m, "FP16", {"h100-sxm"}, s).gpus[0], "mtp").most == 0);
    s.server.mtp = true;
    // The published files, without the block: nothing to load.
    CHECK(term(plan_of("qwen3.5-27b", "FP16", {"h100-sxm"}, s).gpus[0], "mtp").most == 0);
    const Placement p = plan_of(m, "FP16", {"h100-sxm"}, s);
    const ResidentTerm mtp = term(p.gpus[0], "mtp");
    CHECK(mtp.load == 1'010'931'712ULL);
    CHECK_FALSE(mtp.grows());
    const auto args = llama_server_args({&m, &test::quant("FP16"), {}}, s, nullptr, &p);
    CHECK(std::find(args.begin(), args.end(), "draft-mtp") != args.end());
}

// GLM-4.5's MTP block (blk.92) at Q8_0 (34 B per 32 weights; vectors, the router and its bias
// f32, 4 B each) is a MoE layer like blk.91, the stack's last, with its own embedding and head
// (glm4-moe.cpp, lines 59-120 at 0ad4a86): q 5120 x 12,288 66,846,720 B, k and v 5120 x 1024
// 5,570,560 B each, o 12,288 x 5120 66,846,720 B, biases 49,152 + 4,096 + 4,096, q and k norms
// 512 each, attn_norm and post_attention_norm 20,480 each (144,933,888 B so far); router
// 5120 x 160 3,276,800 B and its bias 640; 160 experts x 3 x 5120 x 1536 4,010,803,200 B; the
// shared expert 3 x 5120 x 1536 25,067,520 B; eh_proj 10,240 x 5120 55,705,600 B; enorm, hnorm,
// shared_head_norm 61,440 B; embed_tokens and shared_head_head 5120 x 151,552 824,442,880 B each.
// In all 5,888,734,848 B. Published files print the same tensors: attn_q 66,846,720 B, attn_k
// 5,570,560 B, router 3,276,800 B (a GLM-4.5 Q8_0 run), and eh_proj 55,705,600 B and
// embed_tokens / shared_head_head 824,442,880 B each in a GLM-4.7 file (ikawrakow/ik_llama.cpp
// issue #1162). Before, blk.0 (dense) was copied and the embedding and head left out; MLA
// models (DeepSeek) had no MTP weights at all.
TEST_CASE("server terms: GLM-4.5's MTP block is a MoE layer with its own head") {
    const Model& m = test::model("glm-4.5");
    CHECK(llamacpp_mtp_weight_bytes(m, test::quant("Q8_0")).value() == 5'888'734'848ULL);
    CHECK(llamacpp_mtp_weight_bytes(test::model("deepseek-v3"), test::quant("Q8_0")).value() > 0);
}

// GLM-4.6's published files leave its MTP block's embed_tokens and shared_head_head out
// (run.gguf_mtp_embedding false: ggml-org/llama.cpp PR #16359; ubergarm's IQ5_K holds 1759
// tensors, ikawrakow/ik_llama.cpp discussion #816), so its block is GLM-4.5's (the same
// architecture, above: 5,888,734,848 B at Q8_0) less 2 x 5120 x 151,552 = 1,551,892,480 weights
// at Q8_0, whose blocks hold 32 weights in 34 B (ggml's block_q8_0: an f16 scale and 32 int8):
// 48,496,640 blocks x 34 = 1,648,885,760 B. 4,239,849,088 B remain. The plan's mtp term with
// --mtp drops by those bytes (its KV, compute and output at 8,192 cells do not change); the
// download (the file holds the block, run.gguf_mtp) by those and the two tensors' infos in the
// header (a u64 name length and the name, 32 and 36 characters, u32 n_dims, two u64 extents,
// u32 type, u64 offset: 72 + 76 = 148 B), the header padded to GGUF's 32 B alignment: 128 or
// 160 B. Through the binary: GLM-4.5 and GLM-4.6 at Q8_0 on 8 x H200 differ alike.
TEST_CASE("server terms: GLM-4.6's MTP block has no embedding or head of its own") {
    constexpr std::uint64_t kEmbedAndHead = 2ULL * 5120 * 151'552 / 32 * 34;
    static_assert(kEmbedAndHead == 1'648'885'760ULL);
    const Model& m = test::model("glm-4.6");
    CHECK_FALSE(m.run.gguf_mtp_embedding);
    Model with_head = m;
    with_head.run.gguf_mtp_embedding = true;
    const Quant& q8 = test::quant("Q8_0");
    CHECK(llamacpp_mtp_weight_bytes(m, q8).value() == 4'239'849'088ULL);
    CHECK(llamacpp_mtp_weight_bytes(with_head, q8).value() == 5'888'734'848ULL);
    const auto block = llamacpp_mtp_block(m, q8);
    REQUIRE(block);
    CHECK(std::ranges::none_of(*block, [](const TypedTensor& t) {
        return t.tensor.name.view().ends_with("nextn.embed_tokens.weight") ||
               t.tensor.name.view().ends_with("nextn.shared_head_head.weight");
    }));
    const auto header_bytes = [&](std::uint64_t file_difference) {
        REQUIRE(file_difference > kEmbedAndHead);
        const std::uint64_t header = file_difference - kEmbedAndHead;
        return header == 128 || header == 160;
    };
    CHECK(header_bytes(gguf_download_bytes(with_head, q8).value().value() -
                       gguf_download_bytes(m, q8).value().value()));
    PlanSettings s = at_context(8192);
    s.server.mtp = true;
    const std::vector<std::string> gpus(8, "h200-sxm");
    const auto mtp_term = [&](const Model& model) {
        Bytes sum = 0;
        for (const auto& g : plan_of(model, "Q8_0", gpus, s).gpus) sum += term(g, "mtp").load;
        return sum;
    };
    CHECK(mtp_term(with_head) - mtp_term(m) == kEmbedAndHead);

    const auto answer = [](const std::string& id) {
        const auto run = test::run_cli(
            {id, "--mtp", "--quant", "Q8_0", "--gpu", "8xh200", "--ctx", "8192", "--json"});
        REQUIRE(run.code == 0);
        const auto doc = nlohmann::json::parse(run.out);
        std::uint64_t mtp = 0;
        for (const auto& g : doc["hardware"]["selected"]["gpus"]) {
            for (const auto& r : g["resident"]) {
                if (r["name"] == "mtp") mtp += r["load_bytes"].get<std::uint64_t>();
            }
        }
        std::uint64_t file = 0;
        for (const auto& q : doc["quants"]) {
            if (q["quant"] == "Q8_0") file = q["file_bytes"].get<std::uint64_t>();
        }
        return std::pair{mtp, file};
    };
    const auto [mtp45, file45] = answer("glm-4.5");
    const auto [mtp46, file46] = answer("glm-4.6");
    CHECK(mtp46 > 0);
    CHECK(mtp45 - mtp46 == kEmbedAndHead);
    CHECK(header_bytes(file45 - file46));
}

// GLM-4.7-Flash's published files hold no MTP block (run.gguf_mtp false): unsloth's show
// deepseek2.block_count 47 (ollama/ollama issue #15855) and a Q8_0 of 844 tensors is the layout
// alone (ggml-org/llama.cpp issue #19613); the converter writes the block only from PR #24868.
// So --mtp is refused for the database model, and its download is the layout's file. A file with
// the block would be larger by it: a copy of layer 46 (MLA with q_lora 768, kv_lora 512, 20
// heads of 192 + 64 / 256; 64 experts of 1536 and a shared one), eh_proj 4096 x 2048 and
// nextn.embed_tokens / shared_head_head 2048 x 154,880 (deepseek2.cpp's, as the checkpoint's
// MTP layer holds them), at Q8_0 (34 B per 32 weights): q_a 1,572,864 + q_b 3,932,160 +
// kv_a_mqa 1,179,648 + k_b 1,966,080 + v_b 2,621,440 + output 10,485,760 + experts 3 x
// 201,326,592 + shared 3 x 3,145,728 + eh_proj 8,388,608 + 2 x 317,194,240 = 1,277,952,000
// weights = 1,357,824,000 B, and in f32 the norms (5 x 2048 + 768 + 512 = 11,520 floats), the
// router 2048 x 64 and its bias 64: 570,624 B; 1,358,394,624 B in all, plus its 24 tensor infos in
// the header.
TEST_CASE("server terms: GLM-4.7-Flash's published files carry no MTP block") {
    constexpr std::uint64_t kBlock = 1'277'952'000ULL / 32 * 34 + 4ULL * (11'520 + 2048 * 64 + 64);
    static_assert(kBlock == 1'358'394'624ULL);
    const Model& m = test::model("glm-4.7-flash");
    CHECK_FALSE(m.run.gguf_mtp);
    CHECK_FALSE(mtp_loadable(m, nullptr).has_value());
    Model with_block = m;
    with_block.run.gguf_mtp = true;
    CHECK(mtp_loadable(with_block, nullptr).value());
    const Quant& q8 = test::quant("Q8_0");
    CHECK(llamacpp_mtp_weight_bytes(with_block, q8).value() == kBlock);
    CHECK(llamacpp_mtp_block(with_block, q8).value().size() == 24);
    QuantizeRequest request;
    request.file_type = "Q8_0";
    const Bytes alone = gguf_download_bytes(m, q8).value().value();
    CHECK(alone == gguf_file_bytes(m, request).value());
    const Bytes header = gguf_download_bytes(with_block, q8).value().value() - alone - kBlock;
    // 24 infos of 40-50 B of fixed fields and a 20-35 character name, padded to 32 B
    CHECK(header > 24ULL * 60);
    CHECK(header < 24ULL * 90 + 32);
}

// The MTP context against what llama-server printed for Qwen 3.8 27B (the same architecture
// as Qwen 3.5 27B) at -ub 2048 on CUDA: 552.06 MiB at -c 8192, 648.06 MiB at -c 32768. Less
// the weights (849,451,008 B above), the term is the KV (8,192 x 4,096 B = 33,554,432 B; 32,768
// x 4,096 = 134,217,728 B) and the block's FFN phase, which sets the buffer at both (the
// attention's 30,720 floats a token and the f16 mask, 2,048 x 30,720 x 4 B + 2,048 x 32,768 x
// 2 B = 368 MiB at 32,768 cells, are less): 2,048 x 62,464 x 4 B = 511,705,088 B. The term is
// 545,259,520 B = 520.00 MiB and 645,922,816 B = 616.00 MiB: CUDA's buffer is 32.06 MiB more at
// both (2,048 x 4,096 floats; not in the CPU backend's, which the graph's rule meets within 4
// MiB; unexplained).
TEST_CASE("server terms: the MTP context against llama-server's own figure") {
    PlanSettings s = at_context(8192);
    s.ubatch = 2048;
    s.server.mtp = true;
    const Bytes weights = 849'451'008ULL;
    const Model m = with_mtp_files("qwen3.5-27b");
    const auto context_of = [&](std::uint64_t ctx) {
        s.estimate.context = ctx;
        return term(plan_of(m, "FP16", {"h200-sxm"}, s).gpus[0], "mtp").load - weights;
    };
    CHECK(context_of(8192) == 545'259'520ULL);
    CHECK(context_of(32768) == 645'922'816ULL);
    CHECK(552.06 * 1048576 - 545'259'520.0 < 32.07 * 1048576);
    CHECK(648.06 * 1048576 - 645'922'816.0 < 32.07 * 1048576);
}

// Qwen 3.5 9B's MTP context at 32,768 cells, ubatch 512, without flash attention, from the
// block's tensor shapes (qwen35.cpp graph_mtp at 0ad4a86; n_embd 4096, 16 heads x 256 with
// the output gate, 4 KV heads, FFN 12,288). Per ubatch token in f32, the attention: two n_embd
// rows (8,192), q with its gate (2 x 16 x 256 = 8,192), k and v (4 x 512 = 2,048), the output
// (16 x 256 = 4,096) and the KQ scores over the cells (16 x 32,768 = 524,288): 546,816 floats,
// 512 x 546,816 x 4 B = 1,119,879,168 B, beside the f32 mask, 32,768 x 512 x 4 B = 67,108,864
// B: 1,186,988,032 B = 1132.00 MiB (the pinned libllama's CPU buffer: 1132.01, docs/
// ACCURACY.md). The FFN phase, 512 x (2 x 4,096 + 3 x 12,288) x 4 B = 92,274,688 B (88.00 MiB;
// 88.02 measured with flash attention), is less. The fitted 13 x n_embd read 104 MiB here.
TEST_CASE("server terms: Qwen 3.5 9B's MTP compute buffer without flash attention") {
    const Model& m = test::model("qwen3.5-9b");
    LlamaCppOptions o;
    o.context = 32768;
    o.ubatch = 512;
    o.flash_attn = FlashAttn::off;
    o.backend = Backend::cpu;
    CHECK(llamacpp_mtp_compute_bytes(m, o).value() == 1'186'988'032ULL);
    o.flash_attn = FlashAttn::on;
    CHECK(llamacpp_mtp_compute_bytes(m, o).value() == 92'274'688ULL);
    // GLM-4.5-Air's MoE block (n_embd 4096, 96 heads x 128, 8 KV heads; 8 of 128 experts of
    // 1408 and a shared one) likewise: the attention 2 x 4,096 + 12,288 + 2,048 + 12,288 + 96 x
    // 32,768 = 3,180,544 floats, 512 x 4 B x that + the f32 mask = 6,580,862,976 B (6276.00 MiB;
    // llama.cpp 6276.01); with flash attention the FFN phase sets it: the routed experts' gate,
    // up and GLU (3 x 8 x 1408) and their down products (8 x 4096, which their freed 2 x 8 x 1408
    // cannot hold) over two rows, 512 x (8,192 + 33,792 + 32,768) x 4 B = 153,092,096 B (146.00
    // MiB; llama.cpp 148.01).
    const Model& glm = test::model("glm-4.5-air");
    CHECK(llamacpp_mtp_compute_bytes(glm, o).value() == 153'092'096ULL);
    o.flash_attn = FlashAttn::off;
    CHECK(llamacpp_mtp_compute_bytes(glm, o).value() == 6'580'862'976ULL);
}

// GLM-4.5's GGUF files carry its nextn block (run.gguf_mtp; conversion/glm.py keeps it), so the
// download holds it: the block's data, 5,888,734,848 B at Q8_0 (above; every tensor's bytes a
// multiple of GGUF's 32-byte alignment), and 25 tensor infos in the header (a u64 length, the
// name, a u32 n_dims, a u64 per dimension, a u32 type, a u64 offset: 24 B + the name + 8 B a
// dimension): 11 vectors (attn_norm, the q / k / v biases, q_norm, k_norm,
// post_attention_norm, exp_probs_b, enorm, hnorm, shared_head_norm), 11 matrices and the 3
// expert tensors, named blk.92.*: 1,572 B. The header is padded to 32 B, so the download grows
// by 5,888,736,420 B within 31 B. DeepSeek V3's files carry none: its download is unchanged.
TEST_CASE("download: GLM-4.5's GGUF holds its MTP block, DeepSeek V3's none") {
    const Quant& q = test::quant("Q8_0");
    Model without = test::model("glm-4.5");
    REQUIRE(without.run.gguf_mtp);
    without.run.gguf_mtp = false;
    const Bytes with = gguf_download_bytes(test::model("glm-4.5"), q).value().value();
    const Bytes base = gguf_download_bytes(without, q).value().value();
    const Bytes expected = 5'888'734'848ULL + 1'572ULL;
    CHECK(with - base + 31 >= expected);
    CHECK(with - base <= expected + 31);
    Model deepseek = test::model("deepseek-v3");
    CHECK_FALSE(deepseek.run.gguf_mtp);
    const Bytes published = gguf_download_bytes(deepseek, q).value().value();
    deepseek.run.gguf_mtp = true;
    CHECK(gguf_download_bytes(deepseek, q).value().value() > published);
}

// Qwen 3.8 27B's published GGUF holds its MTP block where Qwen 3.5 27B's does not: unsloth's
// Q4_K_M at fe1e2a23 prints qwen35.block_count 65 and nextn_predict_layers 1 and holds 866
// tensors, the stack's 851 and 15 (mudler/vllm.cpp tests/vllm/models/
// qwen38_27b_q4km_gguf_manifest.inc at 60ab2613). The block is Qwen 3.5 27B's (hidden 5120, FFN
// 17,408, 24 q heads of 256 with the gate, 4 KV heads): 849,451,008 B at FP16 (the first test).
// The download grows by it and by its 15 header entries, each at most 8 + 40 (name) + 4 + 2 x 8
// (dims) + 4 + 8 = 80 B, the header padded to 32 B; --mtp can load it.
TEST_CASE("download: Qwen 3.8 27B's GGUF holds its MTP block") {
    const Quant& q = test::quant("FP16");
    const Model& m = test::model("qwen3.8-27b");
    REQUIRE(m.arch.mtp_layers == 1);
    REQUIRE(m.run.gguf_mtp);
    CHECK(llamacpp_mtp_block(m, q).value().size() == 15);
    CHECK(llamacpp_mtp_weight_bytes(m, q).value() == 849'451'008ULL);
    Model without = m;
    without.run.gguf_mtp = false;
    const Bytes grown =
        gguf_download_bytes(m, q).value().value() - gguf_download_bytes(without, q).value().value();
    CHECK(grown >= 849'451'008ULL);
    CHECK(grown <= 849'451'008ULL + 15ULL * 80 + 31);
    CHECK(mtp_loadable(m, nullptr).value());
}

// --mtp loads what the files carry (data: run.gguf_mtp, with its source): GLM-4.5's GGUFs hold
// the nextn block (conversion/glm.py keeps it); DeepSeek V3's converter drops it
// (conversion/deepseek.py, skip_mtp) and Qwen 3.5's published files predate its keeping
// (block_count 64 for the 27B, validation/llama-logs/cudab-005). A model without MTP layers
// has none to load. Each refusal is one error with its fix; the plan then holds no mtp term.
TEST_CASE("server terms: --mtp only where the GGUF files carry the MTP layers") {
    CHECK(mtp_loadable(test::model("glm-4.5"), nullptr).value());
    for (const char* id : {"deepseek-v3", "qwen3.5-27b", "qwen3-8b"}) {
        const auto r = mtp_loadable(test::model(id), nullptr);
        REQUIRE_FALSE(r.has_value());
        CHECK(r.error().kind == ErrorKind::bad_input);
        CHECK(r.error().message.find(id) != std::string::npos);
        CHECK_FALSE(r.error().hint.empty());
    }
}

// --load-mode (server_terms.hpp, load_staging; llama-model-loader.cpp load_all_data at
// 0ad4a86). Llama 3.1 8B at Q4_K_M on an RTX 4090: by default (auto: mmap) nothing is staged
// and the RAM's weights, token_embd, are the mapped file. none reads the file: CUDA uploads
// through 4 pinned buffers of 1 MiB = 4,194,304 B, and the RAM's weights are allocated. dio:
// the pinned buffers are 4 x (64 MiB + 2 x 4,096) = 268,468,224 B, and token_embd (Q4_K:
// 128,256 x 4,096 x 144 / 256 = 295,501,824 B = 72,144 blocks of 4,096) is read through an
// aligned copy of it and one block more: 295,505,920 B, the larger. The line carries the mode.
TEST_CASE("server terms: --load-mode stages the weights as llama.cpp reads them") {
    PlanSettings s = at_context(8192);
    const Placement mapped = plan_of("llama-3.1-8b", "Q4_K_M", {"rtx-4090"}, s);
    CHECK(term(mapped.ram, "load_staging").load == 0);
    CHECK(mapped.ram.mapped == 295'501'824ULL);
    s.server.load_mode = LoadMode::none;
    const Placement none = plan_of("llama-3.1-8b", "Q4_K_M", {"rtx-4090"}, s);
    const ResidentTerm staging = term(none.ram, "load_staging");
    CHECK(staging.load == 4'194'304ULL);
    CHECK_FALSE(staging.grows());
    CHECK(none.ram.mapped == 0);
    CHECK(none.ram.total() - mapped.ram.total() == 4'194'304ULL);
    s.server.load_mode = LoadMode::direct_io;
    const Placement dio = plan_of("llama-3.1-8b", "Q4_K_M", {"rtx-4090"}, s);
    CHECK(term(dio.ram, "load_staging").load == 295'505'920ULL);
    const Model& m = test::model("llama-3.1-8b");
    const auto args = llama_server_args({&m, &test::quant("Q4_K_M"), {}}, s, nullptr, &dio);
    const auto at = std::find(args.begin(), args.end(), "--load-mode");
    REQUIRE(at != args.end());
    CHECK(*(at + 1) == "dio");
    CHECK(parse_load_mode("mmap+mlock").value() == LoadMode::mmap_mlock);
    CHECK_FALSE(parse_load_mode("no-mmap").has_value());
}

// Without a GPU (Llama 3.2 1B at Q4_0, AVX2) and read in (none), a repacked tensor is read into
// its CPU_REPACK buffer alone: no second copy (528,482,304 B with mmap, above), and nothing is
// staged. With dio each tensor comes through an aligned copy: the largest, token_embd (tied:
// Q6_K, 128,256 x 2,048 x 210 / 256 = 215,470,080 B = 52,605 blocks), and one block more:
// 215,474,176 B. On Metal (an M4 Max) none reads each GPU tensor through a host copy in turn:
// the largest is Llama 3.1 8B's output.weight (Q6_K: 128,256 x 4,096 x 210 / 256 =
// 430,940,160 B); dio reads buffered there (O_DIRECT is Linux's), the same.
TEST_CASE("server terms: --load-mode without a GPU and on Metal") {
    PlanSettings s = at_context(8192);
    s.server.load_mode = LoadMode::none;
    const Placement none = plan_of("llama-3.2-1b", "Q4_0", {}, s);
    CHECK(term(none.ram, "cpu_repack").most == 0);
    CHECK(term(none.ram, "load_staging").most == 0);
    s.server.load_mode = LoadMode::direct_io;
    CHECK(term(plan_of("llama-3.2-1b", "Q4_0", {}, s).ram, "load_staging").load == 215'474'176ULL);
    for (const LoadMode mode : {LoadMode::none, LoadMode::direct_io}) {
        s.server.load_mode = mode;
        const Placement metal = plan_of("llama-3.1-8b", "Q4_K_M", {"m4-max-128gb"}, s);
        CHECK(term(metal.ram, "load_staging").load == 430'940'160ULL);
    }
}

// The draft reads its weights as the main model does: common_base_params_to_speculative copies
// the main's common_params, load_mode with them (server_terms.hpp). Llama 3.1 8B at Q4_K_M with
// Llama 3.2 1B (Q4_K_M) drafting on an RTX 4090 at 8,192 tokens. Placed alone, the draft stages
// its GPU tensors through 4 pinned buffers of 1 MiB = 4,194,304 B under none, of 64 MiB + 2 x
// 4,096 B = 268,468,224 B under dio; its host tensor, token_embd (tied: Q6_K, 215,470,080 B,
// 52,605 blocks, read through 52,606 blocks = 215,474,176 B), is the smaller. In the plan it
// loads after the main model, whose staging (295,505,920 B under dio, the test above) is freed
// by then: RAM's load_staging stays the main's 295,505,920 B, not the sum 563,974,144 B, and
// the draft's own row is what it is under mmap.
TEST_CASE("server terms: --load-mode reads the draft as it reads the main model") {
    const ResidentModel draft{&test::model("llama-3.2-1b"), &test::quant("Q4_K_M"), nullptr};
    const Hardware h = test::hardware_of({"rtx-4090"});
    PlanSettings s = at_context(8192);
    s.server.load_mode = LoadMode::none;
    const Placement none = companion_placement(draft, h, draft_settings(s), false).value();
    CHECK(term(none.ram, "load_staging").load == 4'194'304ULL);
    CHECK(none.ram.mapped == 0);
    s.server.load_mode = LoadMode::direct_io;
    const Placement dio = companion_placement(draft, h, draft_settings(s), false).value();
    CHECK(term(dio.ram, "load_staging").load == 268'468'224ULL);

    s.server.draft = draft;
    const Placement both = plan_of("llama-3.1-8b", "Q4_K_M", {"rtx-4090"}, s);
    CHECK(term(both.ram, "load_staging").load == 295'505'920ULL);
    s.server.load_mode = LoadMode::automatic;
    const Placement mapped = plan_of("llama-3.1-8b", "Q4_K_M", {"rtx-4090"}, s);
    CHECK(term(mapped.ram, "load_staging").load == 0);
    const std::string name = "draft:llama-3.2-1b";
    CHECK(term(both.ram, name).load == term(mapped.ram, name).load);
}

// An --also model is a process of its own (a router's child, with the router's --load-mode):
// Qwen3-Embedding-0.6B (Q8_0) beside Llama 3.1 8B on an RTX 4090 at 8,192 tokens. Under none
// it stages its GPU tensors through its own 4 x 1 MiB = 4,194,304 B; under dio 4 x (64 MiB +
// 8 KiB) = 268,468,224 B, its host token_embd (tied, Q8_0: 151,669 x 1,024 x 34 / 32 =
// 165,015,872 B) the smaller. Children may load at once: its staging is in its own RAM row,
// beside the main model's load_staging (4,194,304 B under none).
TEST_CASE("server terms: --load-mode reads an --also model in its own process") {
    const ResidentModel embed{&test::model("qwen3-embedding-0.6b"), &test::quant("Q8_0"), nullptr};
    PlanSettings s = at_context(8192);
    s.server.also.push_back(embed);
    const std::string name = "also:qwen3-embedding-0.6b";
    const Bytes mapped = term(plan_of("llama-3.1-8b", "Q4_K_M", {"rtx-4090"}, s).ram, name).load;
    s.server.load_mode = LoadMode::none;
    const Placement none = plan_of("llama-3.1-8b", "Q4_K_M", {"rtx-4090"}, s);
    CHECK(term(none.ram, name).load - mapped == 4'194'304ULL);
    CHECK(term(none.ram, "load_staging").load == 4'194'304ULL);
    s.server.load_mode = LoadMode::direct_io;
    const Placement dio = plan_of("llama-3.1-8b", "Q4_K_M", {"rtx-4090"}, s);
    CHECK(term(dio.ram, name).load - mapped == 268'468'224ULL);
}
