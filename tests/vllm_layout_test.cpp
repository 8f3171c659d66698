// vLLM over several GPUs and hosts, derived by hand from vLLM's rules (src/core/engines/
// vllm_engine.cpp): tensor parallel divides each layer, pipeline parallel the layers.

#include "canitrun/vllm_layout.hpp"
#include "catch.hpp"
#include "test_support.hpp"

using namespace canitrun;

namespace {

Cluster layout_hosts(std::initializer_list<const char*> specs) {
    Cluster c;
    for (const char* s : specs) c.hosts.push_back(parse_host(test::database(), s, 0).value());
    return c;
}

VllmOptions at(std::uint64_t context) {
    VllmOptions o;
    o.context = context;
    return o;
}

// DeepSeek V3 as an FP8 checkpoint: 671e9 parameters, of which the two embedding tables are
// 2 x 129280 x 7168 = 1,853,358,080 in BF16 and the rest one byte each.
constexpr std::uint64_t kDsEmbedding = 2ULL * 129280 * 7168;
constexpr std::uint64_t kDsBody = 671000000000ULL - kDsEmbedding;
// Per rank at TP 8: the body / 8, and each table's 129280 / 8 = 16160 rows x 7168 x 2 bytes.
constexpr std::uint64_t kDsRankTp8 = kDsBody / 8 + 2ULL * 16160 * 7168 * 2;

}  // namespace

TEST_CASE("vllm: an FP8 checkpoint keeps its embeddings in BF16") {
    const auto w = checkpoint_weight_bytes(test::model("deepseek-v3"), test::quant("FP8"));
    CHECK(w.value() == kDsBody + kDsEmbedding * 2);  // 672,853,358,080 bytes
}

TEST_CASE("vllm: DeepSeek V3 at FP8 does not fit 8x H100 80 GB") {
    const auto l = choose_vllm_layout(test::model("deepseek-v3"), test::quant("FP8"),
                                      layout_hosts({"8xh100-sxm"}), at(8192))
                       .value();
    CHECK_FALSE(l.fits);
    CHECK(l.estimate.tensor_parallel == 8);
    // 84.1 GB per GPU against 0.9 x 80 GiB = 77.3 GB
    CHECK(l.estimate.estimate.term(TermKind::weights) == kDsRankTp8);
    CHECK(l.estimate.budget == 85899345920ULL * 90 / 100);
}

TEST_CASE("vllm: DeepSeek V3 at FP8 fits 8x H200 at TP 8") {
    const auto l = choose_vllm_layout(test::model("deepseek-v3"), test::quant("FP8"),
                                      layout_hosts({"8xh200-sxm"}), at(8192))
                       .value();
    REQUIRE(l.fits);
    CHECK(l.estimate.tensor_parallel == 8);
    CHECK(l.estimate.pipeline_parallel == 1);
    const auto& s = l.estimate.stages.at(0);
    CHECK(s.weights == kDsRankTp8);
    // H200 (>= 70 GiB): 8192 batched tokens x 2 bytes x (2 x (8 x 2048 + 2048) / 8 + 4 x 7168)
    // plus 256 x 4 x 129280 bytes of logits
    CHECK(s.activations == 8192ULL * 2 * (2 * 2304 + 4 * 7168) + 256ULL * 4 * 129280);
    const std::uint64_t budget = 151397597184ULL * 90 / 100;
    CHECK(s.kv_pool == budget - kDsRankTp8 - s.activations - (1ULL << 30));
    // MLA: every rank keeps the whole 512 + 64 latent of all 61 layers, 2 bytes each
    CHECK(s.page_bytes == 16ULL * 61 * 576 * 2);
    CHECK(l.estimate.max_context_one_seq == s.kv_pool / s.page_bytes * 16);
}

TEST_CASE("vllm: DeepSeek V3 at FP8 over two 8x H100 hosts takes TP 8 x PP 2") {
    const auto l = choose_vllm_layout(test::model("deepseek-v3"), test::quant("FP8"),
                                      layout_hosts({"8xh100-sxm", "8xh100-sxm"}), at(8192))
                       .value();
    REQUIRE(l.fits);
    CHECK(l.estimate.tensor_parallel == 8);
    CHECK(l.estimate.pipeline_parallel == 2);
    REQUIRE(l.estimate.stages.size() == 2);
    // get_pp_indices: 61 layers -> 30 each, the spare one to the stage before the last
    CHECK(l.estimate.stages[0].layers == 31);
    CHECK(l.estimate.stages[1].layers == 30);
    CHECK(l.stage_hosts == std::vector<std::size_t>{0, 1});
    // the two stages hold one TP 8 rank's bytes between them (one rounding byte each way)
    const std::uint64_t both = l.estimate.stages[0].weights + l.estimate.stages[1].weights;
    CHECK(both >= kDsRankTp8);
    CHECK(both <= kDsRankTp8 + 2);
    const auto lines = vllm_launch_lines(test::model("deepseek-v3"), test::quant("FP8"), l);
    REQUIRE(lines.size() == 4);
    CHECK(lines[0] == "# host 1 (the Ray head): ray start --head --port=6379");
    CHECK(lines[1] == "# host 2: ray start --address=HOST1_IP:6379");
    // FP8 is DeepSeek V3's own checkpoint: vLLM reads it from the config, no --quantization
    CHECK(lines[3] ==
          "vllm serve deepseek-ai/DeepSeek-V3 --tensor-parallel-size 8 "
          "--pipeline-parallel-size 2 --max-model-len 8192 --distributed-executor-backend ray");
}

