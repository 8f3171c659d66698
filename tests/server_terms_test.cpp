// What a server holds beside the model (server_terms.hpp), each figure worked by hand from
// llama.cpp's source in the comments.

#include "canitrun/server_terms.hpp"

#include <algorithm>
#include <iterator>

#include "canitrun/cpu_repack.hpp"
#include "canitrun/gguf_file_size.hpp"
#include "canitrun/hardware_questions.hpp"
#include "canitrun/launch_command.hpp"
#include "canitrun/llamacpp_engine.hpp"
#include "canitrun/llamacpp_parts.hpp"
#include "canitrun/llamacpp_rules.hpp"
#include "canitrun/plan_settings.hpp"
#include "canitrun/speculative_speed.hpp"
#include "canitrun/verify_server.hpp"
#include "catch.hpp"
#include "server_terms_support.hpp"
#include "test_support.hpp"

using namespace canitrun;
using canitrun::test::at_context;
using canitrun::test::plan_of;
using canitrun::test::term;

// Gemma 3 27B under llama-server's defaults (8,192 tokens, one slot, f16 KV, ubatch 512):
// 52 of its 62 layers slide over 1,024 tokens. llama_kv_cache_iswa gives the sliding layers
// GGML_PAD(n_swa + n_ubatch, 256) = 1,024 + 512 = 1,536 cells; a cell of one layer holds K and
// V of 16 KV heads x 128 x 2 B = 8,192 B. One checkpoint (PARTIAL_ONLY: the SWA cache of the
// slot) = 52 x 1,536 x 8,192 = 654,311,424 B; 32 checkpoints per slot (common.h's
// n_ctx_checkpoints): 20,937,965,568 B, all in host RAM, none at load. The prompt cache:
// --cache-ram 8192 MiB = 8,589,934,592 B in RAM, none at load.
TEST_CASE("server terms: Gemma 3 27B's checkpoints and prompt cache at llama-server's defaults") {
    const Placement p = plan_of("gemma-3-27b", "Q4_K_M", {"rtx-4090"}, at_context(8192));
    const ResidentTerm checkpoints = term(p.ram, "ctx_checkpoints");
    CHECK(checkpoints.load == 0);
    CHECK(checkpoints.most == 20'937'965'568ULL);
    CHECK(checkpoints.grows());
    const ResidentTerm cache = term(p.ram, "prompt_cache");
    CHECK(cache.load == 0);
    CHECK(cache.most == 8'589'934'592ULL);
    // Nothing of the server's on the GPU but the vision projector (its own test below); the
    // RAM's most is its load plus both.
    CHECK(p.gpus[0].resident.size() == 1);
    CHECK(p.gpus[0].resident[0].name == "projector");
    CHECK(p.ram.most() == p.ram.total() + 20'937'965'568ULL + 8'589'934'592ULL);

    // --ctx-checkpoints 2 and --cache-ram 0: 2 x 654,311,424 = 1,308,622,848 B, no cache.
    PlanSettings s = at_context(8192);
    s.server.ctx_checkpoints = 2;
    s.server.cache_ram = 0;
    const Placement fewer = plan_of("gemma-3-27b", "Q4_K_M", {"rtx-4090"}, s);
    CHECK(term(fewer.ram, "ctx_checkpoints").most == 1'308'622'848ULL);
    CHECK(term(fewer.ram, "prompt_cache").most == 0);
    const auto args = llama_server_args({&test::model("gemma-3-27b"), &test::quant("Q4_K_M"), {}},
                                        s, nullptr, &fewer);
    const auto has = [&](const std::string& a) {
        return std::find(args.begin(), args.end(), a) != args.end();
    };
    CHECK(has("--ctx-checkpoints"));
    CHECK(has("--cache-ram"));
}

// A model with neither sliding layers nor recurrent state makes no checkpoints.
TEST_CASE("server terms: no checkpoints for a model of full attention only") {
    const Placement p = plan_of("llama-3.1-8b", "Q4_K_M", {"rtx-4090"}, at_context(8192));
    CHECK(term(p.ram, "ctx_checkpoints").most == 0);
    CHECK(term(p.ram, "prompt_cache").most == 8'589'934'592ULL);
}

// 128k tokens with the KV cache in RAM (--no-kv-offload): Llama 3.1 8B's 32 layers x 131,072
// cells x (8 KV heads x 128 x 2 B) x 2 (K and V) = 17,179,869,184 B, all in RAM
// (llama_kv_cache puts each layer's cache on the CPU when offload_kqv is off); the GPU keeps
// none, and the launch line carries -nkvo.
TEST_CASE("server terms: a 128k context with the KV cache in RAM") {
    PlanSettings s = at_context(131072);
    s.server.kv_offload = false;
    const Placement p = plan_of("llama-3.1-8b", "Q4_K_M", {"rtx-4090"}, s);
    CHECK(p.ram.kv_cache == 17'179'869'184ULL);
    CHECK(p.gpus[0].kv_cache == 0);
    CHECK(p.gpus[0].layers == 32);
    const auto args = llama_server_args({&test::model("llama-3.1-8b"), &test::quant("Q4_K_M"), {}},
                                        s, nullptr, &p);
    CHECK(std::find(args.begin(), args.end(), "-nkvo") != args.end());

    // The attention then runs on the CPU (llama-graph.cpp pins it there without offload_kqv):
    // one layer's tensors per ubatch token, flash attention on (auto): f32 Q 32 x 128 = 4,096,
    // K and V 8 x (128 + 128) = 2,048 and the output 32 x 128 = 4,096 floats = 40,960 B, and
    // the f16 mask over 131,072 cells = 262,144 B: 303,104 B x 512 tokens = 155,189,248 B.
    CHECK(term(p.ram, "nkvo_attention").load == 155'189'248ULL);
    CHECK(term(p.gpus[0], "nkvo_attention").most == 0);
    // Without flash attention: Q, K, V, the output and its copy (4,096 + 2,048 + 2 x 4,096 =
    // 14,336 floats) and the KQ scores 32 heads x 131,072 cells = 4,194,304 floats: 4,208,640
    // x 4 B = 16,834,560 B a token, x 512 = 8,619,294,720 B; the masks stay the host's f32 ones.
    PlanSettings no_flash = s;
    no_flash.flash_attn = FlashAttn::off;
    const Placement slow = plan_of("llama-3.1-8b", "Q4_K_M", {"rtx-4090"}, no_flash);
    CHECK(term(slow.ram, "nkvo_attention").load == 8'619'294'720ULL);
    // With the cache offloaded, none.
    const Placement offloaded = plan_of("llama-3.1-8b", "Q4_K_M", {"rtx-4090"}, at_context(131072));
    CHECK(term(offloaded.ram, "nkvo_attention").most == 0);
}

// Gemma 3 27B with -nkvo at 8,192 tokens: its widest layer (32 heads x 128, 16 KV heads)
// holds Q 4,096 + K and V 16 x 256 = 4,096 + the output 4,096 = 12,288 floats = 49,152 B a
// token, and the f16 masks over the full layers' 8,192 cells and the sliding ones' 1,536
// (GGML_PAD(1,024 + 512, 256)) = 2 x 9,728 = 19,456 B: 68,608 B x 512 = 35,127,296 B.
TEST_CASE("server terms: -nkvo's CPU attention on a sliding-window model") {
    PlanSettings s = at_context(8192);
    s.server.kv_offload = false;
    const Placement p = plan_of("gemma-3-27b", "Q4_K_M", {"rtx-4090"}, s);
    CHECK(term(p.ram, "nkvo_attention").load == 35'127'296ULL);
}

// Llama 3.2 1B at Q4_0 on a machine without a GPU, AVX2. A file made without an importance
// matrix has every layer's matrices in Q4_0 (18 B per 32 weights); the embeddings are tied (no
// output.weight) and token_embd is a row lookup, never repacked. Per layer: q 2048x2048, k and
// v 2048x512, o 2048x2048, gate and up 2048x8192, down 8192x2048 = 60,817,408 weights =
// 34,209,792 B; every ne[1] (2048, 512, 8192) is a multiple of 8, so
// ggml_repack_get_optimal_repack_type repacks each (q4_0_8x8). 16 layers: 547,356,672 B, a
// second copy in RAM held from load; a GGUF file's plan keeps that where the file says so
// (no quantize.imatrix.file: gguf_to_model reads gguf_imatrix false).
// The database's model is typed as its gguf_repo's publisher makes its files: bartowski's, with
// an importance matrix (data/publishers.json), with which llama-quantize guards the first
// n_layer / 8 = 16 / 8 = 2 ffn_down in Q4_1 (llama-quant.cpp: "Guard against craziness in the
// first few ffn_down layers"). Q4_1 has no repacked kernel on either ISA, so those two stay in
// the mapped file: 547,356,672 - 2 x 8,192 x 2,048 x 18 / 32 = 547,356,672 - 2 x 9,437,184 =
// 528,482,304 B (504 MiB).
TEST_CASE("server terms: Q4_0 repacked on an AVX2 CPU") {
    const Model& db = test::model("llama-3.2-1b");
    REQUIRE(db.run.gguf_imatrix);
    const Quant& q = test::quant("Q4_0");
    CHECK(llamacpp_repack_bytes(db, q, CpuIsa::avx2).value() == 528'482'304ULL);
    CHECK(llamacpp_repack_bytes(db, q, CpuIsa::arm_dotprod).value() == 528'482'304ULL);
    Model file = db;  // a file made without an importance matrix
    file.run.gguf_imatrix = false;
    CHECK(llamacpp_repack_bytes(file, q, CpuIsa::avx2).value() == 547'356'672ULL);
    CHECK(llamacpp_repack_bytes(file, q, CpuIsa::arm_dotprod).value() == 547'356'672ULL);
    CHECK(llamacpp_repack_bytes(db, q, CpuIsa::none).value() == 0);
    // Q8_0 has no repacked kernel on AVX2 (this version): nothing.
    CHECK(llamacpp_repack_bytes(db, test::quant("Q8_0"), CpuIsa::avx2).value() == 0);

    const Placement p = plan_of("llama-3.2-1b", "Q4_0", {}, at_context(8192));
    const ResidentTerm r = term(p.ram, "cpu_repack");
    CHECK(r.load == 528'482'304ULL);
    CHECK(r.most == 528'482'304ULL);
    PlanSettings s = at_context(8192);
    s.server.repack = false;
    CHECK(term(plan_of("llama-3.2-1b", "Q4_0", {}, s).ram, "cpu_repack").most == 0);
    // With a GPU the host buffer type (CUDA_Host) comes before CPU_REPACK: nothing repacked.
    const Placement gpu = plan_of("llama-3.2-1b", "Q4_0", {"rtx-4090"}, at_context(8192));
    CHECK(term(gpu.ram, "cpu_repack").most == 0);
}

// Llama 3.3 70B with Llama 3.2 1B as its draft on 2x RTX 3090 at 8,192 tokens. The draft's 16
// layers and output head (17 units) split by memory over two equal cards: unit i goes to GPU
// 0 while i / 17 < 1 / 2, so layers 0..8 (9) on GPU 0, 7 and the head on GPU 1. Its KV per
// layer at 8,192 tokens: 8,192 x 8 KV heads x 64 x 2 B x 2 = 16,777,216 B: 150,994,944 B on
// GPU 0 and 117,440,512 B on GPU 1; with --no-kv-offload all 268,435,456 B move to RAM, and
// nothing else of the draft moves. Same process: no second CUDA context.
TEST_CASE("server terms: Llama 3.3 70B with a 1B draft on 2x3090") {
    const ResidentModel draft{&test::model("llama-3.2-1b"), &test::quant("Q4_K_M"), nullptr};
    PlanSettings s = at_context(8192);
    s.server.draft = draft;
    const Placement on = plan_of("llama-3.3-70b", "Q4_K_M", {"rtx-3090", "rtx-3090"}, s);
    s.server.kv_offload = false;
    const Placement off = plan_of("llama-3.3-70b", "Q4_K_M", {"rtx-3090", "rtx-3090"}, s);
    const std::string name = "draft:llama-3.2-1b";
    CHECK(term(on.gpus[0], name).load - term(off.gpus[0], name).load == 150'994'944ULL);
    CHECK(term(on.gpus[1], name).load - term(off.gpus[1], name).load == 117'440'512ULL);
    CHECK(term(off.ram, name).load - term(on.ram, name).load == 268'435'456ULL);
    CHECK_FALSE(term(on.gpus[0], name).grows());

    // The same model in a process of its own (--also) adds the CUDA context on each GPU.
    const Hardware h = test::hardware_of({"rtx-3090", "rtx-3090"});
    const auto same = place_companion("d", draft, h, at_context(8192), false).value();
    const auto own = place_companion("d", draft, h, at_context(8192), true).value();
    for (std::size_t d = 0; d < 2; ++d) {
        CHECK(own.gpus[d] - same.gpus[d] == runtime_overhead_bytes(Backend::cuda));
    }
    const auto args = llama_server_args({&test::model("llama-3.3-70b"), &test::quant("Q4_K_M"), {}},
                                        s, nullptr, &on);
    CHECK(std::find(args.begin(), args.end(), "-ngld") != args.end());
    // -md alone drafts nothing at 0ad4a86 (--spec-type defaults to none): the line names it
    const auto type = std::find(args.begin(), args.end(), "--spec-type");
    REQUIRE(type != args.end());
    CHECK(*std::next(type) == "draft-simple");
}

// A chat model with an embedding model on a 24 GB card: Qwen3 8B and Qwen3-Embedding-0.6B
// (Q8_0), at 8,192 tokens. The embedding model is the qwen3 decoder: 28 layers x 8,192 cells
// x (8 KV heads x 128 x 2 B) x 2 = 939,524,096 B of KV on the GPU, in its own process (the
// router's child). It sits on the GPU's share beside the chat model, counted in the GPU's
// total from load.
TEST_CASE("server terms: a chat and an embedding model on a 24 GB card") {
    const ResidentModel embed{&test::model("qwen3-embedding-0.6b"), &test::quant("Q8_0"), nullptr};
    PlanSettings s = at_context(8192);
    const Placement alone = plan_of("qwen3-8b", "Q4_K_M", {"rtx-4090"}, s);
    s.server.also.push_back(embed);
    const Placement both = plan_of("qwen3-8b", "Q4_K_M", {"rtx-4090"}, s);
    const std::string name = "also:qwen3-embedding-0.6b";
    const ResidentTerm on_gpu = term(both.gpus[0], name);
    CHECK(both.gpus[0].total() - alone.gpus[0].total() == on_gpu.load);
    s.server.kv_offload = false;
    const Placement off = plan_of("qwen3-8b", "Q4_K_M", {"rtx-4090"}, s);
    CHECK(on_gpu.load - term(off.gpus[0], name).load == 939'524'096ULL);
    CHECK(both.fits());
}

// Ollama's sequences per model (server/sched.go 497-510 at ollama fb30760): OLLAMA_NUM_PARALLEL
// (at least 1) for a chat model; 1 for an embedding model (a GGUF with a pooling_type, or an
// encoder) and for the architectures it runs one at a time (qwen35 among them). Qwen3-Embedding
// and Qwen3-Reranker are the qwen3 decoder, but their GGUFs carry qwen3.pooling_type (last and
// rank: data run.pooling, from llama.cpp's converter and an Ollama load log), so one each,
// where Qwen3 8B, the same architecture without it, gets the 4.
TEST_CASE("ollama: the sequences each model gets under OLLAMA_NUM_PARALLEL") {
    CHECK(ollama_num_parallel(test::model("qwen3-8b"), 4) == 4);
    CHECK(ollama_num_parallel(test::model("qwen3-8b"), 0) == 1);
    CHECK(ollama_num_parallel(test::model("qwen3.5-0.8b"), 4) == 1);
    CHECK(ollama_num_parallel(test::model("nomic-embed-text-v1.5"), 4) == 1);
    CHECK(test::model("qwen3-embedding-0.6b").run.pooling == "last");
    CHECK(test::model("qwen3-reranker-0.6b").run.pooling == "rank");
    CHECK(ollama_num_parallel(test::model("qwen3-embedding-0.6b"), 4) == 1);
    CHECK(ollama_num_parallel(test::model("qwen3-reranker-0.6b"), 4) == 1);
}

// A chat model --also beside the main one with --users 4 of 8,192 tokens: the printed line sets
// OLLAMA_NUM_PARALLEL=4, so Ollama starts Qwen3 8B with -c 8,192 x 4 -np 4
// (llm/llama_server.go:375). Its KV: 36 layers x 32,768 cells x (8 KV heads x 128 x 2 B) x 2
// = 4,831,838,208 B, 4 x its 8k KV of 1,207,959,552 B (one sequence, as canitrun planned it
// before, counted 3,623,878,656 B less). What -nkvo takes off the GPU row is that KV.
TEST_CASE("server terms: an --also chat model gets Ollama's parallel sequences") {
    const ResidentModel chat{&test::model("qwen3-8b"), &test::quant("Q4_K_M"), nullptr};
    PlanSettings s = at_context(32768);
    s.n_seq = 4;
    s.server.also.push_back(chat);
    const Placement on = plan_of("qwen3-0.6b", "Q8_0", {"h100-sxm"}, s);
    s.server.kv_offload = false;
    const Placement off = plan_of("qwen3-0.6b", "Q8_0", {"h100-sxm"}, s);
    const std::string name = "also:qwen3-8b";
    CHECK(term(on.gpus[0], name).load - term(off.gpus[0], name).load == 4'831'838'208ULL);
    const PlanSettings o = ollama_model_settings(s, test::model("qwen3-8b"));
    CHECK(o.n_seq == 4);
    CHECK(o.estimate.context == 32768);
}

// The same line with BGE-M3 (an encoder: no completion capability) and Qwen 3.5 0.8B (qwen35)
// --also: Ollama loads each with one sequence of 8,192 tokens, so each row is what it is beside
// a one-user plan of 8,192 tokens.
TEST_CASE("server terms: encoder and qwen35 --also models keep one sequence under Ollama") {
    for (const char* id : {"bge-m3", "qwen3.5-0.8b"}) {
        const ResidentModel m{&test::model(id), &test::quant("Q8_0"), nullptr};
        PlanSettings four = at_context(32768);
        four.n_seq = 4;
        four.server.also.push_back(m);
        PlanSettings one = at_context(8192);
        one.server.also.push_back(m);
        const std::string name = std::string("also:") + id;
        const Placement a = plan_of("qwen3-0.6b", "Q8_0", {"h100-sxm"}, four);
        const Placement b = plan_of("qwen3-0.6b", "Q8_0", {"h100-sxm"}, one);
        CHECK(term(a.gpus[0], name).load > 0);
        CHECK(term(a.gpus[0], name).load == term(b.gpus[0], name).load);
        CHECK(ollama_model_settings(four, test::model(id)).estimate.context == 8192);
    }
}

// BGE-M3 (XLM-RoBERTa large) at FP16 as llama.cpp lays out its bert architecture. Per layer:
// q, k, v, o 4 x 1024 x 1024 and FFN up / down 2 x 1024 x 4096 = 12,582,912 weights x 2 B =
// 25,165,824 B, and in f32 the biases (q, k, v, o 4 x 1024, up 4096, down 1024) and two norms'
// weight and bias (4 x 1024): 13,312 floats = 53,248 B; 25,219,072 B a layer, 605,257,728 B
// for 24. On the host (LLM_TENSOR_LAYER_INPUT): token_embd 250,002 x 1024 x 2 B =
// 512,004,096 B, the 8,192 learned positions 16,777,216 B and the one token type 2,048 B
// (llama-quantize leaves both in the converter's F16), the embeddings' norm 8,192 B (f32):
// 528,791,552 B. No output head, and no KV cache at any context (create_memory: none).
TEST_CASE("encoders: BGE-M3's bert layout and no KV cache") {
    PlanSettings s = at_context(8192);
    const auto parts = plan_parts(test::model("bge-m3"), test::quant("FP16"), s).value();
    Bytes layers = 0, kv = 0;
    for (const auto& l : parts.layers) {
        layers += l.weights;
        kv += l.kv_cache;
    }
    CHECK(layers == 605'257'728ULL);
    CHECK(parts.input_weights == 528'791'552ULL);
    CHECK(parts.output_weights == 0);
    CHECK(kv == 0);
    // At Q4_K_M the positions and the token type are still F16: the host keeps 16,779,264 B
    // of them beside the quantized token_embd and the f32 norm.
    const auto q4 = plan_parts(test::model("bge-m3"), test::quant("Q4_K_M"), s).value();
    CHECK(q4.input_weights > 16'779'264ULL + 8'192ULL);
    // An encoder's server holds no prompt cache (its sequence state has no cache to save)
    // and no checkpoints.
    const Placement p = plan_of("bge-m3", "Q4_K_M", {"rtx-4090"}, s);
    CHECK(p.ram.resident.empty());
    CHECK(p.gpus[0].kv_cache == 0);
}

// Beside a chat model, an encoder's footprint does not depend on where a KV cache would go:
// it has none. nomic-embed-text keeps no memory either.
TEST_CASE("encoders: an embedding encoder beside a chat model keeps no cache") {
    const ResidentModel embed{&test::model("nomic-embed-text-v1.5"), &test::quant("FP16"), nullptr};
    PlanSettings s = at_context(8192);
    s.server.also.push_back(embed);
    const Placement on = plan_of("qwen3-8b", "Q4_K_M", {"rtx-4090"}, s);
    s.server.kv_offload = false;
    const Placement off = plan_of("qwen3-8b", "Q4_K_M", {"rtx-4090"}, s);
    const std::string name = "also:nomic-embed-text-v1.5";
    CHECK(term(on.gpus[0], name).load > 0);
    CHECK(term(on.gpus[0], name).load == term(off.gpus[0], name).load);
}

// verify reads what the server printed: the prompt cache's limit at load, the checkpoints it
// made (the largest: a Gemma 3 27B checkpoint of a full window, 654,311,424 B = 624 MiB, as
// above), and the CPU_REPACK buffer (the database's Llama 3.2 1B at Q4_0: 528,482,304 B =
// 504 MiB, as above).
TEST_CASE("server terms: verify reads the prompt cache, checkpoints and CPU_REPACK") {
    const std::string text =
        "llama_context: constructing llama_context\n"
        "llama_context: n_seq_max     = 1\n"
        "llama_context: n_ctx         = 8192\n"
        "llama_context: n_ubatch      = 512\n"
        "srv    load_model: prompt cache is enabled, size limit: 4096 MiB\n"
        "slot update_slots: id  0 | task 0 | created context checkpoint 1 of 8 (pos_min = 0, "
        "pos_max = 1535, size = 624.000 MiB)\n"
        "slot update_slots: id  0 | task 4 | created context checkpoint 2 of 8 (pos_min = 512, "
        "pos_max = 2047, size = 312.000 MiB)\n";
    const auto log = parse_llama_log(text).value();
    CHECK(log.server.prompt_cache_limit == 4'294'967'296ULL);
    CHECK(log.server.checkpoints_per_slot == 8);
    CHECK(log.server.checkpoint_largest == 654'311'424ULL);
    const auto rows = verify_server_terms(log, &test::model("gemma-3-27b"), test::quant("Q4_K_M"));
    REQUIRE(rows.size() == 2);
    CHECK(rows[0].term == "prompt_cache_limit");
    CHECK(rows[0].estimate == 8'589'934'592ULL);
    CHECK(rows[1].term == "ctx_checkpoint");
    CHECK(rows[1].estimate == 654'311'424ULL);
    CHECK(rows[1].actual == 654'311'424ULL);

    const auto repack = parse_llama_log(
                            "load_tensors:   CPU_REPACK model buffer size =   504.00 MiB\n"
                            "load_tensors:   CPU_Mapped model buffer size =   702.40 MiB\n")
                            .value();
    const auto r = verify_server_terms(repack, &test::model("llama-3.2-1b"), test::quant("Q4_0"));
    REQUIRE(r.size() == 1);
    CHECK(r[0].term == "cpu_repack");
    CHECK(r[0].estimate == 528'482'304ULL);
    CHECK(r[0].actual == 528'482'304ULL);
}

// A llama-server log with a draft model, in 0ad4a86's order (tools/server/server-context.cpp:
// the main model and its context, then common_speculative_init_result loads the draft and its
// context, then the server's own lines). The draft's lines are the draft's: the main model keeps
// its arch, its free memory at load, its one model buffer and its one context; the draft's
// buffers are rows of their own, each MiB x 1,048,576 rounded: 762.81 MiB = 799,014,912 +
// 849,346.56 = 799,864,259 B, KV 256 MiB = 268,435,456 B, output 0.49 MiB = 513,802 B (.24
// dropped), compute 2 x 64 MiB = 134,217,728 B.
// An MTP context's lines (the main model's, no weights) are rows named mtp_.
TEST_CASE("server terms: verify reads a draft model's buffers apart from the main model's") {
    const std::string main_model =
        "llama_model_load_from_file_impl: using device CUDA0 (NVIDIA GeForce RTX 3090) - "
        "23000 MiB free\n"
        "print_info: arch             = llama\n"
        "load_tensors:        CUDA0 model buffer size = 20000.00 MiB\n"
        "llama_context: constructing llama_context\n"
        "llama_context: n_ctx         = 8192\n"
        "llama_kv_cache:      CUDA0 KV buffer size =  2560.00 MiB\n"
        "llama_context:      CUDA0 compute buffer size =   266.50 MiB\n";
    const std::string draft =
        "common_speculative_init_result: loading draft model '/m/Llama-3.2-1B-Q4_K_M.gguf'\n"
        "llama_model_load_from_file_impl: using device CUDA0 (NVIDIA GeForce RTX 3090) - "
        "700 MiB free\n"
        "print_info: arch             = qwen3\n"
        "load_tensors:        CUDA0 model buffer size =   762.81 MiB\n"
        "llama_context: constructing llama_context\n"
        "llama_context: n_ctx         = 8192\n"
        "llama_context:  CUDA_Host  output buffer size =     0.49 MiB\n"
        "llama_kv_cache:      CUDA0 KV buffer size =   256.00 MiB\n"
        "llama_context:      CUDA0 compute buffer size =    64.00 MiB\n"
        "llama_context:  CUDA_Host compute buffer size =    64.00 MiB\n"
        "srv    load_model: prompt cache is enabled, size limit: 8192 MiB\n";
    const auto log = parse_llama_log(main_model + draft).value();
    CHECK(log.arch() == "llama");
    REQUIRE(log.devices.size() == 1);
    CHECK(log.devices[0].free == 23'000ULL * 1'048'576);
    CHECK(log.model_buffers.size() == 1);
    CHECK(log.contexts.size() == 1);
    CHECK(log.server.prompt_cache_limit == 8'589'934'592ULL);
    REQUIRE(log.draft.has_value());
    CHECK_FALSE(log.draft->mtp);
    const auto rows = verify_server_terms(log, nullptr, std::nullopt);
    REQUIRE(rows.size() == 5);
    CHECK(rows[1].term == "draft_weights");
    CHECK(rows[1].actual == 799'864'259ULL);
    CHECK_FALSE(rows[1].estimate.has_value());
    CHECK(rows[2].term == "draft_output");
    CHECK(rows[2].actual == 513'802ULL);
    CHECK(rows[3].term == "draft_kv");
    CHECK(rows[3].actual == 268'435'456ULL);
    CHECK(rows[4].term == "draft_compute");
    CHECK(rows[4].actual == 134'217'728ULL);

    const auto mtp = parse_llama_log(main_model +
                                     "common_speculative_init_result: creating MTP draft context "
                                     "against the target model '/m/Qwen3.5-27B-Q4_K_M.gguf'\n"
                                     "llama_context: constructing llama_context\n"
                                     "llama_kv_cache:      CUDA0 KV buffer size =    32.00 MiB\n")
                         .value();
    CHECK(mtp.contexts.size() == 1);
    const auto mtp_rows = verify_server_terms(mtp, nullptr, std::nullopt);
    REQUIRE(mtp_rows.size() == 1);
    CHECK(mtp_rows[0].term == "mtp_kv");
    CHECK(mtp_rows[0].actual == 33'554'432ULL);
}

// Speculative decoding's speed, by hand: a target at 20 tokens/s, a draft at 400, up to 16
// drafted tokens a step. Each step costs 16 / 400 + 1 / 20 = 0.09 s. With 70 % accepted a step
// yields (1 - 0.7^17) / 0.3 = 3.32558 tokens: 36.951 tokens/s; with none accepted 1 token:
// 11.11 tokens/s, slower than the target alone.
TEST_CASE("server terms: speculative decoding's speed is an assumption worked as stated") {
    CHECK(speculative_tokens_per_s(20, 400, 0.7, 16) == Approx(36.951).epsilon(1e-4));
    CHECK(speculative_tokens_per_s(20, 400, 0.0, 16) == Approx(11.111).epsilon(1e-4));
    CHECK(speculative_tokens_per_s(0, 400, 0.7, 16) == 0);
    // Through the plan: Llama 3.3 70B with a 1B draft on 2x3090 gains, at the assumption.
    PlanSettings s = at_context(8192);
    s.server.draft = ResidentModel{&test::model("llama-3.2-1b"), &test::quant("Q4_K_M"), nullptr};
    const auto a = answer_for(test::model("llama-3.3-70b"), test::quant("Q4_K_M"),
                              test::hardware_of({"rtx-3090", "rtx-3090"}), s)
                       .value();
    REQUIRE(a.speculative.has_value());
    CHECK(a.speculative->acceptance == 0.7);
    CHECK(a.speculative->tokens_per_s ==
          Approx(speculative_tokens_per_s(a.speed.decode_tokens_per_s,
                                          a.speculative->draft_tokens_per_s, 0.7, 3)));
    // 3 drafted a step: --spec-draft-n-max's default at 0ad4a86 (common/common.h line 326)
    CHECK(a.speculative->draft_max == 3);
}

// The output buffer of a model llama-server runs for embeddings (llamacpp_output_bytes): with
// --embeddings every token of a batch is an output and the server's batch is the ubatch, so
// the first request makes it (n_vocab + n_embd) x 4 B a token of the ubatch. Qwen3-Embedding-
// 0.6B (vocab 151,669, n_embd 1,024) at ubatch 512: 152,693 x 4 x 512 = 312,715,264 B; at
// ubatch 256, or at 200 tokens (a causal model's batch is capped at the context, padded to
// 256): 156,357,632 B. Qwen3-Reranker-0.6B the same; BGE-M3 (an encoder: vocab 250,002, n_embd
// 1,024): 251,026 x 4 x 512 = 514,101,248 B. A chat model keeps n_vocab floats a sequence:
// Qwen3 8B (151,936) 607,744 B, 2,430,976 B for 4.
TEST_CASE("server terms: an embedding model's output buffer holds a batch of outputs") {
    const auto output = [](const char* id, std::uint64_t context, std::uint64_t ubatch,
                           std::uint64_t n_seq) {
        LlamaCppOptions o;
        o.context = context;
        o.ubatch = ubatch;
        o.n_seq = n_seq;
        return llamacpp_output_bytes(test::model(id), o);
    };
    CHECK(output("qwen3-embedding-0.6b", 8192, 512, 1) == 312'715'264ULL);
    CHECK(output("qwen3-embedding-0.6b", 8192, 256, 1) == 156'357'632ULL);
    CHECK(output("qwen3-embedding-0.6b", 200, 512, 1) == 156'357'632ULL);
    CHECK(output("qwen3-reranker-0.6b", 8192, 512, 1) == 312'715'264ULL);
    CHECK(output("bge-m3", 8192, 512, 1) == 514'101'248ULL);
    CHECK(output("qwen3-8b", 8192, 512, 1) == 607'744ULL);
    CHECK(output("qwen3-8b", 32768, 512, 4) == 2'430'976ULL);
    CHECK(llama_serve(test::model("qwen3-embedding-0.6b")) == LlamaServe::embeddings);
    CHECK(llama_serve(test::model("qwen3-reranker-0.6b")) == LlamaServe::reranking);
    CHECK(llama_serve(test::model("nomic-embed-text-v1.5")) == LlamaServe::embeddings);
    CHECK(llama_serve(test::model("qwen3-8b")) == LlamaServe::completion);

    // --also beside Qwen3 8B on an RTX 4090 at 8,192 tokens: the companion's RAM holds it
    // beside its host compute buffer, and its line asks for the endpoint.
    const ResidentModel embed{&test::model("qwen3-embedding-0.6b"), &test::quant("Q8_0"), nullptr};
    const PlanSettings s =
        companion_settings(embed, ollama_model_settings(at_context(8192), *embed.model));
    const auto parts = plan_parts(*embed.model, *embed.quant, s).value();
    CHECK(parts.buffers->output == 312'715'264ULL);
    const Placement p =
        companion_placement(embed, test::hardware_of({"rtx-4090"}), s, true).value();
    CHECK(p.ram.compute - parts.buffers->host_compute == 312'715'264ULL);
    const auto args = llama_server_args({embed.model, embed.quant, {}}, s);
    CHECK(args.back() == "--embeddings");
}

// Companions are repacked on a machine without a GPU by the main model's rule: Llama 3.2 1B at
// Q4_0 drafting for itself, and again --also, each holds its own 528,482,304 B CPU_REPACK copy
// (the AVX2 case above) in its RAM row; --no-repack takes all three off (the draft copies the
// main's no_extra_bufts; the --also section carries no-repack = true). With a GPU every
// companion's layers are on it: nothing repacked.
TEST_CASE("server terms: companions get their CPU_REPACK copy on a CPU-only machine") {
    const ResidentModel one_b{&test::model("llama-3.2-1b"), &test::quant("Q4_0"), nullptr};
    PlanSettings s = at_context(8192);
    s.server.draft = one_b;
    s.server.also.push_back(one_b);
    const Placement on = plan_of("llama-3.2-1b", "Q4_0", {}, s);
    s.server.repack = false;
    const Placement off = plan_of("llama-3.2-1b", "Q4_0", {}, s);
    CHECK(term(on.ram, "cpu_repack").load == 528'482'304ULL);
    for (const char* name : {"draft:llama-3.2-1b", "also:llama-3.2-1b"}) {
        CHECK(term(on.ram, name).load - term(off.ram, name).load == 528'482'304ULL);
    }
    CHECK(on.ram.total() - off.ram.total() == 3 * 528'482'304ULL);
    const RouterLaunch router =
        llama_router_launch({&test::model("llama-3.2-1b"), &test::quant("Q4_0"), {}}, s);
    const auto& section = router.models.back().options;
    CHECK(std::find(section.begin(), section.end(),
                    std::pair<std::string, std::string>{"no-repack", "true"}) != section.end());
    const Placement gpu_off = plan_of("llama-3.2-1b", "Q4_0", {"rtx-4090"}, s);
    s.server.repack = true;
    const Placement gpu_on = plan_of("llama-3.2-1b", "Q4_0", {"rtx-4090"}, s);
    CHECK(gpu_on.ram.total() == gpu_off.ram.total());
}

// OLMo 3 7B at 8,192 tokens on an RTX 4090 with 32 GB (32,000,000,000 B) of RAM, no growth flag
// given (#32). data/models/olmo.json: 24 of 32 layers slide over 4,096 tokens, 32 KV heads x
// 128. llama_kv_cache_iswa's sliding cells (llama_sliding_cells, llamacpp_rules.cpp):
// GGML_PAD(min(8,192, 4,096 + 512), 256) = 4,608; a cell of one layer holds K and V of
// 32 x 128 x 2 B each = 16,384 B. One checkpoint = 24 x 4,608 x 16,384 = 1,811,939,328 B; 32
// would be 57,982,058,496 B beside the 8,589,934,592 B prompt cache: over 32 GB after a load of
// under 1 GB (the RAM holds the token embedding, 100,278 x 4,096 at Q4_K: 231,040,512 B, and
// host buffers). The room past the cache and the load: 13 checkpoints (23,555,211,264 B) pass
// it even at no load; 12 (21,743,271,936 B) fit while the load is at most
// 32,000,000,000 - 8,589,934,592 - 21,743,271,936 = 1,666,793,472 B. So the line keeps 12 a
// slot and the model runs natively.
TEST_CASE("server terms: OLMo 3 7B keeps the checkpoints that fit 32 GB of RAM") {
    const auto a = answer_for(test::model("olmo-3-7b"), test::quant("Q4_K_M"),
                              test::hardware_of({"rtx-4090"}, 32), test::at_context(8192));
    REQUIRE(a);
    const Placement& p = a->plan.placement;
    CHECK(a->plan.kind == PlanKind::native);
    CHECK(p.checkpoint_bytes == 1'811'939'328ULL);
    CHECK(p.ram.total() <= 1'666'793'472ULL);
    REQUIRE(p.capped_checkpoints);
    CHECK(*p.capped_checkpoints == 12);
    CHECK(p.asked_checkpoints == 32);
    CHECK_FALSE(p.capped_cache_ram);
    CHECK(term(p.ram, "ctx_checkpoints").most == 12 * 1'811'939'328ULL);
    CHECK(term(p.ram, "prompt_cache").most == 8'589'934'592ULL);
    CHECK(p.fits());
    const auto args = llama_server_args({&test::model("olmo-3-7b"), &test::quant("Q4_K_M"), {}},
                                        a->settings, nullptr, &p);
    const auto at = std::find(args.begin(), args.end(), "--ctx-checkpoints");
    REQUIRE(at != args.end());
    REQUIRE(std::next(at) != args.end());
    CHECK(*std::next(at) == "12");
    CHECK(std::find(args.begin(), args.end(), "--cache-ram") == args.end());

    // --ctx-checkpoints 32 given: kept, and 32 x 1,811,939,328 B outgrow 32 GB whatever the
    // cache, so nothing is lowered and the plan does not run (it holds its load only).
    PlanSettings given = test::at_context(8192);
    given.server.ctx_checkpoints_given = true;
    const auto b = answer_for(test::model("olmo-3-7b"), test::quant("Q4_K_M"),
                              test::hardware_of({"rtx-4090"}, 32), given);
    REQUIRE(b);
    CHECK(b->plan.kind == PlanKind::none);
    CHECK(b->plan.placement.ram.loads());
    CHECK_FALSE(b->plan.placement.capped_checkpoints);
    CHECK_FALSE(b->plan.placement.capped_cache_ram);
    CHECK(term(b->plan.placement.ram, "ctx_checkpoints").most == 32 * 1'811'939'328ULL);
}

// Where no checkpoint fits, the prompt cache is lowered in whole MiB: Llama 3.1 8B (no
// checkpoints) with 8 GB (8,000,000,000 B) of RAM and --cache-ram left out. The cache kept is
// the room past the RAM's load, rounded down to a MiB: (8,000,000,000 - load) / 1,048,576.
TEST_CASE("server terms: the prompt cache lowered to the RAM's room in whole MiB") {
    const auto a = answer_for(test::model("llama-3.1-8b"), test::quant("Q4_K_M"),
                              test::hardware_of({"rtx-4090"}, 8), test::at_context(8192));
    REQUIRE(a);
    const Placement& p = a->plan.placement;
    CHECK(a->plan.kind == PlanKind::native);
    REQUIRE(p.capped_cache_ram);
    CHECK(*p.capped_cache_ram == (8'000'000'000ULL - p.ram.total()) / (1ULL << 20) * (1ULL << 20));
    CHECK(p.asked_cache_ram == 8'589'934'592ULL);
    CHECK(p.fits());
}