TEST_CASE("vllm: pipeline stages take the spare layers before the last") {
    CHECK(pipeline_layers(61, 2) == std::vector<std::uint64_t>{31, 30});
    CHECK(pipeline_layers(32, 3) == std::vector<std::uint64_t>{11, 11, 10});
    CHECK(pipeline_layers(80, 4) == std::vector<std::uint64_t>{20, 20, 20, 20});
    // 126 = 4 x 31 + 2: partitions[-2] and [-3] gain one
    CHECK(pipeline_layers(126, 4) == std::vector<std::uint64_t>{31, 32, 32, 31});
}

TEST_CASE("vllm: tensor parallel sizes follow the heads") {
    const Model& llama = test::model("llama-3.1-70b");  // 64 heads, 8 KV heads
    CHECK(check_tensor_parallel(llama, 8).has_value());
    CHECK(check_tensor_parallel(llama, 16).has_value());       // 16 % 8 == 0: KV heads copied
    CHECK_FALSE(check_tensor_parallel(llama, 3).has_value());  // 64 % 3 != 0
    CHECK_FALSE(check_tensor_parallel(llama, 6).has_value());
}

TEST_CASE("vllm: past the KV heads each rank keeps a copy of one") {
    VllmOptions o = at(8192);
    o.gpu_memory = 80ULL << 30;
    o.tensor_parallel = 16;
    const auto r = estimate_vllm(test::model("llama-3.1-70b"), test::quant("BF16"), o).value();
    // 80 layers x 1 KV head x 128 x 2 (K, V) x 2 bytes per token, 16 tokens a page
    CHECK(r.page_bytes == 16ULL * 80 * 1 * 128 * 2 * 2);
}

TEST_CASE("vllm: an 8B model in BF16 on one H100 serves 55 sequences of 8k") {
    const auto l = choose_vllm_layout(test::model("llama-3.1-8b"), test::quant("BF16"),
                                      layout_hosts({"h100-sxm"}), at(8192))
                       .value();
    REQUIRE(l.fits);
    CHECK(l.options.max_num_seqs == 1024);
    // pool: 0.9 x 80 GiB - 16.06e9 weights - 8192 x 2 x (2 x 14336 + 4 x 4096) - 256 x 4 x
    // 128256 - 1 GiB = 59,306,137,856 bytes; a sequence of 8192 tokens: 512 pages of
    // 16 x 32 x 2 x 8 x 128 x 2 = 2,097,152 bytes
    CHECK(l.estimate.kv_pool == 59306137856ULL);
    CHECK(l.estimate.max_sequences == 59306137856ULL / (512ULL * 2097152));
    CHECK(l.estimate.max_sequences == 55);
}

TEST_CASE("vllm: a context past the model's window is capped, not refused") {
    const auto l = choose_vllm_layout(test::model("llama-3.1-8b"), test::quant("BF16"),
                                      layout_hosts({"h100-sxm"}), at(1048576))
                       .value();
    CHECK(l.context_capped);
    CHECK(l.options.context == 131072);
}

// Issue #33: past a YaRN model's window vLLM takes the longer --max-model-len with the rope
// scaling its docs give (--hf-overrides rope_parameters). Qwen3 8B: a 32,768-token window,
// YaRN to 131,072 (its card); 131,072 / 32,768 = factor 4, as the card's own example.
TEST_CASE("vllm: past a YaRN window the line turns YaRN on instead of capping") {
    const Model& m = test::model("qwen3-8b");
    const auto l =
        choose_vllm_layout(m, test::quant("BF16"), layout_hosts({"h100-sxm"}), at(131072)).value();
    CHECK_FALSE(l.context_capped);
    CHECK(l.options.context == 131072);
    CHECK(l.yarn_factor == 4);
    CHECK(l.estimate.longest_context == 131072);
    const std::vector<std::string> lines = vllm_launch_lines(m, test::quant("BF16"), l);
    CHECK(lines.back() ==
          "vllm serve Qwen/Qwen3-8B --hf-overrides '{\"rope_parameters\":{\"rope_type\":\"yarn\","
          "\"factor\":4.0,\"original_max_position_embeddings\":32768}}' --max-model-len 131072");
}

TEST_CASE("vllm refuses hosts without CUDA or ROCm GPUs") {
    const auto l = choose_vllm_layout(test::model("llama-3.1-8b"), test::quant("BF16"),
                                      layout_hosts({"m3-ultra-256gb"}), at(8192));
    REQUIRE_FALSE(l.has_value());
    CHECK(l.error().message.find("NVIDIA") != std::string::npos);
}
